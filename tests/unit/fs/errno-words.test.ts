// File-system failures named as what they are, with the fix: a read-only
// mount and a full disk made for real (a mount namespace of the test's own,
// as root), a damaged session store, and a 0555 directory refused for root
// as a 0444 file is.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { diskFull, fsProblem, isDamagedDatabase } from "../../../src/fs/errno-words.ts";
import { writeProblem } from "../../../src/fs/writable.ts";
import { SessionStore } from "../../../src/session/store.ts";
import { tempDir } from "../../support/context.ts";

const CHILD = join(import.meta.dir, "../../support/fs-faults-child.ts");
const canMount = process.getuid?.() === 0 && Bun.spawnSync(["unshare", "--mount", "true"]).exitCode === 0;

describe("file-system faults", () => {
  test.skipIf(!canMount)("a read-only mount and a full disk are named as such, with the fix", () => {
    const dir = tempDir("bunker-faults-");
    const r = Bun.spawnSync(["unshare", "--mount", "bun", CHILD, dir], { stderr: "pipe" });
    expect(r.stderr.toString()).toBe("");
    const said = JSON.parse(r.stdout.toString()) as Record<string, string>;
    expect(said.existing).toBe("a.txt is on a read-only file system (mounted read-only), so nothing there can be changed. Remount it read-write, or work in a copy elsewhere.");
    expect(said.created).toStartWith(`${join(dir, "ro")} is on a read-only file system`);
    expect(said.commit).toBe(`${join(dir, "full/b.txt")}: the disk holding ${join(dir, "full")} is full (no space left on device). Free some space, then try again. Nothing was changed.`);
    expect(said.session).toContain("is full (no space left on device). Free some space");
    expect(said.session).not.toContain("disk I/O error");
  });

  test("a damaged session store says to move it aside, and how, with a command that survives a space in the path", () => {
    const dir = join(tempDir("bunker-damaged-"), "my state");
    mkdirSync(dir);
    const path = join(dir, "sessions.db");
    writeFileSync(path, "this is not a database, it was overwritten by something ".repeat(100));
    expect(() => SessionStore.open(path)).toThrow(`the file is damaged. Move it aside (mv '${path}' '${path}.damaged') and bunker starts a new store`);
  });

  test("a directory with no write bits is refused as a file with none is, root or not", () => {
    const root = tempDir("bunker-0555-");
    mkdirSync(join(root, "locked"));
    writeFileSync(join(root, "locked/inside.txt"), "x\n");
    chmodSync(join(root, "locked"), 0o555);
    try {
      expect(writeProblem(join(root, "locked/new.txt"), "locked/new.txt")).toBe(
        `The directory ${join(root, "locked")} is read-only (mode 0555); bunker does not write into read-only directories. If it should change, make it writable first (chmod u+w ${join(root, "locked")}).`,
      );
      expect(writeProblem(join(root, "locked/inside.txt"), "locked/inside.txt")).toContain("The directory");
    } finally {
      chmodSync(join(root, "locked"), 0o755);
    }
  });
});

describe("the words for each errno (src/fs/errno-words.ts)", () => {
  const err = (code: string, message = code) => Object.assign(new Error(message), { code });
  test.each([
    ["EROFS", "src/a.ts is on a read-only file system (mounted read-only), so nothing there can be changed. Remount it read-write, or work in a copy elsewhere."],
    ["ENOSPC", "the disk holding src/a.ts is full (no space left on device). Free some space, then try again."],
    ["EDQUOT", "the disk quota for src/a.ts is used up. Free some space, then try again."],
  ])("%s", (code, words) => {
    expect(fsProblem(err(code), "src/a.ts")).toBe(words);
  });

  test("a vague I/O error is a full disk only when the disk is full; otherwise nothing better is known", () => {
    expect(fsProblem(err("EIO", "disk I/O error"), tempDir())).toBeNull();
    expect(fsProblem(err("EACCES"), "x")).toBeNull();
    expect(fsProblem("not an error", "x")).toBeNull();
    expect(diskFull(tempDir())).toBe(false);
  });

  test("SQLite's words for a damaged database are recognised, other errors are not", () => {
    expect(isDamagedDatabase(new Error("file is not a database"))).toBe(true);
    expect(isDamagedDatabase(new Error("database disk image is malformed"))).toBe(true);
    expect(isDamagedDatabase(new Error("database is locked"))).toBe(false);
  });
});
