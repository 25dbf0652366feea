// Extended thinking: which models think, and how a --thinking level becomes
// the request's `thinking` (and `output_config.effort`) and `max_tokens`.
// Models from 4.6 on take adaptive thinking with an effort; 3.7 to 4.5 take
// a token budget, which counts toward max_tokens; older ones do not think.
import type { ContentBlockParam, MessageParam, ThinkingConfigParam } from "@anthropic-ai/sdk/resources/messages";

export const THINKING_LEVELS = ["off", "low", "medium", "high"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** The answer's own share of max_tokens, beside a thinking budget. */
export const ANSWER_TOKENS = 16_000;
/** Budgets for models that take `budget_tokens` (at least 1,024, less than max_tokens). */
const BUDGET: Record<Exclude<ThinkingLevel, "off">, number> = { low: 4_000, medium: 10_000, high: 16_000 };

export type ThinkingSupport = "adaptive" | "budget" | "none";

/** Major and minor version from a model id: claude-sonnet-4-6, claude-3-7-sonnet-20250219, claude-haiku-4-5-20251001. */
export function modelVersion(model: string): { major: number; minor: number } | null {
  if (!model.toLowerCase().includes("claude")) return null;
  // Numbers of one or two digits between separators (- _ . @); an 8-digit date is not a version.
  // A character loop, not split and a pattern: a regular expression costs its compile in every run (jit.ts).
  const nums: number[] = [];
  let run = "";
  for (let i = 0; i <= model.length && nums.length < 2; i++) {
    const ch = i < model.length ? model[i]! : "-";
    if (ch === "-" || ch === "_" || ch === "." || ch === "@") {
      if (run.length >= 1 && run.length <= 2 && isDigits(run)) nums.push(Number(run));
      run = "";
    } else run += ch;
  }
  if (nums.length === 0) return null;
  return { major: nums[0]!, minor: nums[1] ?? 0 };
}

function isDigits(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s[i]! < "0" || s[i]! > "9") return false;
  return true;
}

export function thinkingSupport(model: string): ThinkingSupport {
  const v = modelVersion(model);
  if (!v) return "none";
  if (v.major > 4 || (v.major === 4 && v.minor >= 6)) return "adaptive";
  if (v.major === 4 || (v.major === 3 && v.minor >= 7)) return "budget";
  return "none";
}

export interface ThinkingPlan {
  /** The level in effect ("off" when the model does not think). */
  level: ThinkingLevel;
  /** Request fields to add: `thinking`, and `output_config` for adaptive models. */
  params: { thinking?: ThinkingConfigParam; output_config?: { effort: "low" | "medium" | "high" } };
  maxTokens: number;
  /** Said once at start-up when the asked-for level cannot be honoured. */
  note?: string;
}

/**
 * `requested` undefined: the default, on ("high") where the model thinks.
 * A level asked of a model that cannot think is dropped with a note.
 */
export function planThinking(model: string, requested: ThinkingLevel | undefined): ThinkingPlan {
  const support = thinkingSupport(model);
  const level = requested ?? "high";
  if (support === "none") {
    const note = requested && requested !== "off" ? `--thinking ${requested}: ${model} does not support extended thinking; running without it.` : undefined;
    return { level: "off", params: {}, maxTokens: ANSWER_TOKENS, ...(note ? { note } : {}) };
  }
  if (level === "off") return { level, params: { thinking: { type: "disabled" } }, maxTokens: ANSWER_TOKENS };
  if (support === "adaptive") {
    return { level, params: { thinking: { type: "adaptive" }, output_config: { effort: level } }, maxTokens: ANSWER_TOKENS };
  }
  return { level, params: { thinking: { type: "enabled", budget_tokens: BUDGET[level] } }, maxTokens: ANSWER_TOKENS + BUDGET[level] };
}

export function parseThinkingLevel(value: string): ThinkingLevel | null {
  return (THINKING_LEVELS as readonly string[]).includes(value) ? (value as ThinkingLevel) : null;
}

/** The thinking of the newest reply that has some (what /thinking expands), or null. */
export function lastThinking(messages: MessageParam[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant" || typeof m.content === "string") continue;
    const parts = m.content.filter((b): b is Extract<ContentBlockParam, { type: "thinking" | "redacted_thinking" }> => b.type === "thinking" || b.type === "redacted_thinking");
    if (parts.length > 0) return parts.map((b) => (b.type === "thinking" ? b.thinking : "[redacted thinking]")).join("\n\n");
  }
  return null;
}

/**
 * A thinking block folded to one line for the screen: "Thinking: first words…
 * (N lines)", at most `columns` wide. Plain text: the caller escapes and dims it.
 */
export function foldThinking(thinking: string, columns: number): string {
  const lines = thinking.split("\n").filter((l) => l.trim() !== "").length;
  const tail = lines > 1 ? ` (${lines} lines)` : "";
  const head = "✻ Thinking: ";
  const flat = thinking.replace(/\s+/g, " ").trim();
  const room = Math.max(8, columns - head.length - tail.length);
  const shown = flat.length > room ? `${flat.slice(0, room - 1)}…` : flat;
  return `${head}${shown}${tail}`;
}
