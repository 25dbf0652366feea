// Binary size per release target, and start-up of `bunker --version` beside
// a hello-world binary compiled with the same flags in the same run.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../build/compile.ts";
import { freshBinary, ROOT } from "../build/fresh.ts";
import { RELEASE_TARGETS } from "../build/targets.ts";
import { median, timeMedian, type BenchRow } from "./types.ts";

const MiB = 1024 * 1024;
const RUNS = 20;

/** Median wall time (ms) and median peak RSS (MiB) of running `argv` RUNS times. */
async function measure(argv: string[]): Promise<{ ms: number; rssMiB: number }> {
  const rss: number[] = [];
  const ms = await timeMedian(RUNS, async () => {
    const proc = Bun.spawn(argv, { env: { PATH: "" }, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    if ((await proc.exited) !== 0) throw new Error(`${argv.join(" ")} failed`);
    // Bun reports maxRSS in bytes.
    const maxRSS = proc.resourceUsage()?.maxRSS;
    if (maxRSS !== undefined) rss.push(maxRSS / MiB);
  });
  return { ms, rssMiB: rss.length ? median(rss) : NaN };
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

    const h = await measure([hello]);
    const b = await measure([bunker, "--version"]);
    const ratio = b.ms / h.ms;
    rows.push(
      { name: "hello-world binary: wall", value: round(h.ms, 2), unit: "ms" },
      { name: "bunker --version: wall", value: round(b.ms, 2), unit: "ms", target: `≤ 2x hello (${round(2 * h.ms, 2)} ms)`, ok: ratio <= 2 },
      { name: "bunker --version / hello-world: wall", value: round(ratio, 2), unit: "x", target: "≤ 2x", ok: ratio <= 2 },
      { name: "hello-world binary: peak RSS", value: round(h.rssMiB), unit: "MiB" },
      { name: "bunker --version: peak RSS", value: round(b.rssMiB), unit: "MiB" },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.main) console.table(await bench());
