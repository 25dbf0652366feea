// Binary size per release target, and start-up of `bunker --version` beside
// a hello-world binary compiled with the same flags in the same run.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../build/compile.ts";
import { freshBinary, ROOT } from "../build/fresh.ts";
import { RELEASE_TARGETS } from "../build/targets.ts";
import { freshCopies, median, peakRssMiB, type BenchRow } from "./types.ts";

const MiB = 1024 * 1024;
const RUNS = 40;

interface Sample { ms: number }

/** One run of `argv` with an empty environment: wall ms (peak RSS is measured apart: peakRssMiB). */
async function runOnce(argv: string[]): Promise<Sample> {
  const t0 = performance.now();
  const proc = Bun.spawn(argv, { env: { PATH: "" }, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  if ((await proc.exited) !== 0) throw new Error(`${argv.join(" ")} failed`);
  return { ms: performance.now() - t0 };
}

/**
 * Median wall time of each command over RUNS runs, taken in
 * turns (a, b, a, b, …) after one warm-up each, so a noisy moment on the
 * machine falls on both sides of the comparison rather than on one.
 */
async function measureInTurns(commands: string[][]): Promise<Sample[]> {
  const samples: Sample[][] = commands.map(() => []);
  for (const argv of commands) await runOnce(argv);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, argv] of commands.entries()) samples[k]!.push(await runOnce(argv));
  }
  return samples.map((s) => ({ ms: median(s.map((x) => x.ms)) }));
}

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

export async function bench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const { path: bunker, stamp } = await freshBinary();

  for (const file of ["bunker", ...RELEASE_TARGETS.map((t) => t.file)]) {
    const path = join(ROOT, "dist", file);
    if (existsSync(path)) rows.push({ name: `size dist/${file}`, value: round(statSync(path).size / MiB), unit: "MiB" });
  }

  const dir = mkdtempSync(join(tmpdir(), "bunker-bench-hello-"));
  try {
    writeFileSync(join(dir, "hello.ts"), `console.log("hello");\n`);
    const hello = join(dir, "hello");
    await compile({ entry: join(dir, "hello.ts"), outfile: hello, stamp, bytecode: true, cwd: dir });
    rows.push({ name: "size hello-world binary (same flags)", value: round(statSync(hello).size / MiB), unit: "MiB" });

    // Both as copies written at the same moment (freshCopies: a binary's start depends on its file's age in the page cache).
    const copies = freshCopies([hello, bunker]);
    const [helloCopy, bunkerCopy] = copies.paths as [string, string];
    const [h, b] = (await measureInTurns([[helloCopy], [bunkerCopy, "--version"]]).finally(() => copies.remove())) as [Sample, Sample];
    const ratio = b.ms / h.ms;
    rows.push(
      { name: "hello-world binary: wall", value: round(h.ms, 2), unit: "ms" },
      { name: "bunker --version: wall", value: round(b.ms, 2), unit: "ms", target: `≤ 1.5x hello (${round(1.5 * h.ms, 2)} ms)`, ok: ratio <= 1.5 },
      { name: "bunker --version / hello-world: wall", value: round(ratio, 2), unit: "x", target: "≤ 1.5x", ok: ratio <= 1.5 },
      { name: "hello-world binary: peak RSS", value: round(await peakRssMiB([hello], { env: { PATH: "" } })), unit: "MiB" },
      { name: "bunker --version: peak RSS", value: round(await peakRssMiB([bunker, "--version"], { env: { PATH: "" } })), unit: "MiB" },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.main) console.table(await bench());
