// One streamed Messages API call: the request over fetch, the SSE events
// decoded by the SDK's own reader (@anthropic-ai/sdk/core/streaming: 10 KB),
// and the assembled Message, in the SDK's types. The SDK's client is not
// used: loading and constructing it (a credential chain, OpenTelemetry,
// middleware: ~390 KB of code) cost 4.8 + 5.0 ms of a ~28 ms headless turn,
// and each request 1.4 ms more than this (measured in the compiled binary
// against the scripted server; README, Benchmarks). Failures are thrown as
// the classes below, which model.ts turns into words and retry decisions.
import { Stream } from "@anthropic-ai/sdk/core/streaming";
import type { ContentBlock, Message, RawMessageStreamEvent, Usage } from "@anthropic-ai/sdk/resources/messages";
import { version } from "../build-info.ts";

/** The API answered with an error: an HTTP status, or an `error` event in the stream (status undefined). */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number | undefined,
    /** The API's error type (`overloaded_error`, `invalid_request_error`…), when it said. */
    readonly type: string | undefined,
    /** The API's own message, or the body as it came when it was not the API's error JSON. */
    readonly detail: string,
    readonly headers: Headers | undefined,
  ) {
    super(status === undefined ? detail : `${status} ${detail}`);
  }
}

/** The request never got an answer: refused, reset or unreachable. */
export class ApiConnectionError extends Error {
  override name = "ApiConnectionError";
  constructor(
    message: string,
    /** fetch's error code where it gave one (ECONNREFUSED, ENOTFOUND, ECONNRESET…). */
    readonly code?: string,
    /** The host the request was for. */
    readonly host?: string,
  ) {
    super(message);
  }
}

/** An answer arrived but is not a whole reply: cut short (`cut`), or out of order or not JSON (`garbled`). */
export class StreamError extends Error {
  override name = "StreamError";
  constructor(message: string, readonly kind: "cut" | "garbled" = "cut") {
    super(message);
  }
}

/** A 200 that is not an event stream: not a Messages API at that URL. */
export class NotAStreamError extends Error {
  override name = "NotAStreamError";
  constructor(readonly contentType: string) {
    super(`the server answered with ${contentType}, not an event stream`);
  }
}

export interface StreamHandlers {
  onText?(delta: string): void;
  onThinking?(delta: string): void;
  /** A content block is complete. */
  onBlock?(block: ContentBlock): void;
  /** The response's headers or one of its events arrived (the idle watchdog). */
  onBytes?(): void;
  /** The request's size as sent, in characters of JSON (--verbose shows it). */
  onRequest?(size: number): void;
  /** The reply began: its usage so far (the input is billed from here, even if the reply is then interrupted). */
  onStart?(usage: Message["usage"]): void;
  /** Characters of output arrived (text, thinking or a tool call's input): what the output count is estimated from. */
  onOutput?(chars: number): void;
}

export interface StreamRequest {
  apiKey: string;
  baseURL?: string;
  /** The request body, without `stream` (added here). */
  body: object;
  signal: AbortSignal;
}

type Building = ContentBlock & { partialJson?: string };

const DEFAULT_BASE_URL = "https://api.anthropic.com";
const ANTHROPIC_VERSION = "2023-06-01";

/** Sends one streamed request and assembles the reply. Throws the errors above, or the abort. */
export async function streamMessage(req: StreamRequest, h: StreamHandlers = {}): Promise<Message> {
  // As the SDK joins them: a base URL with a path keeps it (a proxy at http://host/anthropic).
  const url = `${withoutTrailingSlashes(req.baseURL ?? DEFAULT_BASE_URL)}/v1/messages`;
  // Serialized once: the request is the largest thing a turn builds.
  const body = JSON.stringify({ ...req.body, stream: true });
  h.onRequest?.(body.length);
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        "x-api-key": req.apiKey,
        "anthropic-version": ANTHROPIC_VERSION,
        "user-agent": `bunker/${version}`,
      },
      body,
      signal: req.signal,
    });
  } catch (err) {
    if (req.signal.aborted) throw err;
    // fetch's own words: "ECONNREFUSED: Unable to connect…" (model.ts tells a refused loopback URL by them).
    const code = (err as { code?: unknown }).code;
    throw new ApiConnectionError((err as Error).message || "the connection failed", typeof code === "string" ? code : undefined, new URL(url).hostname);
  }
  h.onBytes?.();
  if (!res.ok) throw await statusError(res, req.signal);
  const contentType = res.headers.get("content-type") ?? "no content-type";
  if (!contentType.includes("text/event-stream")) {
    // Its body says what it is: the API's error JSON (some proxies answer so) is that error;
    // anything else is not a Messages API.
    const text = await bodyText(res, req.signal);
    const apiError = parseErrorBody(text);
    if (apiError) throw new ApiError(undefined, apiError.type, apiError.message ?? text, res.headers);
    throw new NotAStreamError(contentType);
  }
  return assemble(readEvents(res, req.signal, h.onBytes), h);
}

/** `http://host/path/` without its closing slashes (a loop: no regular expression on a turn's path, see jit.ts). */
function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === "/") end--;
  return url.slice(0, end);
}

/** An HTTP error status: the API's own type and message, or the body as it came (a proxy's HTML page). */
async function statusError(res: Response, signal: AbortSignal): Promise<ApiError> {
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    if (signal.aborted) throw err;
    // The status is the answer; a body cut short only loses its words.
    text = (err as Error).message;
  }
  const apiError = parseErrorBody(text);
  const detail = apiError?.message ?? (text.trim() || "the body was empty");
  return new ApiError(res.status, apiError?.type, detail, res.headers);
}

async function bodyText(res: Response, signal: AbortSignal): Promise<string> {
  try {
    return await res.text();
  } catch (err) {
    if (signal.aborted) throw err;
    throw new StreamError(`the connection was cut mid-reply (${(err as Error).message})`);
  }
}

/** The API's error JSON, `{"type":"error","error":{"type":…,"message":…}}`, or null. */
function parseErrorBody(text: string): { type?: string; message?: string } | null {
  try {
    const body = JSON.parse(text) as { type?: string; error?: { type?: unknown; message?: unknown } };
    if (body?.type !== "error" || !body.error) return null;
    const { type, message } = body.error;
    return { type: typeof type === "string" ? type : undefined, message: typeof message === "string" ? message : undefined };
  } catch {
    return null;
  }
}

/** The stream's events, decoded by the SDK's SSE reader; each one, pings included, is the idle watchdog's pulse. */
async function* readEvents(res: Response, signal: AbortSignal, onBytes?: () => void): AsyncGenerator<RawMessageStreamEvent> {
  if (!res.body) throw new StreamError("the stream ended before the reply was complete");
  try {
    // Leaving this loop early (an error event, a garbled event, or assemble giving up) cancels the body: the connection closes.
    for await (const sse of Stream.rawEvents(res)) {
      // Each event that arrives, pings included, tells the idle watchdog the stream is alive (a stream
      // transform to hear each chunk cost more than the rest of decoding a reply).
      onBytes?.();
      if (sse.event === "error") {
        const apiError = parseErrorBody(sse.data);
        throw new ApiError(undefined, apiError?.type, apiError?.message ?? sse.data, res.headers);
      }
      // As the SDK's own stream: pings, events without a name and empty data are not part of the reply.
      if (sse.event === "ping" || sse.event === null || !sse.data) continue;
      let event: RawMessageStreamEvent;
      try {
        event = JSON.parse(sse.data) as RawMessageStreamEvent;
      } catch (err) {
        throw new StreamError((err as Error).message, "garbled");
      }
      yield event;
    }
  } catch (err) {
    if (signal.aborted || err instanceof ApiError || err instanceof StreamError) throw err;
    throw new StreamError(`the connection was cut mid-reply (${(err as Error).message})`);
  }
  signal.throwIfAborted();
}

async function assemble(events: AsyncIterable<RawMessageStreamEvent>, h: StreamHandlers): Promise<Message> {
  let message: Message | undefined;
  const blocks: Building[] = [];
  let stopped = false;
  let brokenInput: { index: number; message: string } | undefined;
  for await (const e of events) {
    switch (e.type) {
      case "message_start":
        message = { ...e.message, content: [] };
        h.onStart?.({ ...e.message.usage });
        break;
      case "content_block_start":
        blocks[e.index] = structuredClone(e.content_block) as Building;
        if (e.content_block.type === "tool_use" || e.content_block.type === "server_tool_use") blocks[e.index]!.partialJson = "";
        break;
      case "content_block_delta": {
        const b = blocks[e.index];
        if (!b || !message) throw new StreamError(`a delta arrived for block ${e.index} before the block started`, "garbled");
        const d = e.delta;
        if (d.type === "text_delta" && b.type === "text") {
          b.text += d.text;
          h.onOutput?.(d.text.length);
          h.onText?.(d.text);
        } else if (d.type === "input_json_delta") {
          b.partialJson = (b.partialJson ?? "") + d.partial_json;
          h.onOutput?.(d.partial_json.length);
        } else if (d.type === "thinking_delta" && b.type === "thinking") {
          b.thinking += d.thinking;
          h.onOutput?.(d.thinking.length);
          h.onThinking?.(d.thinking);
        } else if (d.type === "signature_delta" && b.type === "thinking") b.signature = d.signature;
        else if (d.type === "citations_delta" && b.type === "text") b.citations = [...(b.citations ?? []), d.citation];
        break;
      }
      case "content_block_stop": {
        const b = blocks[e.index];
        if (!b) throw new StreamError(`block ${e.index} stopped before it started`, "garbled");
        if (b.partialJson !== undefined) {
          try {
            (b as { input: unknown }).input = b.partialJson === "" ? {} : JSON.parse(b.partialJson);
          } catch (err) {
            // A call cut off by max_tokens is cut mid-JSON: judged when the stop_reason is known.
            (b as { input: unknown }).input = {};
            brokenInput ??= { index: e.index, message: (err as Error).message };
          }
          delete b.partialJson;
        }
        h.onBlock?.(b);
        break;
      }
      case "message_delta":
        if (!message) throw new StreamError("message_delta before message_start", "garbled");
        message.stop_reason = e.delta.stop_reason;
        message.stop_sequence = e.delta.stop_sequence;
        mergeUsage(message.usage, e.usage);
        break;
      case "message_stop":
        stopped = true;
        break;
      default:
        break; // events this version does not know (pings and error events never get here)
    }
  }
  // message_stop without a message_delta (or no message_stop at all): the reply's end never came.
  if (!message || !stopped || message.stop_reason === null) throw new StreamError("the stream ended before the reply was complete");
  // Only the last block of a reply cut by the output limit may be cut short (the loop drops it).
  const cutByLimit = message.stop_reason === "max_tokens" || message.stop_reason === "model_context_window_exceeded";
  if (brokenInput && !(cutByLimit && brokenInput.index === blocks.length - 1)) throw new StreamError(brokenInput.message, "garbled");
  // A loop, not .filter: see jit.ts.
  const content: ContentBlock[] = [];
  for (const b of blocks) if (b !== undefined) content.push(b);
  message.content = content;
  return message;
}

function mergeUsage(into: Usage, delta: Partial<Record<keyof Usage, unknown>>): void {
  for (const [k, v] of Object.entries(delta)) if (v !== null && v !== undefined) (into as unknown as Record<string, unknown>)[k] = v;
}
