// Opening for reading never blocks and never takes anything but a regular
// file: a FIFO with no writer, a socket, /dev/zero and a directory are
// refused at once with a sentence saying what they are.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileKindError, openRegular, openRegularSync } from "../../../src/fs/file-kind.ts";
import { tempDir } from "../../support/context.ts";
import { specialFiles, type SpecialFiles } from "../../support/special-files.ts";

let s: SpecialFiles;
beforeAll(async () => {
  s = await specialFiles(tempDir("bunker-kind-"));
});
afterAll(() => s.close());

describe("openRegularSync / openRegular", () => {
  const cases = (): [string, string, RegExp][] => [
    ["a FIFO without a writer", s.fifo, /is a named pipe \(FIFO\), not a regular file/],
    ["a socket", s.socket, /is a socket, not a regular file/],
    ["/dev/zero", "/dev/zero", /is a device, not a regular file/],
    ["a directory", s.root, /is a directory, not a file; use list_files/],
  ];
  test("each is refused at once, saying what it is", async () => {
    for (const [what, path, message] of cases()) {
      const t = Date.now();
      expect(() => openRegularSync(path, what), what).toThrow(message);
      await expect(openRegular(path, what)).rejects.toThrow(message);
      expect(Date.now() - t).toBeLessThan(1000);
    }
  });
  test("a regular file opens; a path that became a link since it was resolved is refused, not followed", async () => {
    writeFileSync(join(s.root, "plain.txt"), "hi\n");
    const { fd, st } = openRegularSync(join(s.root, "plain.txt"), "plain.txt");
    expect(st.size).toBe(3);
    closeSync(fd);
    mkdirSync(join(s.root, "d"));
    symlinkSync("/etc/hostname", join(s.root, "d", "now-a-link"));
    expect(() => openRegularSync(join(s.root, "d", "now-a-link"), "d/now-a-link")).toThrow(new FileKindError("d/now-a-link changed into a symbolic link while being opened; try again"));
  });
});
