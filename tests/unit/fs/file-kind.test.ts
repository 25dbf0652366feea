// Opening for reading never blocks and never takes anything but a regular
// file: a FIFO with no writer, a socket, /dev/zero and a directory are
// refused at once with a sentence saying what they are.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileKindError, openRegular, openRegularSync, readRegularSync } from "../../../src/fs/file-kind.ts";
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

describe("readRegularSync: every host-side read of a file a command could have made", () => {
  test("a FIFO, a socket, /dev/zero (also through a link) and a folder are refused at once, named, unread", () => {
    symlinkSync("/dev/zero", join(s.root, "zero-link"));
    const cases: [string, string, boolean, string][] = [
      [s.fifo, "pipe", false, "pipe is a named pipe (FIFO), not a regular file; bunker did not read it"],
      [s.socket, "sock", false, "sock is a socket, not a regular file; bunker did not read it"],
      ["/dev/zero", "/dev/zero", false, "/dev/zero is a device, not a regular file; bunker did not read it"],
      [join(s.root, "zero-link"), "zero-link", true, "zero-link is a device, not a regular file; bunker did not read it"],
      [join(s.root, "zero-link"), "zero-link", false, "zero-link is a symbolic link; bunker did not follow it or read it"],
      [s.root, "the folder", false, "the folder is a directory, not a file; bunker did not read it"],
    ];
    for (const [path, display, follow, said] of cases) {
      const t = Date.now();
      expect(() => readRegularSync(path, display, { max: 1 << 20, follow }), display).toThrow(new FileKindError(said));
      expect(Date.now() - t).toBeLessThan(1000);
    }
  });

  test.skipIf(Bun.spawnSync(["sh", "-c", "command -v strace"]).exitCode !== 0)("a device behind a link is never opened, only looked at (red team 8 F7: opening /dev/watchdog arms it)", () => {
    const link = join(s.root, "dev-link");
    symlinkSync("/dev/zero", link);
    const script = join(s.root, "read-dev.ts");
    writeFileSync(script, `import { readRegularSync } from ${JSON.stringify(join(import.meta.dir, "../../../src/fs/file-kind.ts"))};
try { readRegularSync(${JSON.stringify(link)}, "dev-link", { max: 16, follow: true }); } catch (e) { console.log((e as Error).message); }`);
    const log = join(s.root, "opens.log");
    const r = Bun.spawnSync(["strace", "-f", "-qq", "-o", log, "-e", "trace=open,openat", process.execPath, script]);
    expect(r.stdout.toString().trim()).toBe("dev-link is a device, not a regular file; bunker did not read it");
    const opens = readFileSync(log, "utf8");
    expect(opens).toContain("read-dev.ts");
    expect(opens).not.toContain("dev-link");
    expect(opens).not.toContain("/dev/zero");
  });

  test("nothing there is null; a regular file (and, when followed, a link to one) gives its bytes", () => {
    expect(readRegularSync(join(s.root, "missing"), "missing", { max: 10 })).toBeNull();
    expect(readRegularSync(join(s.root, "missing", "under"), "x", { max: 10 })).toBeNull();
    writeFileSync(join(s.root, "ten.txt"), "0123456789");
    symlinkSync("ten.txt", join(s.root, "ten-link"));
    expect(readRegularSync(join(s.root, "ten.txt"), "ten.txt", { max: 10 })!.bytes.toString()).toBe("0123456789");
    expect(readRegularSync(join(s.root, "ten-link"), "ten-link", { max: 10, follow: true })!.bytes.toString()).toBe("0123456789");
  });

  test("a 2 GB sparse file is refused without being read, or with cut gives only its first bytes", () => {
    const big = join(s.root, "sparse");
    writeFileSync(big, "head of it\n");
    truncateSync(big, 2 ** 31);
    const rss = process.memoryUsage().rss;
    const t = Date.now();
    expect(() => readRegularSync(big, "sparse", { max: 1 << 20 })).toThrow(new FileKindError("sparse is 2.0 GB, more than the 1.0 MB bunker reads of it; bunker did not read it"));
    const head = readRegularSync(big, "sparse", { max: 64 * 1024, cut: true })!;
    expect(head.cut).toBe(true);
    expect(head.bytes.length).toBe(64 * 1024);
    expect(head.bytes.subarray(0, 11).toString()).toBe("head of it\n");
    expect(Date.now() - t).toBeLessThan(1000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
  });

  test("the size fstat gives is only a hint: more than it said is never read past the limit", () => {
    // /proc/self/status is a regular file whose size says 0, like a file a command appends to while it is read.
    expect(() => readRegularSync("/proc/self/status", "status", { max: 16 })).toThrow(new FileKindError("status grew past the 16 bytes bunker reads of it while being read; bunker did not read it"));
    const head = readRegularSync("/proc/self/status", "status", { max: 16, cut: true })!;
    expect([head.bytes.length, head.bytes.toString().startsWith("Name:\t"), head.cut]).toEqual([16, true, true]);
    expect(readRegularSync("/proc/self/status", "status", { max: 1 << 20 })!.bytes.toString()).toContain("VmRSS:");
    const exact = join(s.root, "exact");
    writeFileSync(exact, "x".repeat(100));
    expect(() => readRegularSync(exact, "exact", { max: 99 })).toThrow("exact is 100 bytes, more than the 99 bytes bunker reads of it");
    expect(readRegularSync(exact, "exact", { max: 100 })).toMatchObject({ cut: false });
  });
});
