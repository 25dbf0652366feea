// The status line under the conversation: model, how full the context is,
// tokens in and out (with the share read from the cache), cost so far, what
// is running and for how long, and how to interrupt it. The token and cost
// figures are the ones /cost prints.
import pc from "./colors.ts";
import { escapeControl } from "./escape.ts";
import type { UsageTotals } from "../agent/usage.ts";

export interface StatusFigures {
  model: string;
  usage: UsageTotals;
  costUsd: number;
  /** Share of the context window the last request used (0–100), null before the first. */
  contextPct: number | null;
}

export interface RunningStep {
  /** "waiting", "writing", "run_bash", … */
  label: string;
  startedAt: number;
}

/** Input tokens as /cost counts them: fresh, written to the cache and read from it. */
export function tokensIn(u: UsageTotals): number {
  return u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export function formatStatus(f: StatusFigures, step: RunningStep | null, now: number, color = true): string {
  const c = color ? pc : { dim: (s: string) => s, cyan: (s: string) => s };
  const input = tokensIn(f.usage);
  const cached = input > 0 ? Math.round((100 * f.usage.cache_read_input_tokens) / input) : 0;
  const parts = [
    // The model's name can come from a stored session on disk, the step's from an MCP server's tool name.
    escapeControl(f.model),
    `context ${f.contextPct === null ? "–" : `${Math.round(f.contextPct)}%`}`,
    `${input} in (${cached}% cached)`,
    `${f.usage.output_tokens} out`,
    `$${f.costUsd.toFixed(4)}`,
  ];
  let text = c.dim(parts.join(" · "));
  if (step) {
    const seconds = Math.max(0, (now - step.startedAt) / 1000);
    const frame = FRAMES[Math.floor(now / 100) % FRAMES.length]!;
    // What runs and how to stop it come first: on a narrow terminal the figures are cut, not these.
    text = `${c.cyan(frame)} ${escapeControl(step.label)} ${seconds.toFixed(1)}s ${c.dim("· esc to interrupt ·")} ${text}`;
  }
  return text;
}
