import { expect, test } from "bun:test";
import { costUSD, emptyUsage, OutputEstimate, pricePerMTok } from "../../../src/agent/usage.ts";

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

test("a streaming reply's output is estimated from what arrived, replaced by the reply's own count, and kept (as an estimate) when it never comes", () => {
  const totals = { ...emptyUsage(), output_tokens: 10 };
  const out = new OutputEstimate(totals);
  // message_start said 1 (counted by the caller), then 400 characters arrive: about 100 tokens.
  totals.output_tokens += 1;
  out.start(1);
  expect(out.isEstimate).toBe(false);
  out.received(200);
  expect(totals.output_tokens).toBe(10 + 50);
  out.received(200);
  expect(totals.output_tokens).toBe(10 + 100);
  expect(out.isEstimate).toBe(true);
  // The reply's count (120) replaces the estimate: the caller adds what message_delta added to message_start's 1.
  out.finished();
  totals.output_tokens += 119;
  expect(totals.output_tokens).toBe(10 + 120);
  expect(out.isEstimate).toBe(false);
  // The next reply is interrupted after 40 characters: about 10 tokens stay counted, and the figure says it is an estimate.
  totals.output_tokens += 1;
  out.start(1);
  out.received(40);
  out.abandoned();
  expect(totals.output_tokens).toBe(130 + 10);
  expect(out.isEstimate).toBe(true);
});
