// bunker's writes into folders a command could write (the git guard's put-backs): never through a link (red team 12's F19).
import { expect, test } from "bun:test";
import { lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeEntry, renameEntry, replaceFile } from "../../../src/fs/no-follow.ts";
import { tempDir } from "../../support/context.ts";

function place(): { dir: string; outside: string } {
  const dir = tempDir("bunker-no-follow-");
  const outside = tempDir("bunker-no-follow-outside-");
  writeFileSync(join(outside, "bashrc"), "the person's\n");
  return { dir, outside };
}

test("a link at the name is replaced by the new file; what it led to is untouched; the old file's mode is kept", () => {
  const { dir, outside } = place();
  symlinkSync(join(outside, "bashrc"), join(dir, "HEAD"));
  replaceFile(join(dir, "HEAD"), "new\n");
  expect(lstatSync(join(dir, "HEAD")).isFile()).toBe(true);
  expect(readFileSync(join(dir, "HEAD"), "utf8")).toBe("new\n");
  expect(readFileSync(join(outside, "bashrc"), "utf8")).toBe("the person's\n");
  writeFileSync(join(dir, "run"), "a\n", { mode: 0o755 });
  replaceFile(join(dir, "run"), "b\n");
  expect(lstatSync(join(dir, "run")).mode & 0o777).toBe(0o755);
  // No temporary file left beside it.
  expect(readdirSync(dir).sort()).toEqual(["HEAD", "run"]);
});

test("a folder on the way that is a link now: refused with an error, nothing written where it leads", () => {
  const { dir, outside } = place();
  mkdirSync(join(dir, "logs"));
  symlinkSync(outside, join(dir, "logs", "refs"));
  expect(() => replaceFile(join(dir, "logs", "refs", "bashrc"), "x\n")).toThrow(/symbolic link/);
  expect(() => removeEntry(join(dir, "logs", "refs", "bashrc"))).toThrow(/symbolic link/);
  expect(() => renameEntry(join(dir, "logs", "refs", "bashrc"), join(dir, "logs", "refs", "bashrc.aside"))).toThrow(/symbolic link/);
  expect(readFileSync(join(outside, "bashrc"), "utf8")).toBe("the person's\n");
});

test("removing or renaming a link moves the link itself, never what it leads to", () => {
  const { dir, outside } = place();
  symlinkSync(join(outside, "bashrc"), join(dir, "a"));
  renameEntry(join(dir, "a"), join(dir, "a.bunker-set-aside"));
  expect(readlinkSync(join(dir, "a.bunker-set-aside"))).toBe(join(outside, "bashrc"));
  removeEntry(join(dir, "a.bunker-set-aside"));
  expect(readdirSync(dir)).toEqual([]);
  expect(readFileSync(join(outside, "bashrc"), "utf8")).toBe("the person's\n");
  mkdirSync(join(dir, "cache", "x"), { recursive: true });
  writeFileSync(join(dir, "cache", "x", "f"), "y");
  removeEntry(join(dir, "cache"), { recursive: true });
  expect(readdirSync(dir)).toEqual([]);
});
