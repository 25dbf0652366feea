// Writes land where they were checked (src/fs/held-dir.ts): a directory is
// opened without following links and held, so swapping it for a link
// afterwards cannot redirect a write; a link met on the way is refused with
// a sentence saying what it is.
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HeldDir, PathChanged } from "../../../src/fs/held-dir.ts";
import { tempDir } from "../../support/context.ts";

test("a file written through the held handle lands in the directory that was opened, even after it is swapped for a link", () => {
  const base = tempDir("bunker-held-");
  mkdirSync(join(base, "ws", "src"), { recursive: true });
  mkdirSync(join(base, "elsewhere"));
  const held = HeldDir.open(join(base, "ws", "src"));
  try {
    // The attack: the checked directory moves away and a link to elsewhere takes its place.
    renameSync(join(base, "ws", "src"), join(base, "ws", "moved"));
    symlinkSync(join(base, "elsewhere"), join(base, "ws", "src"));
    writeFileSync(held.at("a.ts"), "written\n");
    expect(readFileSync(join(base, "ws", "moved", "a.ts"), "utf8")).toBe("written\n");
    expect(() => readFileSync(join(base, "elsewhere", "a.ts"))).toThrow();
  } finally {
    held.close();
  }
});

test.each([
  ["a link on the way", (base: string) => symlinkSync(join(base, "real"), join(base, "link")), "link/sub", "is now a symbolic link (to"],
  ["a file on the way", (base: string) => writeFileSync(join(base, "file"), ""), "file/sub", "is a file, not a directory"],
  ["a folder that does not exist", () => {}, "missing/sub", "does not exist"],
] as [string, (base: string) => void, string, string][])("%s is refused, saying what it is", (_name, make, rel, said) => {
  const base = tempDir("bunker-held-");
  mkdirSync(join(base, "real", "sub"), { recursive: true });
  make(base);
  let caught: unknown;
  try {
    HeldDir.open(join(base, rel)).close();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(PathChanged);
  expect((caught as Error).message).toContain(said);
});

test("with create, missing folders are made through their parents and listed outermost first", () => {
  const base = tempDir("bunker-held-");
  const created: string[] = [];
  const held = HeldDir.open(join(base, "a", "b"), { create: true, created });
  held.close();
  expect(created).toEqual([join(base, "a"), join(base, "a", "b")]);
  expect(held.path).toBe(join(base, "a", "b"));
});
