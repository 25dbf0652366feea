// Smoke tests run on each freshly built binary this machine can execute:
// `--version`, and one headless turn against a one-reply scripted Messages
// API on 127.0.0.1. Both run from an empty temp dir with a scrubbed
// environment and an empty PATH, so nothing of the build tree can help.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Stamp } from "./stamp.ts";

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Run `argv` with exactly `env` (no inherited variables), stdin closed, killed after `timeoutMs`. */
export async function runIsolated(
  argv: string[], opts: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<RunResult> {
  const t0 = performance.now();
  const proc = Bun.spawn(argv, { cwd: opts.cwd, env: opts.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), opts.timeoutMs ?? 15_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited,
  ]);
  clearTimeout(timer);
  return { code: proc.signalCode ? null : code, stdout, stderr, ms: performance.now() - t0 };
}

function describe(r: RunResult): string {
  return `exit ${r.code ?? "killed"}\nstdout: ${r.stdout.trim() || "(empty)"}\nstderr: ${r.stderr.trim() || "(empty)"}`;
}

/** Runs `fn` in an empty workspace with a home of its own beside it (bunker refuses a home directory as its workspace). */
async function inEmptyDir<T>(fn: (dir: string, home: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "bunker-smoke-"));
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  mkdirSync(ws);
  mkdirSync(home);
  try {
    return await fn(ws, home);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `bunker --version` exits 0 and prints the embedded version and commit. */
export async function smokeVersion(bin: string, stamp: Stamp): Promise<void> {
  const r = await inEmptyDir((dir, home) => runIsolated([bin, "--version"], { cwd: dir, env: { PATH: "", HOME: home } }));
  if (r.code !== 0 || !r.stdout.includes(stamp.version) || !r.stdout.includes(stamp.commit)) {
    throw new Error(`${bin} --version should print ${stamp.version} and ${stamp.commit}; got ${describe(r)}`);
  }
}

export const SMOKE_ANSWER = "Smoke test answer from the scripted server.";

/** The SSE events of one streamed assistant message holding `text`. */
export function textMessageEvents(text: string, model: string): string {
  const events: [string, unknown][] = [
    ["message_start", { type: "message_start", message: {
      id: "msg_smoke", type: "message", role: "assistant", model, content: [],
      stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } }],
    ["message_stop", { type: "message_stop" }],
  ];
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

/** `bunker -p` against a scripted server answers on stdout and exits 0. */
export async function smokeHeadlessTurn(bin: string): Promise<void> {
  const prompts: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/messages") return new Response("not found", { status: 404 });
      const body = (await req.json()) as { model?: string; stream?: boolean; messages?: unknown };
      prompts.push(JSON.stringify(body.messages ?? null));
      const model = body.model ?? "claude-smoke";
      if (body.stream === false) {
        return Response.json({
          id: "msg_smoke", type: "message", role: "assistant", model,
          content: [{ type: "text", text: SMOKE_ANSWER }], stop_reason: "end_turn", stop_sequence: null,
          usage: { input_tokens: 12, output_tokens: 9 },
        });
      }
      return new Response(textMessageEvents(SMOKE_ANSWER, model), {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
      });
    },
  });
  try {
    const r = await inEmptyDir((dir, home) => runIsolated([bin, "-p", "say the smoke words"], {
      cwd: dir,
      env: { PATH: "", HOME: home, ANTHROPIC_API_KEY: "sk-smoke-test", ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.port}` },
      timeoutMs: 20_000,
    }));
    if (r.code !== 0 || !r.stdout.includes(SMOKE_ANSWER)) {
      throw new Error(`${bin} -p against the scripted server should print its answer; got ${describe(r)}`);
    }
    if (!prompts.some((p) => p.includes("say the smoke words"))) {
      throw new Error(`${bin} -p answered without sending the prompt to the scripted server`);
    }
  } finally {
    server.stop(true);
  }
}
