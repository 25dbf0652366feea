// One row of the `bun run bench` table. Each area (grep, patch, sandbox, …)
// exports `bench(): Promise<BenchRow[]>` from scripts/bench/<area>.ts and
// scripts/bench.ts prints them all.
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
export interface BenchRow {
  /** What was measured, e.g. "grep node_modules (bunker)". */
  name: string;
  /** Median (or the single measurement). */
  value: number;
  unit: "ms" | "MiB" | "MiB/s" | "KB" | "bytes" | "x";
  /** The goal from the issue, in words, e.g. "< 50 ms". */
  target?: string;
  /** Whether the target is met; omitted when there is none. */
  ok?: boolean;
}

/** Median of a list of numbers. */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Run `fn` `n` times after one warm-up and return the median milliseconds. */
export async function timeMedian(n: number, fn: () => unknown | Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

/**
 * Peak RSS (MiB) of `argv`, the median of `n` runs, as the kernel reports it to the parent (wait4's ru_maxrss, read
 * by GNU time). Bun's own `resourceUsage().maxRSS` said 61 MiB for a `bunker --version` that wait4 puts at 25 MiB,
 * so it is not used. NaN when /usr/bin/time is missing.
 */
export async function peakRssMiB(argv: string[], opts: { cwd?: string; env?: Record<string, string> } = {}, n = 3): Promise<number> {
  if (!(await Bun.file("/usr/bin/time").exists())) return NaN;
  const kb: number[] = [];
  for (let i = 0; i < n; i++) {
    const proc = Bun.spawn(["/usr/bin/time", "-f", "%M", ...argv], { ...opts, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    const err = await new Response(proc.stderr).text();
    await proc.exited;
    kb.push(Number(err.trim().split("\n").at(-1)));
  }
  return median(kb) / 1024;
}

/**
 * Copies of `binaries`, made together into one new folder, for a side-by-side comparison. How long a binary takes to
 * start depends on how its file sits in the page cache, not only on what it runs: the same bunker binary took
 * 14.4 ms or 12.5 ms for the same headless turn, as the file written at build time an hour before or as a fresh copy
 * of it (2,020 or 1,880 minor page faults; the reference moved from 8.3 to 7.2 ms the same way). The reference is compiled
 * at bench time and bunker's binary may be older, so each is measured as a copy written at the same moment: what is
 * compared is the work each does, not the age of its file.
 */
export function freshCopies(binaries: string[]): { paths: string[]; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "bunker-bench-bin-"));
  const paths = binaries.map((bin, i) => {
    const copy = join(dir, `${i}-${basename(bin)}`);
    copyFileSync(bin, copy);
    chmodSync(copy, 0o755);
    return copy;
  });
  return { paths, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
