// A headless one-shot turn (one tool call, then the answer) through the
// compiled binary against the scripted server, and the size of the first
// request as the server received it: every later request resends it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshBinary } from "../build/fresh.ts";
import { startFakeAnthropic, reply, text, toolUse } from "../../tests/support/fake-anthropic.ts";
import { median, type BenchRow } from "./types.ts";

const RUNS = 15;
const MiB = 1024 * 1024;

export async function bench(): Promise<BenchRow[]> {
  const { path: bunker } = await freshBinary();
  const ws = mkdtempSync(join(tmpdir(), "bunker-bench-ws-"));
  // A home of its own: bunker refuses its home directory as the workspace.
  const home = mkdtempSync(join(tmpdir(), "bunker-bench-home-"));
  writeFileSync(join(ws, "a.txt"), "hello\n");
  const fake = startFakeAnthropic([reply([toolUse("read_file", { path: "a.txt" })]), reply([text("done")])], { loop: true });
  try {
    const walls: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const t0 = performance.now();
      const proc = Bun.spawn([bunker, "-p", "read a.txt"], {
        cwd: ws,
        env: { PATH: "", HOME: home, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: fake.url },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "ignore",
      });
      const out = await new Response(proc.stdout).text();
      if ((await proc.exited) !== 0 || out.trim() !== "done") throw new Error(`headless turn failed: ${out}`);
      if (i === 0) continue; // warm-up
      walls.push(performance.now() - t0);
      const maxRSS = proc.resourceUsage()?.maxRSS;
      if (maxRSS !== undefined) rss.push(maxRSS / MiB);
    }
    const first = fake.requests[0]!;
    const wall = median(walls);
    const mem = median(rss);
    return [
      { name: "headless one-shot turn (2 model calls, 1 tool): wall", value: Number(wall.toFixed(1)), unit: "ms", target: "< 150 ms", ok: wall < 150 },
      { name: "headless one-shot turn: peak RSS", value: Number(mem.toFixed(1)), unit: "MiB", target: "< 80 MiB", ok: mem < 80 },
      { name: "first request (system prompt + tool schemas)", value: Number((first.bytes / 1024).toFixed(2)), unit: "KB", target: "< 8 KB", ok: first.bytes < 8 * 1024 },
    ];
  } finally {
    await fake.stop();
    rmSync(ws, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.main) console.table(await bench());
