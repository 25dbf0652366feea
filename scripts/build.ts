// bun run build       → dist/bunker for this machine
// bun run build:all   → dist/bunker-<os>-<cpu>[-musl][.exe] for every release target + dist/SHA256SUMS
// Flags: --no-bytecode, --no-smoke (skip running the fresh binaries), --entry=FILE, --outdir=DIR.
// Cross-target runtimes are fetched by bun from the npm registry (@oven/bun-<target>)
// and cached in ~/.bun/install/cache.
import { existsSync, mkdirSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { writeChecksums } from "./build/checksums.ts";
import { compile } from "./build/compile.ts";
import { smokeHeadlessTurn, smokeVersion } from "./build/smoke.ts";
import { readStamp } from "./build/stamp.ts";
import { RELEASE_TARGETS, runsOnHost } from "./build/targets.ts";

const ROOT = resolve(import.meta.dir, "..");
const MiB = 1024 * 1024;

interface Job {
  outfile: string;
  target?: string;
  hostRunnable: boolean;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      all: { type: "boolean", default: false },
      "no-bytecode": { type: "boolean", default: false },
      "no-smoke": { type: "boolean", default: false },
      entry: { type: "string", default: "src/main.ts" },
      outdir: { type: "string", default: "dist" },
    },
    strict: true,
  });
  const entry = resolve(ROOT, values.entry);
  if (!existsSync(entry)) {
    console.error(`build: entry ${relative(ROOT, entry)} does not exist`);
    return 2;
  }
  const outdir = resolve(ROOT, values.outdir);
  mkdirSync(outdir, { recursive: true });
  const stamp = readStamp(ROOT);
  const jobs: Job[] = values.all
    ? RELEASE_TARGETS.map((t) => ({ outfile: join(outdir, t.file), target: t.id, hostRunnable: runsOnHost(t) }))
    : [{ outfile: join(outdir, process.platform === "win32" ? "bunker.exe" : "bunker"), hostRunnable: true }];

  console.error(`bunker ${stamp.version} (${stamp.commit})${values["no-bytecode"] ? "" : ", bytecode"}`);
  for (const job of jobs) {
    const built = await compile({
      entry, outfile: job.outfile, stamp, target: job.target, bytecode: !values["no-bytecode"], cwd: ROOT,
    });
    let smoke = "not run on this machine";
    if (values["no-smoke"]) smoke = "smoke skipped";
    else if (job.hostRunnable) {
      await smokeVersion(built.outfile, stamp);
      await smokeHeadlessTurn(built.outfile);
      smoke = "smoke ok (--version, headless turn)";
    }
    const size = (built.bytes / MiB).toFixed(1).padStart(6);
    console.error(`  ${relative(ROOT, built.outfile).padEnd(30)} ${size} MiB  ${(built.ms / 1000).toFixed(1)} s  ${smoke}`);
  }
  if (values.all) {
    await writeChecksums(outdir, jobs.map((j) => basename(j.outfile)));
    console.error(`  ${relative(ROOT, join(outdir, "SHA256SUMS"))}`);
  }
  return 0;
}

if (import.meta.main) {
  try {
    process.exitCode = await main();
  } catch (e) {
    console.error(`build failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  }
}
