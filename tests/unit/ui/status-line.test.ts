// The status line's figures are /cost's; what runs, and for how long, comes first.
import { expect, test } from "bun:test";
import { contextText, formatStatus, tokensIn } from "../../../src/ui/status-line.ts";

const figures = { model: "claude-x", usage: { input_tokens: 100, output_tokens: 50, cache_read_input_tokens: 300, cache_creation_input_tokens: 100 }, costUsd: 0.01234, contextPct: 12.4 };

test("at rest: model, context, tokens in with the cached share, out, cost", () => {
  expect(tokensIn(figures.usage)).toBe(500);
  expect(Bun.stripANSI(formatStatus(figures, null, 0))).toBe("claude-x · context 12% · 500 in (60% cached) · 50 out · $0.0123");
});

test("while a step runs: its name, its elapsed time and how to interrupt, before the figures", () => {
  const line = Bun.stripANSI(formatStatus({ ...figures, contextPct: null }, { label: "run_bash", startedAt: 1000 }, 4250));
  expect(line).toMatch(/^. run_bash 3\.3s · esc to interrupt · claude-x · context – · 500 in/);
});

test("a model or step name with control characters shows them escaped: nothing but the line's own colours reaches the terminal", () => {
  const line = formatStatus({ ...figures, model: "claude\x1b]52;c;cm0gLXJm\x07" }, { label: "mcp\x1b[2Jx", startedAt: 0 }, 100);
  expect(Bun.stripANSI(line)).toContain("claude\\x1b]52;c;cm0gLXJm\\x07");
  expect(Bun.stripANSI(line)).toContain("mcp\\x1b[2Jx");
  expect(Bun.stripANSI(line)).not.toMatch(/[\x00-\x1f\x7f]/);
});

test("fitted to a narrow screen, the cost stays: the cached share, the model, tokens out and in go first, then the hint, then the context", () => {
  const wide = { ...figures, model: "claude-sonnet-5-5" };
  const at = (columns: number, step: { label: string; startedAt: number } | null = null) => Bun.stripANSI(formatStatus(wide, step, 4250, true, columns));
  expect(at(120)).toBe("claude-sonnet-5-5 · context 12% · 500 in (60% cached) · 50 out · $0.0123");
  expect(at(60)).toBe("claude-sonnet-5-5 · context 12% · 500 in · 50 out · $0.0123");
  expect(at(40)).toBe("context 12% · 500 in · 50 out · $0.0123");
  expect(at(30)).toBe("context 12% · $0.0123");
  const running = { label: "run_bash", startedAt: 1000 };
  expect(at(40, running)).toMatch(/^. run_bash 3\.3s · context 12% · \$0\.0123$/);
  expect(at(60, running)).toMatch(/^. run_bash 3\.3s · esc to interrupt · context 12% · \$0\.0123$/);
  // Every fitted line is narrower than its screen.
  for (const columns of [20, 30, 40, 60, 80]) for (const step of [null, running]) expect(Bun.stringWidth(at(columns, step))).toBeLessThan(Math.max(columns, 17));
});

test("past 100% the context says so instead of a figure like 687%; an estimated output count reads ≈", () => {
  expect(contextText(687.4)).toBe("context >100%");
  expect(contextText(100)).toBe("context 100%");
  expect(contextText(null)).toBe("context –");
  expect(Bun.stripANSI(formatStatus({ ...figures, contextPct: 687, outEstimated: true }, null, 0))).toBe("claude-x · context >100% · 500 in (60% cached) · ≈50 out · $0.0123");
});
