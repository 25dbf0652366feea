// The model: one streamed Messages call (api-client.ts) with our own retry
// loop (so the person sees "retrying in Ns"), an idle watchdog, prompt
// caching marks, thinking, and usage totals.
import type { Message, MessageParam, TextBlockParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import { ApiConnectionError, ApiError, NotAStreamError, StreamError, streamMessage } from "./api-client.ts";
import { planThinking, type ThinkingLevel, type ThinkingPlan } from "./thinking.ts";
import { addUsage, emptyUsage, OutputEstimate, usageSince, type UsageTotals } from "./usage.ts";

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
  /** The streaming reply's output, estimated into `usage` until its own count comes. */
  private readonly output = new OutputEstimate(this.usage);
  /** Milliseconds spent waiting on the API (retries included): stream-json's duration_api_ms. */
  apiMs = 0;
  readonly thinking: ThinkingPlan;

  constructor(readonly opts: ModelOptions) {
    this.thinking = planThinking(opts.model, opts.thinking);
  }

  get name(): string {
    return this.opts.model;
  }

  /** The output tokens in `usage` hold an estimate: a reply streaming now, or one that ended before its count came. */
  get outputEstimated(): boolean {
    return this.output.isEstimate;
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
      rearm();
      try {
        streamed = false;
        // Counted when the reply starts: a reply interrupted (Escape) or cut off was billed for its input all the same.
        let counted: Message["usage"] | undefined;
        const message = await streamMessage(
          { apiKey: this.opts.apiKey, baseURL: this.opts.baseURL, body: params, signal: attemptAbort.signal },
          {
            // Its size is said once, not again for each retry.
            onRequest: attempt === 0 ? (size) => events.onRequest?.(size) : undefined,
            onBytes: rearm,
            onStart: (usage) => {
              counted = { ...usage };
              addUsage(this.usage, usage);
              this.output.start(usage.output_tokens ?? 0);
            },
            onOutput: (chars) => this.output.received(chars),
            onText: (delta) => {
              streamed = true;
              events.onText(delta);
            },
            onThinking: (delta) => {
              streamed = true;
              events.onThinking?.(delta);
            },
            onBlock: (block) => {
              if (block.type === "thinking") events.onThinkingBlock?.(block.thinking, false);
              else if (block.type === "redacted_thinking") events.onThinkingBlock?.("", true);
            },
          },
        );
        this.output.finished();
        addUsage(this.usage, counted ? usageSince(counted, message.usage) : message.usage);
        return message;
      } catch (err) {
        if (signal.aborted) throw err;
        const retry: { ok: boolean; afterMs?: number } = silent ? { ok: true } : refusedHere(err, this.opts.baseURL) || unknownHost(err) ? { ok: false } : retryable(err);
        const why = silent ? `the API sent nothing for ${formatSeconds(idleMs)}` : explain(err, this.opts.baseURL);
        if (!retry.ok || attempt >= maxRetries) throw new ModelError(why, { tooLong: isTooLong(err), badConversation: isBadConversation(err) });
        const delay = retry.afterMs ?? this.opts.retryBaseMs * 2 ** attempt;
        // Text already shown from a cut-off stream is not resent: say the reply starts over.
        const restart = streamed ? " (the reply was cut off and will start over)" : "";
        events.onRetry(`${why}${restart}; retrying in ${formatSeconds(delay)}`, delay, attempt + 1);
        await sleep(delay, signal);
      } finally {
        // Interrupted or cut off: what arrived stays counted (nothing, once the reply finished).
        this.output.abandoned();
        clearTimeout(timer);
        signal.removeEventListener("abort", forward);
      }
    }
  }
}

/** Mark the end of the conversation so the next request reads it from the prompt cache. */
function withCacheMark(messages: MessageParam[]): MessageParam[] {
  const last = messages[messages.length - 1];
  if (!last) return messages;
  const content = typeof last.content === "string" ? [{ type: "text" as const, text: last.content }] : last.content;
  const tail = content[content.length - 1];
  if (!tail || tail.type === "thinking" || tail.type === "redacted_thinking") return messages;
  const marked = [...content.slice(0, -1), { ...tail, cache_control: { type: "ephemeral" as const } }];
  return [...messages.slice(0, -1), { ...last, content: marked } as MessageParam];
}

/** A connection refused by this machine: nothing listens at that port, and retrying for seconds will not start it. */
function refusedHere(err: unknown, baseURL: string | undefined): boolean {
  if (!(err instanceof ApiConnectionError) || !baseURL || !/ECONNREFUSED|connection refused/i.test(err.message)) return false;
  try {
    const host = new URL(baseURL).hostname;
    return host === "localhost" || host === "[::1]" || /^127\./.test(host);
  } catch {
    return false;
  }
}

/**
 * The API's host name does not exist (DNS answered "no such name": ENOTFOUND, EAI_NONAME): a typo in
 * ANTHROPIC_BASE_URL, or no network to resolve it on. Asking again in a few seconds gets the same answer, so it is
 * not retried. A DNS server that did not answer (EAI_AGAIN) is a passing failure and is retried.
 */
function unknownHost(err: unknown): err is ApiConnectionError {
  return err instanceof ApiConnectionError && (err.code === "ENOTFOUND" || err.code === "EAI_NONAME" || /\b(ENOTFOUND|EAI_NONAME)\b/.test(err.message));
}

function retryable(err: unknown): { ok: boolean; afterMs?: number } {
  if (err instanceof ApiConnectionError || err instanceof StreamError) return { ok: true };
  if (err instanceof NotAStreamError) return { ok: false };
  if (err instanceof ApiError) {
    // An error event mid-stream (overloaded, api_error): the reply can be asked for again.
    if (err.status === undefined) return { ok: err.type !== "invalid_request_error" };
    const h = err.headers;
    if (h?.get("x-should-retry") === "false") return { ok: false };
    const status = err.status;
    const ok = status === 408 || status === 409 || status === 429 || status >= 500 || err.type === "overloaded_error";
    const ms = Number(h?.get("retry-after-ms"));
    const s = Number(h?.get("retry-after"));
    const afterMs = Number.isFinite(ms) && ms >= 0 && h?.get("retry-after-ms") ? ms : Number.isFinite(s) && h?.get("retry-after") ? s * 1000 : undefined;
    return { ok, afterMs: afterMs !== undefined ? Math.min(afterMs, 60_000) : undefined };
  }
  return { ok: false };
}

/** The API's answer to a prompt over the context window (400) or a body over its byte limit (413). */
export function isTooLong(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.status === 413 || err.type === "request_too_large") return true;
  return err.status === 400 && /prompt is too long|too many (input )?tokens|context (window|length)/i.test(err.detail);
}

/** A 400 about the messages themselves (not their size): the history holds something the API will never accept. */
function isBadConversation(err: unknown): boolean {
  if (!(err instanceof ApiError) || err.status !== 400 || isTooLong(err)) return false;
  return /\bmessages\b/.test(err.detail);
}

/** One sentence a person can act on. */
export function explain(err: unknown, baseURL?: string): string {
  if (err instanceof ApiError) {
    const { status, detail } = err;
    if (status === 401) return `the API rejected the key (401): check ANTHROPIC_API_KEY${detail ? ` (${tidy(detail)})` : ""}`;
    if (status === 403) return `the API refused access (403): ${tidy(detail)}`;
    if (status === 404) return `not found (404): ${tidy(detail)}. Check the model name (--model) and ANTHROPIC_BASE_URL`;
    if (status === 429) return `rate limited (429): ${tidy(detail)}`;
    if (status === 529 || err.type === "overloaded_error") return `the API is overloaded (529)`;
    if (status === undefined) return `the API reported an error${err.type ? ` (${err.type})` : ""}: ${tidy(detail)}`;
    return `API error ${status}: ${tidy(detail)}`;
  }
  if (refusedHere(err, baseURL)) return `nothing is listening at ${baseURL} (ANTHROPIC_BASE_URL): start the server there or correct the URL`;
  if (unknownHost(err)) {
    const host = err.host ?? "the API's host";
    return baseURL
      ? `the host ${host} in ANTHROPIC_BASE_URL (${baseURL}) was not found (DNS knows no such name): check its spelling, or that this machine can resolve names`
      : `the host ${host} was not found (DNS knows no such name): check that this machine is online and can resolve names`;
  }
  if (err instanceof ApiConnectionError) {
    const where = baseURL ? ` at ${baseURL} (ANTHROPIC_BASE_URL)` : "";
    return `could not reach the API${where}: ${tidy(err.message).replace(/\.$/, "")} (check your network${baseURL ? " and that URL" : ""})`;
  }
  if (err instanceof NotAStreamError) {
    return `${err.message}: check that ANTHROPIC_BASE_URL (${baseURL ?? "the default"}) is a Messages API`;
  }
  if (err instanceof StreamError) return err.kind === "garbled" ? `the reply stream could not be read (${tidy(err.message)})` : tidy(err.message);
  return err instanceof Error ? `unexpected error: ${tidy(err.message)}` : String(err);
}

/** An error detail fit for one line: a proxy's HTML page becomes its title, Bun's fetch hint goes. */
function tidy(detail: string): string {
  // Exactly Bun's sentence: a looser pattern took the ")" that closes bunker's own bracket with it.
  let text = detail.replace(/\s*For more information, pass `verbose: true` in the second argument to fetch\(\)\.?/g, "");
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
