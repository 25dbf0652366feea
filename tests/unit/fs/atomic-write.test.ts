import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../../src/fs/atomic-write.ts";
import { tempDir } from "../../support/context.ts";
import { versionContent, wholeVersion } from "../../support/atomic-version.ts";

const WRITER = join(import.meta.dir, "../..", "support", "atomic-writer.ts");

/** Starts a writer, kills it with SIGKILL at a random moment, `rounds` times; returns what the file held after each kill. */
async function killRepeatedly(path: string, rounds: number, plain = false): Promise<(number | null)[]> {
  const seen: (number | null)[] = [];
  for (let i = 0; i < rounds; i++) {
    const child = Bun.spawn(["bun", WRITER, path, ...(plain ? ["--plain"] : [])], { stdout: "pipe", stderr: "inherit" });
    // wait until it is writing, then let it run a random 0-30 ms
    const reader = child.stdout.getReader();
    await reader.read();
    await Bun.sleep(Math.random() * 30);
    child.kill("SIGKILL");
    await child.exited;
    seen.push(wholeVersion(readFileSync(path, "latin1")));
  }
  return seen;
}

/**
 * Where the kill tests write: memory (/dev/shm) when there is one. What they
 * test is a process killed mid-write, which the rename alone answers; on a
 * disk, every version's flush made a busy machine's SIGKILL wait for the
 * disk (a process in fsync dies only after it), and 25 rounds took over 30 s.
 */
function killDir(): string {
  const dir = existsSync("/dev/shm") ? realpathSync(mkdtempSync("/dev/shm/bunker-atomic-")) : tempDir();
  killDirs.push(dir);
  return dir;
}
const killDirs: string[] = [];
/** Each round starts a bun process: about 0.2 s on a quiet machine, several seconds with two test suites running beside. */
const KILL_TEST_MS = 120_000;
// Memory is not a temp directory anyone cleans: each run leaves about 25 MB of killed writers' temp files.
afterAll(() => {
  for (const d of killDirs) rmSync(d, { recursive: true, force: true });
});

describe("atomic write", () => {
  test("a writer killed at random moments always leaves one whole version", async () => {
    const dir = killDir();
    // Five files, five kills each, side by side: a loaded machine shares its CPU among processes, so
    // writers started together wait less in all than one after another (25 in a row took over 120 s).
    const paths = [0, 1, 2, 3, 4].map((i) => join(dir, `data-${i}.txt`));
    for (const p of paths) writeFileSync(p, versionContent(0));
    const seen = (await Promise.all(paths.map((p) => killRepeatedly(p, 5)))).flat();
    expect(seen).toHaveLength(25);
    // The check means something only when some kill landed mid-write (it leaves its temp file behind). In memory
    // a write is so quick that 25 random kills can all miss one: kill on (at most 100 more) until one has landed.
    const leftovers = () => readdirSync(dir).filter((n) => n.endsWith(".tmp"));
    for (let extra = 0; extra < 100 && leftovers().length === 0; extra += 5) seen.push(...(await Promise.all(paths.map((p) => killRepeatedly(p, 1)))).flat());
    expect(seen.filter((v) => v === null)).toEqual([]);
    expect(leftovers().length).toBeGreaterThan(0);
    // and the files did move on from the first version
    expect(Math.max(...(seen as number[]))).toBeGreaterThan(0);
  }, KILL_TEST_MS);

  test("the check catches torn files: a naive writer killed the same way leaves one", async () => {
    const dir = killDir();
    const path = join(dir, "data.txt");
    writeFileSync(path, versionContent(0));
    // Killed until a file is torn (50 times at most): on a loaded machine a writer can be killed before it was
    // ever scheduled, which tears nothing, so a fixed number of kills proved nothing either way.
    let torn = false;
    for (let i = 0; i < 50 && !torn; i++) torn = (await killRepeatedly(path, 1, true))[0] === null;
    expect(torn).toBe(true);
  }, KILL_TEST_MS);

  test("keeps the file's mode exactly, whatever the umask", () => {
    const dir = tempDir();
    const path = join(dir, "shared.txt");
    writeFileSync(path, "old");
    for (const mode of [0o664, 0o600, 0o755]) {
      Bun.spawnSync(["chmod", mode.toString(8), path]);
      writeFileAtomic(path, "new");
      expect(statSync(path).mode & 0o777).toBe(mode);
    }
    expect(readFileSync(path, "utf8")).toBe("new");
  });

  test("a new file gets the umask's default mode, not a forced one", () => {
    const dir = tempDir();
    const old = process.umask(0o077);
    try {
      writeFileAtomic(join(dir, "private.txt"), "x");
    } finally {
      process.umask(old);
    }
    expect(statSync(join(dir, "private.txt")).mode & 0o777).toBe(0o600);
  });

  test("a long (but legal) file name can be written; nothing is left behind", () => {
    const dir = tempDir();
    const name = "é".repeat(127); // 254 bytes
    writeFileAtomic(join(dir, name), "ok");
    expect(readFileSync(join(dir, name), "utf8")).toBe("ok");
    expect(readdirSync(dir)).toEqual([name]);
  });
});
