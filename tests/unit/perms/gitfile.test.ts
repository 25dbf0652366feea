// .git and commondir files read as git reads them (setup.c): the spaces are the path's.
import { expect, test } from "bun:test";
import { commondirTarget, gitfileTarget } from "../../../src/perms/gitfile.ts";

test.each([
  ["gitdir: ../x\n", "../x"],
  ["gitdir: ../x  \n", "../x  "],
  ["gitdir:  x\r\n", " x"],
  ["gitdir: a\nb\n", "a\nb"],
  ["gitdir:x\n", null],
  ["  gitdir: x\n", null],
  ["gitdir: \n", null],
  ["", null],
])("%j names %j", (text, want) => {
  expect(gitfileTarget(text)).toBe(want);
});

test("commondir keeps its spaces and drops only the line end", () => {
  expect(commondirTarget("../../c  \n")).toBe("../../c  ");
  expect(commondirTarget("\r\n")).toBeNull();
  expect(commondirTarget(null)).toBeNull();
});
