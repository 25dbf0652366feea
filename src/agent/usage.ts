// Token usage summed over a session, and what it cost.
import type { Usage } from "@anthropic-ai/sdk/resources/messages";

export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export const emptyUsage = (): UsageTotals => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

export function addUsage(into: UsageTotals, u: Partial<Usage> | undefined): void {
  if (!u) return;
  into.input_tokens += u.input_tokens ?? 0;
  into.output_tokens += u.output_tokens ?? 0;
  into.cache_creation_input_tokens += u.cache_creation_input_tokens ?? 0;
  into.cache_read_input_tokens += u.cache_read_input_tokens ?? 0;
}

/** About this many characters of text, thinking or tool input make one output token (prose and code). */
export const CHARS_PER_TOKEN = 4;

/**
 * A streaming reply's output tokens, estimated from the characters received (the API counts them only at the
 * reply's end) and counted in `totals` as they come, so the status line's "out" moves while the reply streams
 * (it sat at message_start's 1 for seconds; new user 10's F22). The reply's own count replaces the estimate when
 * it comes; a reply that ends without it (interrupted, cut off) keeps what was received, as an estimate: it was
 * generated, so it is billed (F3). `isEstimate` says the figure holds an estimate ("≈" on screen).
 */
export class OutputEstimate {
  private chars = 0;
  /** Tokens this reply's estimate has added to the totals beyond what message_start reported. */
  private added = 0;
  private reported = 0;
  /** An unfinished reply's estimate stays in the totals. */
  private kept = false;

  constructor(private readonly totals: UsageTotals) {}

  /** A reply began; message_start reported `reported` output tokens (counted already). */
  start(reported: number): void {
    this.chars = 0;
    this.added = 0;
    this.reported = reported;
  }

  received(chars: number): void {
    this.chars += chars;
    const extra = Math.max(0, Math.ceil(this.chars / CHARS_PER_TOKEN) - this.reported);
    this.totals.output_tokens += extra - this.added;
    this.added = extra;
  }

  /** The reply's own count came (added by the caller): the estimate goes. */
  finished(): void {
    this.totals.output_tokens -= this.added;
    this.added = 0;
    this.chars = 0;
  }

  /** The reply ended without its count: what was received stays counted, as an estimate. */
  abandoned(): void {
    if (this.added > 0) this.kept = true;
    this.added = 0;
    this.chars = 0;
  }

  get isEstimate(): boolean {
    return this.kept || this.added > 0;
  }
}

/** What `now` adds to `start` (the same reply's usage at its start and at its end). */
export function usageSince(start: Partial<Usage>, now: Partial<Usage>): Partial<Usage> {
  const less = (k: keyof UsageTotals) => Math.max(0, (now[k] ?? 0) - (start[k] ?? 0));
  return { input_tokens: less("input_tokens"), output_tokens: less("output_tokens"), cache_creation_input_tokens: less("cache_creation_input_tokens"), cache_read_input_tokens: less("cache_read_input_tokens") };
}

/**
 * USD per million tokens (input, output), by model (Anthropic's list prices): Opus 4.1 and older cost three times
 * Opus 4.5's (new user: claude-opus-4-1 was priced as 4.5); Haiku 3.5 and 3 less than 4.5. Any other model a gateway
 * serves is priced as Sonnet.
 */
export function pricePerMTok(model: string): [number, number] {
  const m = model.toLowerCase();
  if (m.includes("haiku")) return /3-5-haiku|haiku-3-5/.test(m) ? [0.8, 4] : /3-haiku|haiku-3(?!-5)/.test(m) ? [0.25, 1.25] : [1, 5];
  if (m.includes("opus")) return /3-opus|opus-3|opus-4(-[01])?(-\d{8})?$|opus-4-[01]\b|opus-4-2025/.test(m) ? [15, 75] : [5, 25];
  return [3, 15];
}

export function costUSD(model: string, u: UsageTotals): number {
  const [inp, out] = pricePerMTok(model);
  const cost =
    u.input_tokens * inp +
    u.cache_creation_input_tokens * inp * 1.25 +
    u.cache_read_input_tokens * inp * 0.1 +
    u.output_tokens * out;
  return Math.round((cost / 1e6) * 1e6) / 1e6;
}
