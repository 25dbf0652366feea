// A scripted Anthropic Messages API on 127.0.0.1: real HTTP, real SSE, the
// real API's request validation. Every end-to-end test of bunker talks to
// this instead of the network.
//
//   const fake = startFakeAnthropic([reply([toolUse("read_file", { path: "a.ts" })]), reply("done")]);
//   const client = new Anthropic({ apiKey: "test", baseURL: fake.url });
//   ... fake.requests[1].body.messages ...
//   await fake.stop();
//
// Standalone (for the compiled binary, tmux tests, CI, benchmarks):
//   bun tests/support/fake-anthropic.ts --script script.json [--port N] [--loop] [--verbose]
// prints `listening on http://127.0.0.1:PORT`; GET /_fake/requests returns
// the recorded requests as JSON, GET /_fake/remaining the steps left.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { MessageCreateParamsBase } from "@anthropic-ai/sdk/resources/messages";
import { buildMessage, encodeSse, messageEvents, type WireMessage } from "./fake-anthropic/reply.ts";
import { errorBody, errorType, parseJsonScript, type RecordedRequest, type ReplyStep, type StaticStep, type Step } from "./fake-anthropic/steps.ts";
import { checkBody, checkHeaders, checkThinkingKept, type Rejection, type ServedThinking } from "./fake-anthropic/validate.ts";

export * from "./fake-anthropic/steps.ts";
export type { WireMessage } from "./fake-anthropic/reply.ts";

export interface FakeAnthropicOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Start the script again from the top when it runs out. */
  loop?: boolean;
  /** When set, any other key is answered 401. */
  apiKey?: string;
  /** Called with one line per rejected request, and with `verbose` one per request. */
  log?: (line: string) => void;
  verbose?: boolean;
}

/** A request as recorded, plus the message the server answered it with. */
export interface ServedRequest extends RecordedRequest {
  /** The reply sent (streamed or not), when the step was a reply. */
  reply?: WireMessage;
  /** When the client dropped a stream before its end (Date.now()): how fast an interruption reached the wire. */
  cancelledAt?: number;
}

export interface FakeAnthropic {
  /** Base URL for the SDK (`baseURL`) or ANTHROPIC_BASE_URL, e.g. http://127.0.0.1:43123 */
  url: string;
  port: number;
  /** Every request received, in order, invalid ones included. */
  requests: ServedRequest[];
  /** Steps not yet consumed. */
  remaining(): number;
  /** Append steps to the script. */
  push(...steps: Step[]): void;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const JSON_HEADERS = { "content-type": "application/json" };

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

/** A response whose connection is reset before any byte of it is sent. */
function resetResponse(): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      // error(undefined) resets the socket without Bun logging an "error".
      c.error(undefined);
    },
  });
  return new Response(stream);
}

/** How long to let written events reach the socket before a reset. */
const FLUSH_MS = 5;

export function startFakeAnthropic(steps: Step[], opts: FakeAnthropicOptions = {}): FakeAnthropic {
  const script = [...steps];
  let queue = [...steps];
  const requests: ServedRequest[] = [];
  /** Thinking blocks served beside tool calls, by tool_use id: they must come back unmodified. */
  const servedThinking = new Map<string, ServedThinking[]>();
  const log = opts.log ?? (() => {});

  function nextStep(): Step | undefined {
    if (queue.length === 0 && opts.loop && script.length > 0) queue = [...script];
    const step = queue[0];
    if (step !== undefined && !(typeof step === "object" && step.repeat)) queue.shift();
    return step;
  }

  function reject(rec: ServedRequest, r: Rejection, headers: Record<string, string> = {}): Response {
    rec.status = r.status;
    rec.error = r.message;
    log(`fake-anthropic: request #${rec.index} rejected ${r.status} ${r.type}: ${r.message}`);
    return jsonResponse(r.status, errorBody(r.type, r.message), { "request-id": `req_fake_${rec.index}`, ...headers });
  }

  async function handle(req: Request, url: URL, raw: Uint8Array, rec: ServedRequest): Promise<Response> {
    if (req.method !== "POST" || url.pathname !== "/v1/messages") {
      return reject(rec, { status: 404, type: "not_found_error", message: `Not found: ${req.method} ${url.pathname} (the fake serves POST /v1/messages)` });
    }
    const headerProblem = checkHeaders(rec.headers, opts.apiKey);
    if (headerProblem) return reject(rec, headerProblem);
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder().decode(raw));
    } catch (e) {
      return reject(rec, { status: 400, type: "invalid_request_error", message: `request body is not valid JSON: ${(e as Error).message}` });
    }
    rec.body = body as MessageCreateParamsBase;
    const bodyProblem = checkBody(body) ?? checkThinkingKept(rec.body.messages, servedThinking);
    if (bodyProblem) return reject(rec, bodyProblem);

    const scripted = nextStep();
    if (scripted === undefined) {
      // x-should-retry: false so the SDK fails at once instead of retrying into the same wall.
      return reject(
        rec,
        {
          status: 500,
          type: "api_error",
          message: `fake-anthropic: the script has no step left for request #${rec.index} (${script.length} step(s) were scripted). Add a step, or find out why the client sent an extra request.`,
        },
        { "x-should-retry": "false" },
      );
    }
    const step: StaticStep = typeof scripted === "function" ? await scripted(rec) : scripted;
    if (step.delayMs) await Bun.sleep(step.delayMs);
    const requestId = { "request-id": `req_fake_${rec.index}` };

    if ("raw" in step) {
      rec.status = step.status ?? 200;
      rec.error = `raw body (${step.contentType ?? "text/event-stream"})`;
      return new Response(step.raw, { status: rec.status, headers: { "content-type": step.contentType ?? "text/event-stream", ...requestId } });
    }
    if ("status" in step) {
      rec.status = step.status;
      const b = step.body ?? errorBody(errorType(step.status));
      rec.error = `scripted ${step.status}: ${typeof b === "string" ? b : JSON.stringify(b)}`;
      return jsonResponse(step.status, b, { ...requestId, ...step.headers });
    }
    if (step.content === undefined || (step.dropAfterEvents === 0) || (rec.body.stream !== true && step.dropAfterEvents !== undefined)) {
      // Nothing was answered: status stays 0.
      rec.error = "connection reset before the response";
      return resetResponse();
    }
    rec.status = 200;
    const message = buildMessage(step, { requestIndex: rec.index, model: rec.body.model, requestBytes: rec.bytes });
    rec.reply = message;
    rememberThinking(message, servedThinking);
    if (rec.body.stream !== true) return jsonResponse(200, message, requestId);
    return streamResponse(message, step, rec, requestId);
  }

  async function fetch(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (req.method === "GET" && url.pathname === "/_fake/requests") return jsonResponse(200, requests);
    if (req.method === "GET" && url.pathname === "/_fake/remaining") return jsonResponse(200, { remaining: queue.length });

    const raw = new Uint8Array(await req.arrayBuffer());
    const rec: ServedRequest = {
      index: requests.length,
      method: req.method,
      path: url.pathname + url.search,
      headers: Object.fromEntries(req.headers),
      body: {} as MessageCreateParamsBase,
      bytes: raw.byteLength,
      status: 0,
    };
    requests.push(rec);
    const res = await handle(req, url, raw, rec);
    if (opts.verbose) log(`fake-anthropic: #${rec.index} ${rec.method} ${rec.path} ${rec.bytes} bytes -> ${rec.status}${rec.error ? ` (${rec.error})` : ""}`);
    return res;
  }

  const server = Bun.serve({ hostname: "127.0.0.1", port: opts.port ?? 0, idleTimeout: 120, fetch });
  const url = `http://127.0.0.1:${server.port}`;
  const stop = async () => {
    await server.stop(true);
  };
  return {
    url,
    port: server.port as number,
    requests,
    remaining: () => queue.length,
    push: (...more) => {
      script.push(...more);
      queue.push(...more);
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

function rememberThinking(message: WireMessage, into: Map<string, ServedThinking[]>): void {
  const leading: ServedThinking[] = [];
  for (const b of message.content) {
    if (b.type !== "thinking") break;
    leading.push({ thinking: b.thinking, signature: b.signature });
  }
  if (leading.length === 0) return;
  for (const b of message.content) if (b.type === "tool_use") into.set(b.id, leading);
}

function streamResponse(message: WireMessage, step: ReplyStep, rec: ServedRequest, headers: Record<string, string>): Response {
  const events = messageEvents(message, step).map(encodeSse);
  const sseHeaders = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...headers };
  const cut = step.dropAfterEvents;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(c) {
      try {
        for (const [i, ev] of events.entries()) {
          if (step.streamError && i === step.streamError.afterEvents) {
            const { type = "overloaded_error", message: msg } = step.streamError;
            rec.error = `stream error ${type} after ${i} events`;
            c.enqueue(encodeSse({ type: "error", error: errorBody(type, msg).error }));
            c.close();
            return;
          }
          if (cut !== undefined && i === cut) {
            rec.error = `connection reset after ${cut} events`;
            // Let the sent events reach the socket before resetting it: first the server takes every queued
            // event (on a loaded machine that took longer than a fixed pause), then a moment for the write.
            for (const deadline = Date.now() + 2_000; (c.desiredSize ?? 1) < 1 && Date.now() < deadline; ) await Bun.sleep(1);
            await Bun.sleep(FLUSH_MS);
            for (const deadline = Date.now() + 5_000; step.dropWhen && !step.dropWhen() && Date.now() < deadline; ) await Bun.sleep(5);
            c.error(undefined);
            return;
          }
          if (step.endAfterEvents !== undefined && i === step.endAfterEvents) {
            rec.error = `stream ended cleanly after ${i} events`;
            c.close();
            return;
          }
          if (step.stallAfterEvents !== undefined && i === step.stallAfterEvents) {
            rec.error = `stalled after ${i} events`;
            while (!cancelled) await Bun.sleep(20);
            return;
          }
          if (step.eventDelayMs) await Bun.sleep(step.eventDelayMs);
          if (cancelled) return;
          c.enqueue(ev);
        }
        c.close();
      } catch {
        // The client went away mid-stream; nothing to do.
      }
    },
    cancel() {
      cancelled = true;
      rec.cancelledAt = Date.now();
    },
  });
  return new Response(stream, { headers: sseHeaders });
}

// ---- standalone mode -------------------------------------------------------

const USAGE = `usage: bun tests/support/fake-anthropic.ts --script script.json [--port N] [--loop] [--api-key KEY] [--verbose]

A scripted Anthropic Messages API on 127.0.0.1, for running bunker (or any client) against it:
  ANTHROPIC_BASE_URL=http://127.0.0.1:PORT ANTHROPIC_API_KEY=test bunker -p "hi"

  --script FILE   the steps, in order: a JSON array, or { "steps": [...], "loop": true }. A step is a reply
                  ({ "content": [blocks], "stop_reason": "end_turn" or "tool_use"…, "delayMs"?, "eventDelayMs"?,
                  "chunkSize"?, "repeat"?: true }), an error ({ "status": 529, "headers"?: { "retry-after-ms": "10" } }),
                  a dropped connection ({ "dropAfterEvents": 0 }) or any body ({ "raw": "..." }).
                  Blocks: { "type": "text", "text": "..." }, { "type": "tool_use", "name": "read_file", "input": {…} },
                  { "type": "thinking", "thinking": "..." }
  --port N        the port to listen on (default 0: a free one)
  --loop          start the script again from the top when it runs out
  --api-key KEY   answer any other key with 401
  --verbose       log every request on stderr
  -h, --help      this text

Prints "listening on http://127.0.0.1:PORT". GET /_fake/requests returns the requests received, as JSON;
GET /_fake/remaining the steps left. SIGTERM or Ctrl+C stops it.
`;

function main(): void {
  const fail = (msg: string): never => {
    process.stderr.write(`fake-anthropic: ${msg}\n`);
    process.exit(2);
  };
  let values: { script?: string; port: string; loop: boolean; "api-key"?: string; verbose: boolean; help: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        script: { type: "string" },
        port: { type: "string", default: "0" },
        loop: { type: "boolean", default: false },
        "api-key": { type: "string" },
        verbose: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
    }));
  } catch (e) {
    // An unknown option or a missing value: said in one line with the usage, not as a stack trace (N11-20).
    return fail(`${(e as Error).message}\n${USAGE.split("\n")[0]}`);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  if (!values.script) fail(USAGE.split("\n")[0]!);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, got ${values.port}`);
  let parsed: ReturnType<typeof parseJsonScript>;
  try {
    parsed = parseJsonScript(JSON.parse(readFileSync(values.script!, "utf8")));
  } catch (e) {
    return fail(`${values.script}: ${(e as Error).message}`);
  }
  const fake = startFakeAnthropic(parsed.steps, {
    port,
    loop: values.loop || parsed.loop,
    ...(values["api-key"] ? { apiKey: values["api-key"] } : {}),
    verbose: values.verbose,
    log: (line) => process.stderr.write(line + "\n"),
  });
  process.stdout.write(`listening on ${fake.url}\n`);
  const quit = () => void fake.stop().then(() => process.exit(0));
  process.on("SIGTERM", quit);
  process.on("SIGINT", quit);
}

if (import.meta.main) main();
