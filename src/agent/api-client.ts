// One streamed Messages API call through the SDK (@anthropic-ai/sdk): the
// SSE events as they come, and the assembled Message. The SDK is imported on
// the first call, so start-up (--version, --help) never loads it. Its
// failures are translated here into the classes below, which model.ts turns
// into words and retry decisions (retries are ours: the SDK's are off).
import type { Anthropic } from "@anthropic-ai/sdk";
import type { ContentBlock, Message, RawMessageStreamEvent, Usage } from "@anthropic-ai/sdk/resources/messages";

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

type Sdk = typeof import("@anthropic-ai/sdk");
let sdk: Promise<Sdk> | undefined;

/** Sends one streamed request and assembles the reply. Throws the errors above, or the abort. */
export async function streamMessage(req: StreamRequest, h: StreamHandlers = {}): Promise<Message> {
  const { Anthropic } = await (sdk ??= import("@anthropic-ai/sdk"));
  const client = new Anthropic({
    apiKey: req.apiKey,
    authToken: null,
    baseURL: req.baseURL,
    maxRetries: 0,
    timeout: 10 * 60_000,
    // Errors reach the person through model.ts's words, not as SDK dumps on stderr.
    logLevel: "off",
    fetch: (url, init) => countedFetch(url, init, h.onBytes),
  });
  let events: AsyncIterable<RawMessageStreamEvent>;
  try {
    const { data, response } = await client.messages.create({ ...(req.body as Anthropic.MessageCreateParamsNonStreaming), stream: true }, { signal: req.signal }).withResponse();
    const contentType = response.headers.get("content-type") ?? "no content-type";
    if (!contentType.includes("text/event-stream")) {
      // The SDK reads any 200 as a stream. Its body, unread so far, says what it is:
      // the API's error JSON (some proxies answer so) is that error; anything else is not a Messages API.
      const text = await response.text();
      const apiError = parseErrorBody(text);
      if (apiError) throw new ApiError(undefined, apiError.type, apiError.message ?? text, response.headers);
      throw new NotAStreamError(contentType);
    }
    events = data;
  } catch (err) {
    throw translate(err, req.signal, Anthropic);
  }
  return assemble(readEvents(events, req.signal, Anthropic), h);
}

/** fetch, with every chunk of the response body reported: the idle watchdog's pulse. */
async function countedFetch(url: string | URL | Request, init: RequestInit | undefined, onBytes?: () => void): Promise<Response> {
  const res = await fetch(url, init);
  onBytes?.();
  if (!res.body || !onBytes) return res;
  const body = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        onBytes();
        c.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

function parseErrorBody(text: string): { type?: string; message?: string } | null {
  try {
    const body = JSON.parse(text) as { type?: string; error?: { type?: string; message?: string } };
    return body?.type === "error" && body.error ? body.error : null;
  } catch {
    return null;
  }
}

/** The SDK's events, with a failure mid-stream translated. */
async function* readEvents(events: AsyncIterable<RawMessageStreamEvent>, signal: AbortSignal, S: Sdk["Anthropic"]): AsyncGenerator<RawMessageStreamEvent> {
  try {
    yield* events;
  } catch (err) {
    throw translate(err, signal, S);
  }
  // The SDK ends an aborted stream quietly: the abort is not a reply cut short.
  signal.throwIfAborted();
}

/** An SDK failure (or one of its fetch's) as one of the classes above; the abort as it is. */
function translate(err: unknown, signal: AbortSignal, S: Sdk["Anthropic"]): unknown {
  if (signal.aborted || err instanceof ApiError || err instanceof NotAStreamError || err instanceof StreamError) return err;
  // APIConnectionError is an APIError in the SDK: asked first. Its cause is fetch's own words (ECONNREFUSED…).
  if (err instanceof S.APIConnectionError) return new ApiConnectionError((err.cause as Error | undefined)?.message || err.message);
  if (err instanceof S.APIError) {
    // The API's own message; else the body as it came (a proxy's HTML page), after the SDK's "<status> " prefix.
    const detail = err.apiMessage ?? (err.status ? err.message.replace(/^\d+ /, "") : err.message);
    return new ApiError(err.status, err.type ?? undefined, detail, err.headers ?? undefined);
  }
  if (err instanceof SyntaxError) return new StreamError(err.message, "garbled");
  return new StreamError(`the connection was cut mid-reply (${(err as Error).message})`);
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
      default:
        break; // events this version does not know (the SDK drops pings and throws error events)
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
