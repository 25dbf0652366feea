// The one matcher's levels as a table: for each, a file, a search, and the
// level that must find it (or none). edit_file's search (old_string) goes
// through applyEdit, a hunk's lines through matchLines, so both callers are
// held to the same table.
import { describe, expect, test } from "bun:test";
import {
  foldUnicode,
  LEVELS,
  LINE_LEVELS,
  LineIndex,
  matchLines,
  reindenter,
  trimBlankLines,
  unescapeLiteral,
  type LevelName,
} from "../../../src/text/match.ts";
import { applyEdit } from "../../../src/text/replace.ts";

interface Row {
  why: string;
  file: string;
  search: string;
  /** The level that finds it; null when none may. */
  level: LevelName | null;
  replace?: string;
  /** The file after replacing the search with `replace`. */
  after?: string;
}

const TABLE: Row[] = [
  { why: "the text as written", file: "a\nb = 1\nc\n", search: "b = 1", level: "exact", replace: "b = 2", after: "a\nb = 2\nc\n" },
  {
    why: "spaces the file has at line ends",
    file: "f() {  \n  return 1;\t\n}\n",
    search: "f() {\n  return 1;\n}",
    level: "trailing-whitespace",
    replace: "f() {\n  return 2;\n}",
    after: "f() {\n  return 2;\n}\n",
  },
  {
    why: "a block quoted out of its nesting is re-indented onto the file's",
    file: "class A {\n    run() {\n        go();\n    }\n}\n",
    search: "run() {\n    go();\n}",
    level: "indentation",
    replace: "run() {\n    stop();\n}",
    after: "class A {\n    run() {\n        stop();\n    }\n}\n",
  },
  {
    why: "runs of spaces inside a line (if  x ==   1:)",
    file: "def f(x):\n    if  x ==   1:\n        return x\n",
    search: "    if x == 1:\n        return x",
    level: "inner-whitespace",
    replace: "    if x == 2:\n        return x",
    after: "def f(x):\n    if x == 2:\n        return x\n",
  },
  {
    why: "a tab mid-line written as a space",
    file: "name\tvalue\nother\tthing\n",
    search: "name value",
    level: "inner-whitespace",
    replace: "name\tVALUE",
    after: "name\tVALUE\nother\tthing\n",
  },
  {
    why: "blank lines around the search that the file does not have there",
    file: "one\ntwo\nthree\n",
    search: "\n\ntwo\n\n",
    level: "blank-lines",
    replace: "\n\n2\n\n",
    after: "one\n2\nthree\n",
  },
  {
    why: "ASCII punctuation for the file's Unicode dashes and quotes",
    file: "say \u201chello\u201d \u2014 it\u2019s fine\n",
    search: 'say "hello" - it\'s fine',
    level: "unicode-punctuation",
    replace: "say hi",
    after: "say hi\n",
  },
  {
    why: "a non-breaking space written as a space",
    file: "price:\u00A010\n",
    search: "price: 10",
    level: "unicode-punctuation",
    replace: "price: 11",
    after: "price: 11\n",
  },
  {
    why: "literal \\n escapes and no real newline",
    file: "if (x) {\n  run();\n}\n",
    search: "if (x) {\\n  run();\\n}",
    level: "literal-escapes",
    replace: "if (x) {\\n  walk();\\n}",
    after: "if (x) {\n  walk();\n}\n",
  },
  {
    why: "a literal \\t escape",
    file: "a\tb\n",
    search: "a\\tb",
    level: "literal-escapes",
    replace: "a\\tc",
    after: "a\tc\n",
  },
  // What no level may match: nothing is guessed by similarity.
  { why: "a different word", file: "const value = compute(1);\n", search: "const value = computeIt(1);", level: null },
  { why: "a space missing between tokens (not a run of whitespace)", file: "function add(a, b) {\n", search: "function add(a,b) {", level: null },
  { why: "part of a line with other spacing", file: "call(a,  b);\n", search: "call(a, b)", level: null },
  { why: "a search with real newlines is never unescaped", file: "a\\nb\nc\n", search: "a\nb", level: null },
];

describe("the matcher's levels, in order", () => {
  test("the levels are the documented seven, in this order", () => {
    expect(LEVELS.map((l) => l.name)).toEqual([
      "exact",
      "trailing-whitespace",
      "indentation",
      "inner-whitespace",
      "blank-lines",
      "unicode-punctuation",
      "literal-escapes",
    ]);
    // apply_patch uses the ones that keep a hunk's lines one-to-one with the file's.
    expect(LINE_LEVELS.map((l) => l.name)).toEqual(["exact", "trailing-whitespace", "indentation", "inner-whitespace", "unicode-punctuation"]);
  });

  for (const row of TABLE) {
    test(`${row.level ?? "no level"}: ${row.why}`, () => {
      const r = applyEdit(row.file, row.search, row.replace ?? "REPLACED");
      if (row.level === null) {
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error).toContain("was not found");
        return;
      }
      if (!r.ok) throw new Error(r.error);
      expect(r.level.name).toBe(row.level);
      expect(r.content).toBe(row.after!);
    });
  }

  test("each row of a hunk is placed by matchLines at the same level edit_file names", () => {
    for (const row of TABLE) {
      if (row.level === null || !LINE_LEVELS.some((l) => l.name === row.level) || row.level === "exact") continue;
      const file = new LineIndex(row.file.replace(/\n$/, "").split("\n"));
      const m = matchLines(file, row.search.split("\n"));
      expect({ why: row.why, level: m.kind === "found" ? m.level.name : m.kind }).toEqual({ why: row.why, level: row.level });
    }
  });
});

describe("every tolerant level needs exactly one place", () => {
  test("two places ignoring trailing whitespace is an error naming both lines, not the first of them", () => {
    const r = applyEdit("a() {\n  x();\t\t\n}\nb() {\n  x();\t\n}\n", "  x(); ", "  y();");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toBe(
      "old_string was not found exactly in the file, and ignoring trailing whitespace it matches 2 places (lines 2, 5). Copy old_string exactly from the file, with enough surrounding lines to pick one place.",
    );
  });

  test("matchLines reports the ambiguity with the level and the places", () => {
    const file = new LineIndex(["if  a:", "  go()", "if a :", "if   a:"]);
    const m = matchLines(file, ["if a:"]);
    expect(m).toMatchObject({ kind: "ambiguous", at: [0, 3] });
    expect(m.kind === "ambiguous" && m.level.name).toBe("inner-whitespace");
  });

  test("exact may find several places: the caller decides (a line hint, replace_all)", () => {
    const m = matchLines(new LineIndex(["x", "y", "x"]), ["x"]);
    expect(m).toMatchObject({ kind: "found", at: [0, 2] });
  });

  test("a stricter level wins over a looser one even when the looser would find another place first", () => {
    const m = matchLines(new LineIndex(["x = 1  ", "pad", "x = 1"]), ["x = 1"]);
    expect(m.kind === "found" && [m.level.name, m.at]).toEqual(["exact", [2]]);
  });

  test("the range and the eligibility filter are honoured", () => {
    const file = new LineIndex(["a", "b", "a", "b"]);
    expect(matchLines(file, ["a", "b"], { from: 1 })).toMatchObject({ kind: "found", at: [2] });
    expect(matchLines(file, ["a", "b"], { eligible: (p) => p === 2 })).toMatchObject({ kind: "found", at: [2] });
    expect(matchLines(file, ["a", "b"], { from: 3 })).toEqual({ kind: "none" });
  });
});

describe("the pieces", () => {
  test("foldUnicode: dashes, quotes, ellipsis and spaces", () => {
    expect(foldUnicode("\u2014\u2013\u2018\u2019\u201C\u201D\u2026\u00A0")).toBe("--''\"\"... ");
  });

  test("unescapeLiteral applies only to one-line text holding \\n or \\t", () => {
    expect(unescapeLiteral("a\\nb\\tc")).toBe("a\nb\tc");
    expect(unescapeLiteral("a\\r\\nb")).toBe("a\nb");
    expect(unescapeLiteral("plain")).toBeNull();
    expect(unescapeLiteral("two\nlines \\n")).toBeNull();
  });

  test("trimBlankLines counts what it dropped at each end", () => {
    expect(trimBlankLines(["", "  ", "a", "", "b", ""])).toEqual({ lines: ["a", "", "b"], before: 2, after: 1 });
  });

  test("reindenter shifts by the difference of the first indentations and keeps deeper lines deeper", () => {
    const shift = reindenter(["f():", "  g()"], ["    f():", "      g()"]);
    expect(["f():", "  h()", "", "other"].map(shift)).toEqual(["    f():", "      h()", "", "    other"]);
  });

  test("the exact level key is the line itself, so a hunk placed exactly keeps the file's bytes", () => {
    const file = new LineIndex(["a\t", "b"]);
    expect(file.find(["a\t"], LEVELS[0]!)).toEqual([0]);
    expect(file.find(["a"], LEVELS[0]!)).toEqual([]);
  });
});
