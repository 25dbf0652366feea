import { expect, test } from "bun:test";
import { typoDistance } from "../../../src/text/typos.ts";

test("each typo counts one: a letter added, dropped, replaced, or two neighbours swapped", () => {
  expect(typoDistance("cost", "cost")).toBe(0);
  expect(typoDistance("cots", "cost")).toBe(1);
  expect(typoDistance("cst", "cost")).toBe(1);
  expect(typoDistance("coast", "cost")).toBe(1);
  expect(typoDistance("cast", "cost")).toBe(1);
  expect(typoDistance("rewnid", "rewind")).toBe(1);
  expect(typoDistance("", "abc")).toBe(3);
  expect(typoDistance("config.ts", "cnofig.js")).toBe(2);
});
