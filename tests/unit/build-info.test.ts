import { expect, test } from "bun:test";
import packageJson from "../../package.json" with { type: "json" };
import { commit, version } from "../../src/build-info.ts";

test("from source, the version is package.json's and the commit is 'dev' (the build defines both)", () => {
  expect(version).toBe(packageJson.version);
  expect(commit).toBe("dev");
});
