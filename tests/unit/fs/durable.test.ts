// The pieces of a durable write: a hidden side file next to the target,
// created fresh and flushed, with the mode it was asked for.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { safeUnlink, sideName, syncDir, writeTempFile } from "../../../src/fs/durable.ts";
import { tempDir } from "../../support/context.ts";

describe("sideName", () => {
  test("a fresh hidden name in the same directory, naming the target and the kind", () => {
    const a = sideName("/ws/src/app.ts", "tmp");
    const b = sideName("/ws/src/app.ts", "tmp");
    expect(dirname(a)).toBe("/ws/src");
    expect(basename(a)).toMatch(new RegExp(`^\\.app\\.ts\\.bunker-${process.pid}-[0-9a-z]+\\.tmp$`));
    expect(a).not.toBe(b);
    expect(sideName("/ws/x", "bak")).toEndWith(".bak");
  });

  test("keep caps how much of a long name is kept, so the side name stays a legal length", () => {
    const long = "n".repeat(250);
    expect(Buffer.byteLength(basename(sideName(`/ws/${long}`, "tmp", 200)))).toBeLessThanOrEqual(255);
  });
});

describe("writeTempFile", () => {
  test("writes the bytes, and with exactMode the mode as given (the umask would drop group write)", () => {
    const dir = tempDir("bunker-durable-");
    const tmp = join(dir, ".x.tmp");
    const old = process.umask(0o022);
    try {
      writeTempFile(tmp, "héllo\n", 0o664, true);
    } finally {
      process.umask(old);
    }
    expect(readFileSync(tmp, "utf8")).toBe("héllo\n");
    expect(statSync(tmp).mode & 0o777).toBe(0o664);
    writeTempFile(join(dir, ".y.tmp"), new Uint8Array([0, 255]), 0o600, false);
    expect([...readFileSync(join(dir, ".y.tmp"))]).toEqual([0, 255]);
  });

  test("never writes through an existing file: it fails and leaves that file alone", () => {
    const dir = tempDir("bunker-durable-");
    const tmp = join(dir, ".taken.tmp");
    writeFileSync(tmp, "someone else's");
    expect(() => writeTempFile(tmp, "mine", 0o644, true)).toThrow(/EEXIST/);
    expect(readFileSync(tmp, "utf8")).toBe("someone else's");
  });
});

describe("safeUnlink and syncDir", () => {
  test("removing a missing file and flushing a missing directory are quiet", () => {
    const dir = tempDir("bunker-durable-");
    const f = join(dir, "f");
    writeFileSync(f, "x");
    safeUnlink(f);
    expect(existsSync(f)).toBe(false);
    expect(() => safeUnlink(f)).not.toThrow();
    expect(() => syncDir(dir)).not.toThrow();
    expect(() => syncDir(join(dir, "nope"))).not.toThrow();
  });
});
