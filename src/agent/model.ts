// The SDK client: one streamed Messages call with our own retry loop (so the
// person sees "retrying in Ns"), prompt caching marks, and usage totals.
import Anthropic from "@anthropic-ai/sdk";
import type { Message, MessageParam, TextBlockParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import { planThinking, type ThinkingLevel, type ThinkingPlan } from "./thinking.ts";
import { addUsage, emptyUsage, type UsageTotals } from "./usage.ts";

export interface ModelEvents {
  /** Text as it streams. */
  onText(delta: string): void;
  /** A retryable failure; the call will be tried again after `delayMs`. */
  onRetry(message: string, delayMs: number, attempt: number): void;
  /** Request size, for --verbose. */
  onRequest?(bytes: number): void;
  /** Thinking text as it streams. */
  onThinking?(delta: string): void;
  /** A whole thinking block (redacted: its text is encrypted), for the folded line on screen. */
  onThinkingBlock?(thinking: string, redacted: boolean): void;
}

export interface ModelOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  /** Default: what the thinking plan needs (the answer's share plus any thinking budget). */
  maxTokens?: number;
  /** --thinking; undefined: on where the model supports it. */
  thinking?: ThinkingLevel;
  /** First backoff delay; doubles each retry. */
  retryBaseMs: number;
  maxRetries?: number;
  /** Abort and retry an attempt when no byte arrives for this long (default 90 s). */
  idleTimeoutMs?: number;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 90_000;

/** A failure the person must see: message already in plain words. */
export class ModelError extends Error {
  override name = "ModelError";
  /** The request did not fit the model's context window (or the API's size limit). */
  readonly tooLong: boolean;
  /** The API found the conversation itself invalid (a 400 naming `messages`): resending it cannot work. */
  readonly badConversation: boolean;
  constructor(message: string, opts: { tooLong?: boolean; badConversation?: boolean } = {}) {
    super(message);
    this.tooLong = opts.tooLong ?? false;
    this.badConversation = opts.badConversation ?? false;
  }
}

export class Model {
  readonly usage: UsageTotals = emptyUsage();
  /** Milliseconds spent waiting on the API (retries included): stream-json's duration_api_ms. */
  apiMs = 0;
  private readonly client: Anthropic;
  /** Called on every chunk of the response body: feeds the current attempt's idle watchdog. */
  private onBytes: () => void = () => {};
  /** The content-type of the last successful response: a 200 that is not an event stream is a wrong server. */
  private okContentType: string | undefined;
  readonly thinking: ThinkingPlan;

  constructor(readonly opts: ModelOptions) {
    this.thinking = planThinking(opts.model, opts.thinking);
    this.client = new Anthropic({
      apiKey: opts.apiKey,
      baseURL: opts.baseURL,
      maxRetries: 0,
      timeout: 10 * 60_000,
      // Errors reach the person through explain(), not as SDK dumps on stderr.
      logLevel: "off",
      fetch: (url, init) => this.watchedFetch(url, init),
    });
  }

  /** fetch, with the response body passed through a counter so a silent stream can be noticed. */
  private async watchedFetch(url: string | URL | Request, init?: RequestInit): Promise<Response> {
    const res = await fetch(url, init);
    this.onBytes();
    this.okContentType = res.ok ? (res.headers.get("content-type") ?? "no content-type") : undefined;
    if (!res.body) return res;
    const touch = () => this.onBytes();
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, c) {
          touch();
          c.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  }

  get name(): string {
    return this.opts.model;
  }

  /** The --thinking level in effect. */
  get thinkingLevel(): ThinkingLevel {
    return this.thinking.level;
  }

  async send(system: string, messages: MessageParam[], tools: Tool[], events: ModelEvents, signal: AbortSignal): Promise<Message> {
    const t0 = performance.now();
    try {
      return await this.sendTimed(system, messages, tools, events, signal);
    } finally {
      this.apiMs += performance.now() - t0;
    }
  }

  private async sendTimed(system: string, messages: MessageParam[], tools: Tool[], events: ModelEvents, signal: AbortSignal): Promise<Message> {
    const params = {
      model: this.opts.model,
      max_tokens: this.opts.maxTokens ?? this.thinking.maxTokens,
      ...this.thinking.params,
      system: [{ type: "text", text: system, cache_control: { type: "ephemeral" } }] satisfies TextBlockParam[],
      tools,
      messages: withCacheMark(messages),
    };
    events.onRequest?.(JSON.stringify(params).length);
    const maxRetries = this.opts.maxRetries ?? 4;
    let streamed = false;
    const idleMs = this.opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    for (let attempt = 0; ; attempt++) {
      // Each attempt has its own abort: the person's (Ctrl+C) or the watchdog's.
      const attemptAbort = new AbortController();
      const forward = () => attemptAbort.abort();
      signal.addEventListener("abort", forward, { once: true });
      let silent = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const rearm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          silent = true;
          attemptAbort.abort();
        }, idleMs);
      };
      this.onBytes = rearm;
      rearm();
      try {
        const stream = this.client.messages.stream(params, { signal: attemptAbort.signal });
        streamed = false;
        stream.on("text", (delta) => {
          streamed = true;
          events.onText(delta);
        });
        if (events.onThinking) stream.on("thinking", (delta) => events.onThinking?.(delta));
        stream.on("contentBlock", (block) => {
          if (block.type === "thinking") events.onThinkingBlock?.(block.thinking, false);
          else if (block.type === "redacted_thinking") events.onThinkingBlock?.("", true);
        });
        const message = await stream.finalMessage();
        // message_stop without a message_delta: the reply's end never came.
        if (message.stop_reason === null) throw new StreamCutError("the stream ended before the reply was complete");
        addUsage(this.usage, message.usage);
        return message;
      } catch (err) {
        if (signal.aborted) throw err;
        const wrongServer = !silent && isStreamProblem(err) && this.okContentType !== undefined && !this.okContentType.includes("text/event-stream");
        const retry: { ok: boolean; afterMs?: number } = silent ? { ok: true } : wrongServer ? { ok: false } : retryable(err);
        const why = silent
          ? `the API sent nothing for ${formatSeconds(idleMs)}`
          : wrongServer
            ? `the server answered with ${this.okContentType}, not an event stream: check that ANTHROPIC_BASE_URL (${this.opts.baseURL ?? "the default"}) is a Messages API`
            : explain(err, this.opts.baseURL);
        if (!retry.ok || attempt >= maxRetries) throw new ModelError(why, { tooLong: isTooLong(err), badConversation: isBadConversation(err) });
        const delay = retry.afterMs ?? this.opts.retryBaseMs * 2 ** attempt;
        // Text already shown from a cut-off stream is not resent: say the reply starts over.
        const restart = streamed ? " (the reply was cut off and will start over)" : "";
        events.onRetry(`${why}${restart}; retrying in ${formatSeconds(delay)}`, delay, attempt + 1);
        await sleep(delay, signal);
      } finally {
        clearTimeout(timer);
        signal.removeEventListener("abort", forward);
        this.onBytes = () => {};
      }
    }
  }
}

/** Mark the end of the conversation so the next request reads it from the prompt cache. */
function withCacheMark(messages: MessageParam[]): MessageParam[] {
  const last = messages.at(-1);
  if (!last) return messages;
  const content = typeof last.content === "string" ? [{ type: "text" as const, text: last.content }] : last.content;
  const tail = content.at(-1);
  if (!tail || tail.type === "thinking" || tail.type === "redacted_thinking") return messages;
  const marked = [...content.slice(0, -1), { ...tail, cache_control: { type: "ephemeral" as const } }];
  return [...messages.slice(0, -1), { ...last, content: marked } as MessageParam];
}

/** A reply that arrived but could not be assembled: cut short, out of order, not JSON. */
class StreamCutError extends Error {
  override name = "StreamCutError";
}

function isStreamProblem(err: unknown): boolean {
  return err instanceof StreamCutError || (err instanceof Anthropic.AnthropicError && !(err instanceof Anthropic.APIError));
}

function retryable(err: unknown): { ok: boolean; afterMs?: number } {
  if (err instanceof Anthropic.APIConnectionError) return { ok: true };
  // A garbled or truncated stream is a bad sample or a bad hop: asking again usually works.
  if (isStreamProblem(err)) return { ok: true };
  if (err instanceof Anthropic.APIError) {
    const h = err.headers;
    if (h?.get("x-should-retry") === "false") return { ok: false };
    const status = err.status ?? 0;
    const ok = status === 408 || status === 409 || status === 429 || status >= 500 || err.type === "overloaded_error" || status === 0;
    const ms = Number(h?.get("retry-after-ms"));
    const s = Number(h?.get("retry-after"));
    const afterMs = Number.isFinite(ms) && ms >= 0 && h?.get("retry-after-ms") ? ms : Number.isFinite(s) && h?.get("retry-after") ? s * 1000 : undefined;
    return { ok, afterMs: afterMs !== undefined ? Math.min(afterMs, 60_000) : undefined };
  }
  // A stream cut mid-way surfaces as a plain error from the SDK's reader.
  return { ok: err instanceof Error && /terminated|ECONNRESET|socket|network|fetch failed/i.test(err.message) };
}

/** The API's answer to a prompt over the context window (400) or a body over its byte limit (413). */
export function isTooLong(err: unknown): boolean {
  if (!(err instanceof Anthropic.APIError)) return false;
  if (err.status === 413) return true;
  const body = err.error as { error?: { message?: string } } | undefined;
  const detail = body?.error?.message ?? err.message;
  return err.status === 400 && /prompt is too long|too many (input )?tokens|context (window|length)/i.test(detail);
}

/** A 400 about the messages themselves (not their size): the history holds something the API will never accept. */
function isBadConversation(err: unknown): boolean {
  if (!(err instanceof Anthropic.APIError) || err.status !== 400 || isTooLong(err)) return false;
  const body = err.error as { error?: { message?: string } } | undefined;
  return /\bmessages\b/.test(body?.error?.message ?? err.message);
}

/** One sentence a person can act on. */
export function explain(err: unknown, baseURL?: string): string {
  if (err instanceof Anthropic.APIError) {
    const status = err.status;
    const body = err.error as { error?: { message?: string } } | undefined;
    const detail = body?.error?.message ?? err.message;
    if (status === 401) return `the API rejected the key (401): check ANTHROPIC_API_KEY${detail ? ` (${detail})` : ""}`;
    if (status === 403) return `the API refused access (403): ${detail}`;
    if (status === 404) return `not found (404): ${detail}. Check the model name (--model) and ANTHROPIC_BASE_URL`;
    if (status === 429) return `rate limited (429): ${detail}`;
    if (status === 529 || err.type === "overloaded_error") return `the API is overloaded (529)`;
    if (status === undefined) {
      const where = baseURL ? ` at ${baseURL} (ANTHROPIC_BASE_URL)` : "";
      return `could not reach the API${where}: ${tidy(err.message).replace(/\.$/, "")} (check your network${baseURL ? " and that URL" : ""})`;
    }
    return `API error ${status}: ${tidy(detail)}`;
  }
  if (err instanceof StreamCutError) return err.message;
  if (isStreamProblem(err)) {
    const msg = (err as Error).message;
    if (/stream ended|without sending any chunks/.test(msg)) return "the stream ended before the reply was complete";
    return `the reply stream could not be read (${tidy(msg)})`;
  }
  return err instanceof Error ? `connection failed: ${tidy(err.message)}` : String(err);
}

/** An error detail fit for one line: a proxy's HTML page becomes its title, Bun's fetch hint goes. */
function tidy(detail: string): string {
  let text = detail.replace(/\s*For more information, pass `verbose: true`[^.]*\.?/g, "");
  if (/<html|<!doctype|<body/i.test(text)) {
    const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
    text = title ? `${title} (an HTML page, likely from a proxy)` : text.replace(/<[^>]*>/g, " ");
  }
  text = text.replace(/\s+/g, " ").trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      reject(new Error("aborted"));
    }, { once: true });
  });
}
