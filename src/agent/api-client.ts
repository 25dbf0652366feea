// One streamed Messages API call over fetch: the request, the SSE events as
// they come, and the assembled Message. This is all bunker needs of the
// SDK at run time, and loading and starting the SDK cost more than the rest
// of a headless turn (scripts/bench: agent); its types are still used.
// Failures are thrown as the classes below, which model.ts turns into words
// and retry decisions.
import type { ContentBlock, Message, RawMessageStreamEvent, Usage } from "@anthropic-ai/sdk/resources/messages";

export const ANTHROPIC_VERSION = "2023-06-01";
const DEFAULT_BASE_URL = "https://api.anthropic.com";

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
}

/** An answer arrived but is not a whole reply: cut short (`cut`), or out of order or not JSON (`garbled`). */
export class StreamError extends Error {
  override name = "StreamError";
  constructor(message: string, readonly kind: "cut" | "garbled" = "cut") {
    super(message);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new StreamError((err as Error).message, "garbled");
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
  /** Any bytes of the response arrived (the idle watchdog). */
  onBytes?(): void;
}

export interface StreamRequest {
  apiKey: string;
  baseURL?: string;
  /** The request body, without `stream` (added here). */
  body: object;
  signal: AbortSignal;
}

type Building = ContentBlock & { partialJson?: string };

/** Sends one streamed request and assembles the reply. Throws the errors above, or the abort. */
export async function streamMessage(req: StreamRequest, h: StreamHandlers = {}): Promise<Message> {
  const url = `${(req.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, "")}/v1/messages`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-api-key": req.apiKey, "anthropic-version": ANTHROPIC_VERSION },
      body: JSON.stringify({ ...req.body, stream: true }),
      signal: req.signal,
    });
  } catch (err) {
    if (req.signal.aborted) throw err;
    throw new ApiConnectionError((err as Error).message || "connection failed");
  }
  h.onBytes?.();
  const contentType = res.headers.get("content-type") ?? "no content-type";
  if (!res.ok || !contentType.includes("text/event-stream")) {
    const text = await readText(res, req.signal);
    const apiError = parseErrorBody(text);
    // A 200 carrying the API's error JSON (some proxies do that) is that error.
    if (!res.ok || apiError) throw new ApiError(res.ok ? undefined : res.status, apiError?.type, apiError?.message ?? text, res.headers);
    throw new NotAStreamError(contentType);
  }
  if (!res.body) throw new StreamError("the stream ended before the reply was complete");
  return assemble(readEvents(res.body, req.signal, h.onBytes), h);
}

async function readText(res: Response, signal: AbortSignal): Promise<string> {
  try {
    return await res.text();
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ApiConnectionError((err as Error).message);
  }
}

function parseErrorBody(text: string): { type?: string; message?: string } | null {
  try {
    const body = JSON.parse(text) as { type?: string; error?: { type?: string; message?: string } };
    return body?.type === "error" && body.error ? body.error : null;
  } catch {
    return null;
  }
}

/** The SSE events of a body: `event:` and `data:` lines, a blank line ending each. */
async function* readEvents(body: ReadableStream<Uint8Array>, signal: AbortSignal, onBytes?: () => void): AsyncGenerator<{ event: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (signal.aborted) throw err;
        throw new StreamError(`the connection was cut mid-reply (${(err as Error).message})`);
      }
      if (chunk.done) {
        finished = true;
        break;
      }
      onBytes?.();
      buffer += decoder.decode(chunk.value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, "");
        buffer = buffer.slice(nl + 1);
        if (line === "") {
          if (data.length > 0) yield { event, data: data.join("\n") };
          event = "";
          data = [];
        } else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        else if (line.startsWith("event:")) event = line.slice(6).trim();
      }
    }
  } finally {
    // Given up on mid-stream (garbled, an error event): close the connection rather than let the server go on.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  if (data.length > 0) yield { event, data: data.join("\n") };
}

async function assemble(events: AsyncIterable<{ event: string; data: string }>, h: StreamHandlers): Promise<Message> {
  let message: Message | undefined;
  const blocks: Building[] = [];
  let stopped = false;
  let brokenInput: { index: number; message: string } | undefined;
  for await (const { data } of events) {
    const e = parseJson(data) as RawMessageStreamEvent | { type: "ping" } | { type: "error"; error: { type: string; message: string } };
    switch (e.type) {
      case "message_start":
        message = { ...e.message, content: [] };
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
          h.onText?.(d.text);
        } else if (d.type === "input_json_delta") b.partialJson = (b.partialJson ?? "") + d.partial_json;
        else if (d.type === "thinking_delta" && b.type === "thinking") {
          b.thinking += d.thinking;
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
      case "error":
        throw new ApiError(undefined, e.error?.type, e.error?.message ?? "error event", undefined);
      default:
        break; // ping, and events this version does not know
    }
  }
  // message_stop without a message_delta (or no message_stop at all): the reply's end never came.
  if (!message || !stopped || message.stop_reason === null) throw new StreamError("the stream ended before the reply was complete");
  // Only the last block of a reply cut by the output limit may be cut short (the loop drops it).
  const cutByLimit = message.stop_reason === "max_tokens" || message.stop_reason === "model_context_window_exceeded";
  if (brokenInput && !(cutByLimit && brokenInput.index === blocks.length - 1)) throw new StreamError(brokenInput.message, "garbled");
  message.content = blocks.filter((b) => b !== undefined);
  return message;
}

function mergeUsage(into: Usage, delta: Partial<Record<keyof Usage, unknown>>): void {
  for (const [k, v] of Object.entries(delta)) if (v !== null && v !== undefined) (into as unknown as Record<string, unknown>)[k] = v;
}
