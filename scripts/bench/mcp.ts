// MCP start-up through the compiled binary: the time from starting
// `bunker -p` to its first request reaching the scripted server, with no
// MCP servers (today's start-up; the client is not even loaded) and with 3
// sandboxed stdio servers of 40 tools each, in alternate runs. Servers start
// in parallel and may delay the first prompt by at most a second; the first
// request may grow by at most 10 KB however many tools they bring.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshBinary } from "../build/fresh.ts";
import { startFakeAnthropic, reply } from "../../tests/support/fake-anthropic.ts";
import { testServer } from "../../tests/support/mcp.ts";
import { median, type BenchRow } from "./types.ts";

const RUNS = 11;

export async function bench(): Promise<BenchRow[]> {
  const { path: bunker } = await freshBinary();
  const ws = mkdtempSync(join(tmpdir(), "bunker-bench-mcp-ws-"));
  const plainHome = mkdtempSync(join(tmpdir(), "bunker-bench-mcp-home-"));
  const mcpHome = mkdtempSync(join(tmpdir(), "bunker-bench-mcp-home-"));
  mkdirSync(join(mcpHome, ".config", "bunker"), { recursive: true });
  const servers = Object.fromEntries(["s1", "s2", "s3"].map((s) => [s, testServer(["--name", s, "--tools", "40"])]));
  writeFileSync(join(mcpHome, ".config", "bunker", "settings.json"), JSON.stringify({ mcpServers: servers }));

  let started = 0;
  let firstAt = 0;
  const fake = startFakeAnthropic([() => ((firstAt ||= performance.now()), reply("done"))], { loop: true });
  /** Milliseconds from spawn to the first request, and that request's size. */
  const once = async (home: string): Promise<{ ms: number; bytes: number }> => {
    firstAt = 0;
    const before = fake.requests.length;
    started = performance.now();
    const proc = Bun.spawn([bunker, "-p", "hello", "--no-prompt"], {
      cwd: ws, env: { PATH: "", HOME: home, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: fake.url }, stdin: "ignore", stdout: "pipe", stderr: "pipe",
    });
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    if ((await proc.exited) !== 0 || out.trim() !== "done") throw new Error(`bunker failed: ${out}${err}`);
    return { ms: firstAt - started, bytes: fake.requests[before]!.bytes };
  };
  try {
    await once(plainHome);
    await once(mcpHome);
    const plain: { ms: number; bytes: number }[] = [];
    const mcp: { ms: number; bytes: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      plain.push(await once(plainHome));
      mcp.push(await once(mcpHome));
    }
    const p = median(plain.map((x) => x.ms));
    const m = median(mcp.map((x) => x.ms));
    const grew = Math.max(...mcp.map((x) => x.bytes)) - median(plain.map((x) => x.bytes));
    const round = (n: number, d = 1) => Number(n.toFixed(d));
    return [
      { name: "time to first request, no MCP servers", value: round(p), unit: "ms" },
      { name: "time to first request, 3 MCP servers × 40 tools (sandboxed)", value: round(m), unit: "ms", target: `≤ no servers + 1000 ms (${round(p + 1000)} ms)`, ok: m <= p + 1000 },
      { name: "first request growth with 3 MCP servers × 40 tools (largest run)", value: round(grew / 1024, 2), unit: "KB", target: "≤ 10 KB", ok: grew <= 10 * 1024 },
    ];
  } finally {
    await fake.stop();
    for (const d of [ws, plainHome, mcpHome]) rmSync(d, { recursive: true, force: true });
  }
}

if (import.meta.main) console.table(await bench());
