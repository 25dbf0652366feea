import { expect, test } from "bun:test";
import { costUSD, emptyUsage, pricePerMTok } from "../../../src/agent/usage.ts";

test("list prices by model: Opus 4.1 and older three times Opus 4.5's, the Haikus apart, anything else as Sonnet", () => {
  expect(["claude-opus-4-1", "claude-opus-4-1-20250805", "claude-opus-4-20250514", "claude-3-opus-20240229"].map(pricePerMTok)).toEqual(Array(4).fill([15, 75]));
  expect(["claude-opus-4-5", "claude-opus-4-5-20251101", "claude-opus-4-6"].map(pricePerMTok)).toEqual(Array(3).fill([5, 25]));
  expect(pricePerMTok("claude-haiku-4-5")).toEqual([1, 5]);
  expect(pricePerMTok("claude-3-5-haiku-20241022")).toEqual([0.8, 4]);
  expect(pricePerMTok("claude-3-haiku-20240307")).toEqual([0.25, 1.25]);
  expect(pricePerMTok("claude-sonnet-4-5")).toEqual([3, 15]);
});

test("a million tokens in and out of Opus 4.1 cost $90 (new user: it showed $30)", () => {
  expect(costUSD("claude-opus-4-1", { ...emptyUsage(), input_tokens: 1e6, output_tokens: 1e6 })).toBe(90);
});
