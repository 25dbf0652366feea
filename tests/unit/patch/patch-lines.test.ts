// The pieces both patch parsers share: splitting patch text into lines, one
// hunk's body built line by line, and the numbers of a unified @@ header.
import { describe, expect, test } from "bun:test";
import { clip, HunkBuilder, parseHunkNumbers, splitPatchLines } from "../../../src/patch/patch-lines.ts";
import { PatchSyntaxError } from "../../../src/patch/types.ts";

describe("splitPatchLines", () => {
  test("lines without their endings, a CR remembered, no empty line after the final newline", () => {
    expect(splitPatchLines("a\r\nb\n\nc")).toEqual([
      { text: "a", cr: true },
      { text: "b", cr: false },
      { text: "", cr: false },
      { text: "c", cr: false },
    ]);
    expect(splitPatchLines("x\n")).toEqual([{ text: "x", cr: false }]);
    expect(splitPatchLines("")).toEqual([]);
  });
});

describe("HunkBuilder", () => {
  test("bare blank lines are empty context in the middle and dropped at the end", () => {
    const b = new HunkBuilder("@@", 3);
    b.add(" ", "a", false);
    b.blank();
    b.add("-", "b", false);
    b.blank();
    b.blank();
    expect(b.hunk.lines.map((l) => l.op + l.text)).toEqual([" a", " ", "-b"]);
    expect(b.lineCount).toBe(3);
  });

  test("`\\ No newline at end of file` marks the side(s) of the line before it", () => {
    const removed = new HunkBuilder("@@", 1);
    removed.add("-", "old", false);
    removed.noNewline(3);
    expect([removed.hunk.oldNoNewline, removed.hunk.newNoNewline]).toEqual([true, false]);
    const added = new HunkBuilder("@@", 1);
    added.add("+", "new", false);
    added.noNewline(3);
    expect([added.hunk.oldNoNewline, added.hunk.newNoNewline]).toEqual([false, true]);
    const context = new HunkBuilder("@@", 1);
    context.add(" ", "same", false);
    context.noNewline(3);
    expect([context.hunk.oldNoNewline, context.hunk.newNoNewline]).toEqual([true, true]);
  });

  test("a `\\` line with no line before it is a syntax error at its line", () => {
    const b = new HunkBuilder("@@", 1);
    expect(() => b.noNewline(7)).toThrow(new PatchSyntaxError(7, "`\\ No newline at end of file` with no hunk line before it"));
  });
});

describe("parseHunkNumbers", () => {
  const TABLE: [string, ReturnType<typeof parseHunkNumbers>][] = [
    ["@@ -12,5 +12,6 @@", { oldStart: 12, oldCount: 5, newCount: 6 }],
    ["@@ -3 +3 @@ function f() {", { oldStart: 3, oldCount: 1, newCount: 1 }],
    ["@@ -0,0 +1,2 @@", { oldStart: 0, oldCount: 0, newCount: 2 }],
    ["@@ -7,2", { oldStart: 7, oldCount: 2, newCount: undefined }],
    ["@@@ -1,2 +1,2 @@@", { oldStart: 1, oldCount: 2, newCount: 2 }],
    ["@@ def f():", {}],
    ["@@", {}],
  ];
  for (const [header, nums] of TABLE) test(header, () => expect(parseHunkNumbers(header)).toEqual(nums));
});

test("clip shortens a quoted line with an ellipsis", () => {
  expect(clip("short")).toBe("short");
  expect(clip("x".repeat(100))).toBe("x".repeat(80) + "…");
  expect(clip("abcdef", 3)).toBe("abc…");
});
