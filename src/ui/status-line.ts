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
  /** The output count holds an estimate (a reply streaming, or one interrupted before its count came): "≈". */
  outEstimated?: boolean;
}

/**
 * The context figure: past 100% the request was larger than the window bunker assumes (200,000 tokens; a model
 * with a larger one), so it says that, not "687%".
 */
export function contextText(pct: number | null): string {
  if (pct === null) return "context –";
  return pct > 100 ? "context >100%" : `context ${Math.round(pct)}%`;
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

/**
 * The line, fitted to `columns` when given: parts go in this order until it fits (the cached share, the model's
 * name, tokens out, tokens in, the interrupt hint, the context), so the cost and what runs stay to the last.
 */
export function formatStatus(f: StatusFigures, step: RunningStep | null, now: number, color = true, columns?: number): string {
  const c = color ? pc : { dim: (s: string) => s, cyan: (s: string) => s };
  const input = tokensIn(f.usage);
  const cached = input > 0 ? Math.round((100 * f.usage.cache_read_input_tokens) / input) : 0;
  // Each part with its rank: the lowest goes first when the line is too wide.
  const figures: { text: string; rank: number; attached?: boolean }[] = [
    // The model's name can come from a stored session on disk, the step's from an MCP server's tool name.
    { text: escapeControl(f.model), rank: 1 },
    { text: contextText(f.contextPct), rank: 5 },
    { text: `${input} in`, rank: 3 },
    // Part of "N in": after it with a space, not a dot.
    { text: `(${cached}% cached)`, rank: 0, attached: true },
    { text: `${f.outEstimated ? "≈" : ""}${f.usage.output_tokens} out`, rank: 2 },
    { text: `$${f.costUsd.toFixed(4)}`, rank: 6 },
  ];
  // `esc to interrupt` ranks between tokens in and the context.
  const HINT_RANK = 4;
  const seconds = step ? Math.max(0, (now - step.startedAt) / 1000) : 0;
  const frame = FRAMES[Math.floor(now / 100) % FRAMES.length]!;
  const build = (dropped: number): string => {
    const joined = figures
      .filter((p) => p.rank >= dropped)
      .map((p, i) => (i === 0 ? "" : p.attached ? " " : " · ") + p.text)
      .join("");
    const text = c.dim(joined);
    if (!step) return text;
    // What runs and how to stop it come first.
    const hint = dropped <= HINT_RANK ? ` ${c.dim(`· esc to interrupt${joined ? " ·" : ""}`)}` : joined ? ` ${c.dim("·")}` : "";
    return `${c.cyan(frame)} ${escapeControl(step.label)} ${seconds.toFixed(1)}s${hint}${joined ? ` ${text}` : ""}`;
  };
  if (columns === undefined) return build(0);
  // One column spare: a line that fills the last column makes some terminals wrap.
  for (let dropped = 0; dropped <= 7; dropped++) {
    const line = build(dropped);
    if (Bun.stringWidth(Bun.stripANSI(line)) < columns) return line;
  }
  return build(7);
}
