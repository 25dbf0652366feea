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
