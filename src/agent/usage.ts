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
