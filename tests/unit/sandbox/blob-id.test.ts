// A working-tree file's git blob id, hashed by bunker itself (src/sandbox/blob-id.ts): the id git gives it, or none
// for what git would not hash as that file (a link, a folder) or past the bytes left to read.
import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { blobIdOf, hashOfId } from "../../../src/sandbox/blob-id.ts";
import { tempDir } from "../../support/context.ts";

const gitHash = (path: string) => Bun.spawnSync(["git", "hash-object", "--no-filters", path], { stdout: "pipe" }).stdout.toString().trim();

test("the same id as git hash-object --no-filters, for text, binary, empty and multi-chunk files, and a name ending in CR", () => {
  const dir = tempDir("bunker-blob-id-");
  const files: Record<string, string | Uint8Array> = { "a.txt": "hello\r\n", "empty": "", "bin": new Uint8Array([0, 1, 2, 255]), "big": "x".repeat(3 * 1024 * 1024 + 7), "pad\r": "scratch" };
  for (const [name, data] of Object.entries(files)) writeFileSync(join(dir, name), data);
  for (const name of Object.keys(files)) {
    const budget = { bytes: 1 << 30 };
    const id = blobIdOf(join(dir, name), "sha1", budget);
    // (git's own CLI hashes pad<CR> fine when named as an argument, not a line of --stdin-paths.)
    expect({ name, id }).toEqual({ name, id: gitHash(join(dir, name)) });
  }
  expect(hashOfId("a".repeat(40))).toBe("sha1");
  expect(hashOfId("a".repeat(64))).toBe("sha256");
});

test("no id for a link, a folder, a missing file, or a file past the bytes left (and the budget is spent then)", () => {
  const dir = tempDir("bunker-blob-id-none-");
  writeFileSync(join(dir, "f"), "12345");
  symlinkSync(join(dir, "f"), join(dir, "link"));
  mkdirSync(join(dir, "d"));
  const budget = { bytes: 100 };
  expect(blobIdOf(join(dir, "link"), "sha1", budget)).toBeNull();
  expect(blobIdOf(join(dir, "d"), "sha1", budget)).toBeNull();
  expect(blobIdOf(join(dir, "nope"), "sha1", budget)).toBeNull();
  const small = { bytes: 4 };
  expect(blobIdOf(join(dir, "f"), "sha1", small)).toBeNull();
  expect(small.bytes).toBe(0);
  expect(blobIdOf(join(dir, "f"), "sha1", budget)).toBe(gitHash(join(dir, "f")));
  expect(budget.bytes).toBe(95);
});
