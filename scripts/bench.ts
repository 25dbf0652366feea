// `bun run bench`: every area's measurements in one table (Markdown, for the
// docs/benchmarks.md). Areas live in scripts/bench/<area>.ts and export bench().
import type { BenchRow } from "./bench/types.ts";

const AREAS = ["binary", "agent", "mcp", "grep", "diff", "patch", "sandbox", "session", "ui", "checkpoints", "kill", "net"];

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const rows: BenchRow[] = [];
  for (const area of AREAS) {
    if (only.length > 0 && !only.includes(area)) continue;
    const file = new URL(`./bench/${area}.ts`, import.meta.url).pathname;
    if (!(await Bun.file(file).exists())) continue;
    process.stderr.write(`bench: ${area}…\n`);
    try {
      const mod = (await import(file)) as { bench: () => Promise<BenchRow[]> };
      rows.push(...(await mod.bench()));
    } catch (err) {
      rows.push({ name: `${area}: FAILED ${(err as Error).message}`, value: NaN, unit: "ms" });
    }
  }
  console.log("| measurement | value | target | met |\n|---|---|---|---|");
  for (const r of rows) {
    const met = r.ok === undefined ? "" : r.ok ? "yes" : "**no**";
    console.log(`| ${r.name} | ${r.value} ${r.unit} | ${r.target ?? ""} | ${met} |`);
  }
}

await main();
