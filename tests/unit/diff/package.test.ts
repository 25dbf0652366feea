// src/diff/package.ts: the diff package's functions, as bunker requires them where a diff is made.
import { expect, test } from "bun:test";

test("required as bunker requires it, the diff package makes a hunk and a word diff", () => {
  const { structuredPatch, diffArrays } = require("../../../src/diff/package.ts") as typeof import("../../../src/diff/package.ts");
  const patch = structuredPatch("a/x", "b/x", "one\ntwo\n", "one\n2\n", undefined, undefined, { context: 3 });
  expect(patch.hunks.map((h) => h.lines)).toEqual([[" one", "-two", "+2"]]);
  expect(diffArrays(["a", "b"], ["a", "c"]).map((c) => [c.value.join(""), Boolean(c.added), Boolean(c.removed)])).toEqual([["a", false, false], ["b", false, true], ["c", true, false]]);
});
