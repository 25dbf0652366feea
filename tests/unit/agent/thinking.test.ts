// Which models think, and what each --thinking level puts in the request.
import { describe, expect, test } from "bun:test";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { foldThinking, lastThinking, modelVersion, planThinking, thinkingSupport } from "../../../src/agent/thinking.ts";

describe("thinkingSupport", () => {
  test.each([
    ["claude-sonnet-5-5", "adaptive"],
    ["claude-opus-4-6", "adaptive"],
    ["claude-sonnet-4-6", "adaptive"],
    ["claude-sonnet-4-5-20250929", "budget"],
    ["claude-haiku-4-5-20251001", "budget"],
    ["claude-3-7-sonnet-20250219", "budget"],
    ["claude-sonnet-4-0", "budget"],
    ["claude-3-5-haiku-20241022", "none"],
    ["claude-3-opus-20240229", "none"],
    ["my-proxy-model", "none"],
  ] as const)("%s: %s", (model, kind) => {
    expect(thinkingSupport(model)).toBe(kind);
  });

  test("a date is not a version", () => {
    expect(modelVersion("claude-haiku-4-5-20251001")).toEqual({ major: 4, minor: 5 });
    expect(modelVersion("claude-3-7-sonnet-20250219")).toEqual({ major: 3, minor: 7 });
  });
});

describe("planThinking", () => {
  test("on by default: adaptive models think at high effort, budget models get a budget below max_tokens", () => {
    expect(planThinking("claude-sonnet-5-5", undefined)).toEqual({
      level: "high",
      params: { thinking: { type: "adaptive" }, output_config: { effort: "high" } },
      maxTokens: 16_000,
    });
    const budget = planThinking("claude-sonnet-4-5", undefined);
    expect(budget.params.thinking).toEqual({ type: "enabled", budget_tokens: 16_000 });
    expect(budget.maxTokens).toBe(32_000);
  });

  test("each level maps to an effort or a budget; off disables", () => {
    expect(planThinking("claude-opus-4-6", "low").params.output_config).toEqual({ effort: "low" });
    expect(planThinking("claude-sonnet-4-5", "medium").params.thinking).toEqual({ type: "enabled", budget_tokens: 10_000 });
    expect(planThinking("claude-sonnet-5-5", "off")).toEqual({ level: "off", params: { thinking: { type: "disabled" } }, maxTokens: 16_000 });
  });

  test("a model that cannot think sends nothing, and says so only when thinking was asked for", () => {
    expect(planThinking("claude-3-5-haiku-20241022", undefined)).toEqual({ level: "off", params: {}, maxTokens: 16_000 });
    expect(planThinking("claude-3-5-haiku-20241022", "high").note).toBe(
      "--thinking high: claude-3-5-haiku-20241022 does not support extended thinking; running without it.",
    );
  });
});

describe("on screen", () => {
  test("a thinking block folds to one line of at most the given width", () => {
    const line = foldThinking("First I read the file.\nThen I check\n\nthe tests carefully, one by one, all of them.", 50);
    expect(line).toStartWith("✻ Thinking: First I read the file. Then");
    expect(line).toEndWith("… (3 lines)");
    expect(line.length).toBeLessThanOrEqual(50);
    expect(foldThinking("short", 80)).toBe("✻ Thinking: short");
  });

  test("lastThinking finds the newest reply that thought", () => {
    const messages: MessageParam[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "thinking", thinking: "old", signature: "s1" }, { type: "text", text: "a" }] },
      { role: "user", content: "again" },
      { role: "assistant", content: [{ type: "thinking", thinking: "new", signature: "s2" }, { type: "redacted_thinking", data: "x" }, { type: "text", text: "b" }] },
      { role: "user", content: "more" },
      { role: "assistant", content: [{ type: "text", text: "no thought" }] },
    ];
    expect(lastThinking(messages)).toBe("new\n\n[redacted thinking]");
    expect(lastThinking([{ role: "user", content: "hi" }])).toBeNull();
  });
});
