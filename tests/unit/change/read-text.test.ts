// What a change may read before writing (src/change/read-text.ts): UTF-8
// text in a regular file; anything else is refused with a sentence saying
// what it is, and a FIFO is never waited on.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { kindProblem, readText } from "../../../src/change/read-text.ts";
import { tempDir } from "../../support/context.ts";

const root = tempDir("bunker-read-text-");
writeFileSync(join(root, "a.txt"), "héllo\n");
chmodSync(join(root, "a.txt"), 0o640);
writeFileSync(join(root, "bin.dat"), new Uint8Array([1, 0, 2]));
writeFileSync(join(root, "latin1.txt"), new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
mkdirSync(join(root, "dir"));
Bun.spawnSync(["mkfifo", join(root, "pipe")]);
symlinkSync("a.txt", join(root, "link"));
symlinkSync("/dev/zero", join(root, "zero"));

test("a UTF-8 text file: its text, bytes and mode", () => {
  const r = readText(join(root, "a.txt"), "a.txt")!;
  expect(r.text).toBe("héllo\n");
  expect(r.bytes.length).toBe(7);
  expect(r.mode).toBe(0o640);
});

test("a file that does not exist (or whose folder does not) is null: a new file", () => {
  expect(readText(join(root, "new.txt"), "new.txt")).toBeNull();
  expect(readText(join(root, "a.txt", "under-a-file"), "a.txt/under-a-file")).toBeNull();
});

test.each([
  ["bin.dat", "bin.dat looks like a binary file; only text files can be changed this way."],
  ["latin1.txt", "latin1.txt is not valid UTF-8 text; only UTF-8 text files can be changed this way."],
  ["dir", "dir is a directory, not a file; bunker did not read it"],
  ["pipe", "pipe is a named pipe (FIFO), not a regular file; bunker did not read it"],
  ["zero", "zero is a symbolic link; bunker did not follow it or read it"],
])("%s is refused: %s", (name, said) => {
  expect(() => readText(join(root, name), name)).toThrow(said);
});

test("kindProblem names what is not a file, and passes files, links and what does not exist", () => {
  expect(kindProblem(join(root, "dir"), "dir")).toBe("dir is a directory, not a file.");
  expect(kindProblem(join(root, "pipe"), "pipe")).toBe("pipe is a named pipe (FIFO); bunker only reads and writes regular files.");
  expect(kindProblem("/dev/null", "/dev/null")).toBe("/dev/null is a device; bunker only reads and writes regular files.");
  expect(kindProblem(join(root, "a.txt"), "a.txt")).toBeNull();
  expect(kindProblem(join(root, "link"), "link")).toBeNull();
  expect(kindProblem(join(root, "nope"), "nope")).toBeNull();
});
