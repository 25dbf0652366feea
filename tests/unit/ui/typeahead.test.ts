// The store of keys typed ahead of their reader: per input, in order, taken once.
import { expect, test } from "bun:test";
import { CONFIRM_MS, confirmsPick, hasHeldKeys, holdKeys, notePick, takeHeldKeys } from "../../../src/ui/typeahead.ts";

test("keys are held per input, in order, and taken once", () => {
  const a = {};
  const b = {};
  expect(hasHeldKeys(a)).toBe(false);
  holdKeys(a, ["y", "\r"]);
  holdKeys(a, ["n"]);
  holdKeys(b, ["x"]);
  expect(hasHeldKeys(a)).toBe(true);
  expect(takeHeldKeys(a)).toEqual(["y", "\r", "n"]);
  expect(hasHeldKeys(a)).toBe(false);
  expect(takeHeldKeys(a)).toEqual([]);
  expect(takeHeldKeys(b)).toEqual(["x"]);
});

test("an Enter confirms a pick only soon after it", () => {
  const input = {};
  expect(confirmsPick(input)).toBe(false);
  notePick(input, 1_000);
  expect(confirmsPick(input, 1_000 + CONFIRM_MS - 1)).toBe(true);
  expect(confirmsPick(input, 1_000 + CONFIRM_MS)).toBe(false);
});
