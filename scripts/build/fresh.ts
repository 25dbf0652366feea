// The compiled host binary for tests and benchmarks: dist/bunker, rebuilt
// only when it is older than the sources or was stamped with another commit,
// so a test run pays for at most one compile (~1 s).
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { compile } from "./compile.ts";
import { readStamp, type Stamp } from "./stamp.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const DIST_BINARY = join(ROOT, "dist", process.platform === "win32" ? "bunker.exe" : "bunker");

/** Newest modification time (ms) of the files that go into the binary. */
function newestInput(): number {
  let newest = 0;
  const visit = (path: string) => {
    if (!existsSync(path)) return;
    const st = statSync(path);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of ["src", "package.json", "bun.lock", "scripts/build.ts", "scripts/build"]) visit(join(ROOT, p));
  return newest;
}

function stampedWith(bin: string, stamp: Stamp): boolean {
  const r = Bun.spawnSync([bin, "--version"], { stdout: "pipe", stderr: "ignore", env: {} });
  const out = r.stdout.toString();
  return r.exitCode === 0 && out.includes(stamp.version) && out.includes(stamp.commit);
}

let pending: Promise<{ path: string; stamp: Stamp; compiled: boolean }> | undefined;

const LOCK = join(ROOT, "dist", ".fresh.lock");
/** A compile holding the lock longer than this has died; its lock is taken over. */
const STALE_LOCK_MS = 120_000;

/**
 * Runs `fn` while holding dist/.fresh.lock (a directory: mkdir is atomic), so
 * that test files run side by side (`bun test --parallel`) and benchmarks
 * compile the binary once between them instead of once each.
 */
async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      await Bun.sleep(50);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Path to an up-to-date dist/bunker built from src/main.ts, compiling it if needed (once per process, one process at a time). */
export function freshBinary(): Promise<{ path: string; stamp: Stamp; compiled: boolean }> {
  pending ??= (async () => {
    const stamp = readStamp(ROOT);
    const fresh = () => existsSync(DIST_BINARY) && statSync(DIST_BINARY).mtimeMs > newestInput() && stampedWith(DIST_BINARY, stamp);
    if (fresh()) return { path: DIST_BINARY, stamp, compiled: false };
    return withLock(async () => {
      // Another process may have compiled it while this one waited for the lock.
      if (fresh()) return { path: DIST_BINARY, stamp, compiled: false };
      await compile({ entry: join(ROOT, "src/main.ts"), outfile: DIST_BINARY, stamp, bytecode: true, cwd: ROOT });
      return { path: DIST_BINARY, stamp, compiled: true };
    });
  })();
  return pending;
}
