// One `bun build --compile` run. The binary is written next to its final
// name and renamed into place, so a reader never sees a half-written file
// (tests and the build may race for dist/bunker).
import { mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { Stamp } from "./stamp.ts";

export interface CompileOptions {
  entry: string;
  outfile: string;
  stamp: Stamp;
  /** Bun compile target id ("linux-arm64"), or undefined for this machine's own runtime. */
  target?: string;
  /** Precompile to JSC bytecode: the bundle is not parsed at start-up. */
  bytecode: boolean;
  cwd: string;
}

export interface CompileResult {
  outfile: string;
  bytes: number;
  ms: number;
}

export function compileArgs(o: CompileOptions, tmpOut: string): string[] {
  return [
    process.execPath, "build", o.entry,
    "--compile", "--minify",
    // ESM chunks: the entry chunk holds only main.ts's static imports, so
    // `--version` and `--help` load a few KB, not the SDK (the rest is
    // embedded as separate chunks loaded by the dynamic imports).
    "--splitting", "--format=esm",
    ...(o.bytecode ? ["--bytecode"] : []),
    ...(o.target ? [`--target=bun-${o.target}`] : []),
    // The binary must not pick up a project's .env or bunfig.toml (bunfig
    // `preload` would run the workspace's code inside bunker).
    "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig",
    "--define", `BUNKER_VERSION=${JSON.stringify(o.stamp.version)}`,
    "--define", `BUNKER_COMMIT=${JSON.stringify(o.stamp.commit)}`,
    "--outfile", tmpOut,
  ];
}

export async function compile(o: CompileOptions): Promise<CompileResult> {
  // bun adds ".exe" itself for Windows targets when the name lacks it.
  const exe = o.outfile.endsWith(".exe") ? ".exe" : "";
  const tmpOut = `${o.outfile.slice(0, o.outfile.length - exe.length)}.tmp-${process.pid}${exe}`;
  mkdirSync(dirname(o.outfile), { recursive: true });
  const t0 = performance.now();
  const proc = Bun.spawn(compileArgs(o, tmpOut), { cwd: o.cwd, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited,
  ]);
  if (code !== 0) {
    rmSync(tmpOut, { force: true });
    throw new Error(`bun build for ${o.target ?? "this machine"} failed (exit ${code}):\n${(err || out).trim()}`);
  }
  renameSync(tmpOut, o.outfile);
  return { outfile: o.outfile, bytes: statSync(o.outfile).size, ms: performance.now() - t0 };
}
