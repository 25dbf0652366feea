// Checkpoint versions are stored as deltas against the version before
// (src/change/delta.ts): what comes back must be the file byte for byte.
import { expect, test } from "bun:test";
import { applyDelta, makeDelta, sha256 } from "../../../src/change/delta.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

test.each([
  ["a line changed in the middle", "alpha\nbeta\ngamma\n", "alpha\nBETA\ngamma\n"],
  ["text added at the end", "one\n", "one\ntwo\n"],
  ["text removed from the start", "header\nbody\n", "body\n"],
  ["the same content", "same\n", "same\n"],
  ["from empty", "", "new file\n"],
  ["to empty", "old file\n", ""],
  ["a repeated run, where head and tail could overlap", "aaaa", "aaaaaa"],
  ["CRLF and non-ASCII kept", "é\r\n", "é\r\nü\r\n"],
])("%s: the delta rebuilds the new version exactly", (_name, before, after) => {
  const base = bytes(before);
  const next = bytes(after);
  const delta = makeDelta(base, next);
  expect(applyDelta(base, delta)).toEqual(next);
});

test("a small change to a large file stores only what changed", () => {
  const base = bytes("x".repeat(100_000));
  const next = bytes("x".repeat(50_000) + "CHANGED" + "x".repeat(50_000));
  expect(makeDelta(base, next).length).toBeLessThan(100);
});

test("a delta applied to the wrong base is refused, not stitched into garbage", () => {
  const delta = makeDelta(bytes("a long original text"), bytes("a long original text!"));
  expect(() => applyDelta(bytes("short"), delta)).toThrow("delta does not fit its base");
});

test("sha256 names the content", () => {
  expect(sha256(bytes(""))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
});
