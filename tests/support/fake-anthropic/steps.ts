// The script language of the fake Anthropic server: what one request gets
// back. A script is a list of steps, consumed one per valid request.
import type { MessageCreateParamsBase, StopReason } from "@anthropic-ai/sdk/resources/messages";

/** A content block the fake model "generates". */
export type BlockSpec = TextSpec | ToolUseSpec | ThinkingSpec;

export interface TextSpec {
  type: "text";
  text: string;
}

export interface ToolUseSpec {
  type: "tool_use";
  name: string;
  input: Record<string, unknown>;
  /** Generated (`toolu_fake_<request>_<block>`) when omitted. */
  id?: string;
  /**
   * Sent as the input_json_delta text instead of JSON.stringify(input), e.g. a
   * truncated `{"path": "src/` to mimic a tool call cut off by max_tokens.
   */
  rawJson?: string;
}

export interface ThinkingSpec {
  type: "thinking";
  thinking: string;
}

export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** Timing and fault knobs shared by replies and errors. */
interface Timing {
  /** Wait this long before the response headers (the first byte). */
  delayMs?: number;
  /** Keep serving this step forever instead of consuming it (benchmarks). */
  repeat?: boolean;
}

/** A successful model response, streamed as SSE or returned as JSON. */
export interface ReplyStep extends Timing {
  content: BlockSpec[];
  stop_reason: StopReason;
  usage?: Usage;
  /** Wait this long before each SSE event. */
  eventDelayMs?: number;
  /** Characters per text/thinking/partial-JSON delta (default: ~3 chunks, at most 16 chars each). */
  chunkSize?: number;
  /**
   * Reset the connection after this many SSE events (0 = before any byte, so
   * the client sees a connection error, not a response). Events are counted
   * from 1: message_start, ping, then content_block_start/delta/stop...
   * For a non-streaming request any value resets before the response.
   */
  dropAfterEvents?: number;
  /**
   * With dropAfterEvents: reset only once this says the client has what was sent (say, its text is on screen), or
   * after 5 s. A fixed pause cannot promise the events left the server before the reset on a loaded machine.
   * In-process scripts only (a function).
   */
  dropWhen?: () => boolean;
  /** Send this many SSE events, then go silent with the connection open (a stalled stream). */
  stallAfterEvents?: number;
  /** Send this many SSE events, then end the stream cleanly, mid-message (a proxy that closed early). */
  endAfterEvents?: number;
  /** Send an SSE `event: error` (as the real API does when overloaded mid-stream) after this many events. */
  streamError?: { afterEvents: number; type?: string; message?: string };
}

/** Any body at all, for servers that are not the Messages API (a proxy's HTML page, garbage SSE). */
export interface RawStep extends Timing {
  raw: string;
  /** Default 200. */
  status?: number;
  /** Default text/event-stream. */
  contentType?: string;
}

/** A connection reset with no reply content to speak of. */
export interface DropStep extends Timing {
  dropAfterEvents: number;
  /** As ReplyStep's. */
  dropWhen?: () => boolean;
  content?: undefined;
}

/** An HTTP error response. `body` defaults to the API's error JSON for the status. */
export interface ErrorStep extends Timing {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What the server knows about a request when a function step runs. */
export interface RecordedRequest {
  /** 0-based arrival order, invalid requests included. */
  index: number;
  method: string;
  /** Path and query, e.g. `/v1/messages`. */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The parsed JSON body; `{}` when it was not JSON (see `error`). */
  body: MessageCreateParamsBase;
  /** Byte length of the raw request body as received. */
  bytes: number;
  /** The HTTP status the server answered with; 0 when the connection was reset before any response. */
  status: number;
  /** Why the server rejected the request, when it did. */
  error?: string;
}

export type StaticStep = ReplyStep | DropStep | ErrorStep | RawStep;
export type DynamicStep = (request: RecordedRequest) => StaticStep | Promise<StaticStep>;
export type Step = StaticStep | DynamicStep;

// ---- helpers -------------------------------------------------------------

export function text(value: string): TextSpec {
  return { type: "text", text: value };
}

export function toolUse(name: string, input: Record<string, unknown>, id?: string): ToolUseSpec {
  return id === undefined ? { type: "tool_use", name, input } : { type: "tool_use", name, input, id };
}

export function thinking(value: string): ThinkingSpec {
  return { type: "thinking", thinking: value };
}

/**
 * A reply. A string becomes one text block. stop_reason defaults to
 * `tool_use` when a tool_use block is present, else `end_turn`.
 */
export function reply(
  blocks: BlockSpec[] | string,
  stop_reason?: StopReason,
  extra: Omit<ReplyStep, "content" | "stop_reason"> = {},
): ReplyStep {
  const content = typeof blocks === "string" ? [text(blocks)] : blocks;
  const stop = stop_reason ?? (content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
  return { ...extra, content, stop_reason: stop };
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

const ERROR_MESSAGES: Record<string, string> = {
  invalid_request_error: "Invalid request",
  authentication_error: "invalid x-api-key",
  permission_error: "Your API key does not have permission to use the specified resource.",
  not_found_error: "Not found",
  request_too_large: "Request exceeds the maximum allowed number of bytes.",
  rate_limit_error: "Number of request tokens has exceeded your per-minute rate limit",
  api_error: "Internal server error",
  overloaded_error: "Overloaded",
};

export function errorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

export interface ErrorBody {
  type: "error";
  error: { type: string; message: string };
  request_id: string | null;
}

/** The JSON body the real API sends with an error status. */
export function errorBody(type: string, message?: string): ErrorBody {
  return {
    type: "error",
    error: { type, message: message ?? ERROR_MESSAGES[type] ?? type },
    request_id: null,
  };
}

/**
 * An API error. `retryAfterMs` sets `retry-after-ms`, which the SDK obeys
 * (use 1-10 ms in tests; without it the SDK backs off ~0.5 s, 1 s, 2 s...).
 * `retryAfter` sets the standard `retry-after` header, in seconds.
 */
export function apiError(
  status: number,
  opts: { message?: string; type?: string; retryAfterMs?: number; retryAfter?: number; headers?: Record<string, string>; delayMs?: number } = {},
): ErrorStep {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.retryAfterMs !== undefined) headers["retry-after-ms"] = String(opts.retryAfterMs);
  if (opts.retryAfter !== undefined) headers["retry-after"] = String(opts.retryAfter);
  const step: ErrorStep = { status, body: errorBody(opts.type ?? errorType(status), opts.message), headers };
  if (opts.delayMs !== undefined) step.delayMs = opts.delayMs;
  return step;
}

/** 529 overloaded_error, the API's "try again shortly". */
/** A body that is not what the Messages API sends. */
export function raw(body: string, opts: { status?: number; contentType?: string } = {}): RawStep {
  return { raw: body, ...opts };
}

export function overloaded(opts: { retryAfterMs?: number } = {}): ErrorStep {
  return apiError(529, opts);
}

/** Reset the connection after `afterEvents` SSE events (0: before any byte). */
export function drop(afterEvents = 0, partial?: ReplyStep): ReplyStep | DropStep {
  return partial ? { ...partial, dropAfterEvents: afterEvents } : { dropAfterEvents: afterEvents };
}

// ---- JSON scripts (standalone mode) ---------------------------------------

export interface JsonScript {
  steps: StaticStep[];
  /** Start again from the first step when the script runs out. */
  loop: boolean;
}

const STOP_REASONS = new Set(["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal", "model_context_window_exceeded"]);

/**
 * Checks a JSON script (an array of steps, or `{ "steps": [...], "loop": true }`)
 * and says exactly which step is wrong and why.
 */
export function parseJsonScript(json: unknown): JsonScript {
  const obj = Array.isArray(json) ? { steps: json, loop: false } : json;
  if (typeof obj !== "object" || obj === null || !Array.isArray((obj as { steps?: unknown }).steps)) {
    throw new Error('script must be an array of steps or an object { "steps": [...], "loop"?: boolean }');
  }
  const { steps, loop } = obj as { steps: unknown[]; loop?: unknown };
  if (loop !== undefined && typeof loop !== "boolean") throw new Error('script "loop" must be true or false');
  steps.forEach((s, i) => checkStep(s, `steps[${i}]`));
  return { steps: steps as StaticStep[], loop: loop === true };
}

function checkStep(s: unknown, where: string): void {
  if (typeof s !== "object" || s === null || Array.isArray(s)) throw new Error(`${where}: a step must be an object`);
  const step = s as Record<string, unknown>;
  for (const k of ["delayMs", "eventDelayMs", "chunkSize", "dropAfterEvents", "stallAfterEvents", "endAfterEvents"]) {
    if (step[k] !== undefined && (typeof step[k] !== "number" || (step[k] as number) < 0)) {
      throw new Error(`${where}.${k}: must be a non-negative number`);
    }
  }
  if (step.repeat !== undefined && typeof step.repeat !== "boolean") throw new Error(`${where}.repeat: must be true or false`);
  if (step.raw !== undefined) {
    if (typeof step.raw !== "string") throw new Error(`${where}.raw: must be a string`);
    return;
  }
  if (step.status !== undefined) {
    if (typeof step.status !== "number" || step.status < 400 || step.status > 599) {
      throw new Error(`${where}.status: must be an HTTP error status (400-599)`);
    }
    return;
  }
  if (step.content === undefined) {
    if (step.dropAfterEvents !== undefined) return;
    throw new Error(`${where}: needs "content" (a reply), "status" (an error) or "dropAfterEvents" (a dropped connection)`);
  }
  if (!Array.isArray(step.content)) throw new Error(`${where}.content: must be an array of blocks`);
  if (typeof step.stop_reason !== "string" || !STOP_REASONS.has(step.stop_reason)) {
    throw new Error(`${where}.stop_reason: must be one of ${[...STOP_REASONS].join(", ")}`);
  }
  step.content.forEach((b: unknown, j: number) => {
    const at = `${where}.content[${j}]`;
    const block = b as Record<string, unknown> | null;
    if (typeof block !== "object" || block === null) throw new Error(`${at}: must be an object`);
    if (block.type === "text" && typeof block.text === "string") return;
    if (block.type === "thinking" && typeof block.thinking === "string") return;
    if (block.type === "tool_use") {
      if (typeof block.name !== "string") throw new Error(`${at}.name: must be a string`);
      if (typeof block.input !== "object" || block.input === null || Array.isArray(block.input)) {
        throw new Error(`${at}.input: must be an object`);
      }
      return;
    }
    throw new Error(`${at}: must be {type:"text",text}, {type:"tool_use",name,input,id?} or {type:"thinking",thinking}`);
  });
}
