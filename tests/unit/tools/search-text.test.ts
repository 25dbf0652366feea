// grep's line matching, pure: which lines match (a match never spans lines),
// and the rg-style output with context.
import { describe, expect, test } from "bun:test";
import { compileLineRegex, formatMatches, matchingLines, MAX_GREP_LINE } from "../../../src/tools/search-text.ts";

const lines = (text: string, pattern: string, ignoreCase = false, max = 100) => matchingLines(text, compileLineRegex(pattern, ignoreCase), max);

describe("matchingLines", () => {
  test("line numbers and columns of matching lines, in order", () => {
    expect(lines("alpha\nbeta\ngamma beta\n", "beta")).toEqual([
      { line: 2, column: 0, text: "beta" },
      { line: 3, column: 6, text: "gamma beta" },
    ]);
  });

  test("a pattern that would span lines matches no line", () => {
    expect(lines("one\ntwo\n", "one\\ntwo")).toEqual([]);
    expect(lines("one\ntwo\n", "one[\\s\\S]*two")).toEqual([]);
  });

  test("^ and $ anchor at each line; an empty match after the final newline is not a line", () => {
    expect(lines("a\n\nb\n", "^$").map((m) => m.line)).toEqual([2]);
    expect(lines("x1\ny2\n", "\\d$").map((m) => m.line)).toEqual([1, 2]);
  });

  test("ignore case, the cap, an empty text, and a last line without newline", () => {
    expect(lines("Foo\nfoo\n", "FOO", true).map((m) => m.line)).toEqual([1, 2]);
    expect(lines("x\nx\nx\n", "x", false, 2)).toHaveLength(2);
    expect(lines("", "x")).toEqual([]);
    expect(lines("a\nlast", "last")).toEqual([{ line: 2, column: 0, text: "last" }]);
  });
});

describe("formatMatches", () => {
  const text = ["l1", "hit2", "l3", "l4", "l5", "l6", "hit7", "l8"].join("\n") + "\n";
  const m = lines(text, "hit");

  test("without context: path:line:text", () => {
    expect(formatMatches("f.txt", text, m, 0)).toEqual(["f.txt:2:hit2", "f.txt:7:hit7"]);
  });

  test("with context: path-line-text around, -- between groups that do not touch", () => {
    expect(formatMatches("f.txt", text, m, 1)).toEqual(["f.txt-1-l1", "f.txt:2:hit2", "f.txt-3-l3", "--", "f.txt-6-l6", "f.txt:7:hit7", "f.txt-8-l8"]);
    expect(formatMatches("f.txt", text, m, 2)).toEqual([
      "f.txt-1-l1", "f.txt:2:hit2", "f.txt-3-l3", "f.txt-4-l4", "f.txt-5-l5", "f.txt-6-l6", "f.txt:7:hit7", "f.txt-8-l8",
    ]);
  });

  test("a long line is cut to a window around the match and says so; a CR is not shown", () => {
    const long = "x".repeat(1000) + "NEEDLE" + "y".repeat(1000);
    const [out] = formatMatches("f", long + "\r\n", lines(long + "\r\n", "NEEDLE"), 0);
    expect(out).toContain("NEEDLE");
    expect(out).toStartWith("f:1:…");
    expect(out).toEndWith(`… [line cut: ${long.length} chars]`);
    expect(out!.length).toBeLessThan(MAX_GREP_LINE + 60);
  });
});
