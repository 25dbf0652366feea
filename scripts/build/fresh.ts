// The compiled host binary for tests and benchmarks: dist/bunker, rebuilt
// only when it is older than the sources or was stamped with another commit,
// so a test run pays for at most one compile (~1 s).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
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

/** Path to an up-to-date dist/bunker built from src/main.ts, compiling it if needed (once per process). */
export function freshBinary(): Promise<{ path: string; stamp: Stamp; compiled: boolean }> {
  pending ??= (async () => {
    const stamp = readStamp(ROOT);
    if (existsSync(DIST_BINARY) && statSync(DIST_BINARY).mtimeMs > newestInput() && stampedWith(DIST_BINARY, stamp)) {
      return { path: DIST_BINARY, stamp, compiled: false };
    }
    await compile({ entry: join(ROOT, "src/main.ts"), outfile: DIST_BINARY, stamp, bytecode: true, cwd: ROOT });
    return { path: DIST_BINARY, stamp, compiled: true };
  })();
  return pending;
}
