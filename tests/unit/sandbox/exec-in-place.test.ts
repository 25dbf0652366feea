import { expect, test } from "bun:test";
import { execInPlace } from "../../../src/sandbox/exec-in-place.ts";

test("a program that is not on PATH: said through the caller's own failure, nothing run", () => {
  const why: string[] = [];
  expect(execInPlace(["no-such-program-x"], (w) => (why.push(w), 125))).toBe(125);
  expect(why).toEqual(["no-such-program-x was not found"]);
});
