import { expect, test } from "bun:test";
import { pathValue } from "../../../src/perms/path-value.ts";

test("a PATH value's entries and where what PATH had stands, however it is written", () => {
  expect(pathValue("$HOME/bin:$PATH")).toEqual({ entries: ["$HOME/bin", "$PATH"], old: 1 });
  expect(pathValue("$PATH:/opt/x")).toEqual({ entries: ["$PATH", "/opt/x"], old: 0 });
  expect(pathValue("$PWD/bin${PATH:+:$PATH}")).toEqual({ entries: ["$PWD/bin", "$PATH"], old: 1 });
  expect(pathValue("$PWD/bin${PATH:+:${PATH}}")).toEqual({ entries: ["$PWD/bin", "$PATH"], old: 1 });
  expect(pathValue("${PATH:+${PATH}:}/late")).toEqual({ entries: ["$PATH", "/late"], old: 0 });
  expect(pathValue("/only/this")).toEqual({ entries: ["/only/this"], old: -1 });
});
