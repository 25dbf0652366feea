// "Not found" that helps: the closest lines, quoted with their numbers, and
// how each differs from what the model wrote.
import { describe, expect, test } from "bun:test";
import { closestLines, difference, MAX_QUOTED_LINES, quoteClosest } from "../../../src/text/closest.ts";
import { LineIndex } from "../../../src/text/match.ts";

describe("difference: how a file line differs from the line the model wrote", () => {
  const TABLE: [string, string, string | undefined][] = [
    ["same", "same", undefined],
    ["x = 1  ", "x = 1", "trailing whitespace only"],
    ["    x = 1", "  x = 1", 'indentation: the file has "    ", the search "  "'],
    ["if  x ==   1:", "if x == 1:", 'whitespace inside the line: the file has "  x ==   " where the search has " x == "'],
    ["function add(a, b)", "function add(a,b)", 'whitespace inside the line: the file has ", b" where the search has ",b"'],
    ["it\u2019s \u2014 ok", "it's - ok", 'Unicode punctuation: the file has "\u2019s \u2014" where the search has "\'s -"'],
    ["const v = compute(1);", "const v = computeIt(1);", 'a word: the file has "compute" where the search has "computeIt"'],
    ["a();\r", "a();", "line endings: the file's line ends in CRLF, the search's in LF"],
    ["return a + b;", "return a - b;", 'the text: the file has "+" where the search has "-"'],
  ];
  for (const [file, wrote, says] of TABLE) {
    test(`${JSON.stringify(file)} vs ${JSON.stringify(wrote)}`, () => {
      expect(difference(file, wrote)).toBe(says);
    });
  }
});

describe("closestLines", () => {
  test("finds a window that starts at line 1 (index 0 is a real answer)", () => {
    const file = new LineIndex(["function add(a, b) {", "  return a + b;", "}", "", "other();"]);
    expect(closestLines(file, ["function add(a,b) {", "  return a + b;"])).toMatchObject({ start: 0 });
  });

  test("finds the window by its similar lines when none is equal", () => {
    const lines = Array.from({ length: 200 }, (_, i) => `const value${i} = compute(${i});`);
    expect(closestLines(new LineIndex(lines), ["const value120 = computeIt(120);", "const value121 = computeIt(121);"])?.start).toBe(120);
  });

  test("of equally close windows, the one nearest the hint", () => {
    const file = new LineIndex(["a = 1", "x", "a = 1", "y", "a = 1"]);
    expect(closestLines(file, ["a = 2"], 4)?.start).toBe(4);
    expect(closestLines(file, ["a = 2"], 0)?.start).toBe(0);
  });

  test("nothing alike: undefined, and an empty file or search too", () => {
    expect(closestLines(new LineIndex(["alpha", "beta"]), ["zzzzqqqq"])).toBeUndefined();
    expect(closestLines(new LineIndex([]), ["x"])).toBeUndefined();
    expect(closestLines(new LineIndex(["x"]), [])).toBeUndefined();
  });
});

describe("quoteClosest", () => {
  test("numbers every line, marks those that differ and says how, below them", () => {
    const lines = ["one", "two = 2", "three"];
    const at = closestLines(new LineIndex(lines), ["two = 20", "three"])!;
    expect(quoteClosest("f.txt", lines, ["two = 20", "three"], at, "the hunk")).toEqual([
      'Closest lines in f.txt (lines 2-3; "!" marks a line that differs from the hunk):',
      "  ! 2 | two = 2",
      '        ^ a word: the file has "2" where the hunk has "20"',
      "    3 | three",
    ]);
  });

  test("is bounded: at most MAX_QUOTED_LINES lines, each clipped", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} ${"x".repeat(500)}`);
    const want = lines.map((l) => l + "!");
    const out = quoteClosest("big", lines, want, { start: 0, score: 1 }, "old_string");
    expect(out.filter((l) => /^ {2}[! ] +\d+ \| /.test(l)).length).toBe(MAX_QUOTED_LINES);
    expect(out.at(-1)).toBe(`    … (${100 - MAX_QUOTED_LINES} more lines)`);
    expect(Math.max(...out.map((l) => l.length))).toBeLessThan(260);
  });
});
