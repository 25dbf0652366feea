// .git and commondir files read as git reads them (setup.c): the spaces are the path's.
import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commondirTarget, gitfileTarget, readSmallText } from "../../../src/perms/gitfile.ts";
import { tempDir } from "../../support/context.ts";

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

test("readSmallText: a regular file's text; null at once for a FIFO, a folder, one over 1 MB, a missing file, and a final link when not followed", () => {
  const d = tempDir("bunker-gitfile-");
  writeFileSync(join(d, "f"), "gitdir: x\n");
  writeFileSync(join(d, "big"), "x".repeat((1 << 20) + 1));
  mkdirSync(join(d, "dir"));
  expect(Bun.spawnSync(["mkfifo", join(d, "fifo")]).exitCode).toBe(0);
  symlinkSync("f", join(d, "link"));
  expect(readSmallText(join(d, "f"))).toBe("gitdir: x\n");
  for (const name of ["fifo", "dir", "big", "missing"]) expect(readSmallText(join(d, name))).toBeNull();
  expect(readSmallText(join(d, "link"))).toBe("gitdir: x\n");
  expect(readSmallText(join(d, "link"), true)).toBeNull();
});
