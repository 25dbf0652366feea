// One row of the `bun run bench` table. Each area (grep, patch, sandbox, …)
// exports `bench(): Promise<BenchRow[]>` from scripts/bench/<area>.ts and
// scripts/bench.ts prints them all.
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
