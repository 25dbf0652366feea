import { describe, expect, test } from "bun:test";
import { applyEdit, dominantEol } from "../../../src/text/replace.ts";

function ok(result: ReturnType<typeof applyEdit>) {
  if (!result.ok) throw new Error(`expected success, got: ${result.error}`);
  return result;
}
function err(result: ReturnType<typeof applyEdit>): string {
  if (result.ok) throw new Error(`expected an error, got content ${JSON.stringify(result.content)}`);
  return result.error;
}

describe("exact matching", () => {
  test("replaces the one occurrence and reports its line", () => {
    const r = ok(applyEdit("a\nb\nc\n", "b", "B"));
    expect(r.content).toBe("a\nB\nc\n");
    expect(r.line).toBe(2);
    expect(r.level.name).toBe("exact");
  });

  test("several matches: names their lines and asks for context or replace_all", () => {
    const e = err(applyEdit("x = 1\ny = 2\nx = 1\nz\nx = 1\n", "x = 1", "x = 9", { display: "a.ts" }));
    expect(e).toContain("3 times in a.ts");
    expect(e).toContain("lines 1, 3, 5");
    expect(e).toContain("replace_all");
  });

  test("several matches on one line: each line named once, with how often (new user 12's N12-24)", () => {
    const e = err(applyEdit("a + a + a\nb = a\n", "a", "A", { display: "calc.js" }));
    expect(e).toContain("old_string occurs 4 times in calc.js (lines 1 (3 times), 2)");
  });

  test("replace_all replaces every occurrence", () => {
    const r = ok(applyEdit("x = 1\ny\nx = 1\n", "x = 1", "x = 2", { replaceAll: true }));
    expect(r.content).toBe("x = 2\ny\nx = 2\n");
    expect(r.replacements).toBe(2);
  });

  test("old_string equal to new_string is an error", () => {
    expect(err(applyEdit("a\n", "a", "a"))).toContain("the same");
  });

  test("empty old_string fills an empty file and is refused for a file with content", () => {
    expect(ok(applyEdit("", "", "hello\n")).content).toBe("hello\n");
    expect(err(applyEdit("x\n", "", "hello\n"))).toContain("already has content");
  });
});

describe("line endings, BOM and the final newline", () => {
  test("new text takes the CRLF endings of the file", () => {
    const r = ok(applyEdit("one\r\ntwo\r\nthree\r\n", "two\nthree", "2\n3\n3.5"));
    expect(r.content).toBe("one\r\n2\r\n3\r\n3.5\r\n");
  });

  test("an old_string written with CRLF still matches an LF file, and LF is kept", () => {
    expect(ok(applyEdit("a\nb\nc\n", "a\r\nb", "A\r\nB")).content).toBe("A\nB\nc\n");
  });

  test("the BOM is kept", () => {
    const r = ok(applyEdit("\uFEFFfirst\nsecond\n", "first", "1st"));
    expect(r.content).toBe("\uFEFF1st\nsecond\n");
  });

  test("the final newline is kept when the edit replaces the last line including it", () => {
    expect(ok(applyEdit("a\nlast\n", "last\n", "end")).content).toBe("a\nend\n");
    // and not invented for a file that had none
    expect(ok(applyEdit("a\nlast", "last", "end")).content).toBe("a\nend");
  });

  test("dominantEol counts line breaks", () => {
    expect(dominantEol("a\r\nb\r\nc\n")).toBe("\r\n");
    expect(dominantEol("a\nb\r\nc\n")).toBe("\n");
    expect(dominantEol("no breaks")).toBe("\n");
  });
});

describe("tolerant matching", () => {
  test("trailing whitespace in the file does not stop a match", () => {
    const r = ok(applyEdit("function f() {   \n  return 1;\t\n}\n", "function f() {\n  return 1;\n}", "function f() {\n  return 2;\n}"));
    expect(r.content).toBe("function f() {\n  return 2;\n}\n");
    expect(r.level.name).toBe("trailing-whitespace");
  });

  test("an indentation shift is matched and the new text is re-indented", () => {
    const file = "class A {\n    run() {\n        go();\n    }\n}\n";
    const r = ok(applyEdit(file, "run() {\n    go();\n}", "run() {\n    stop();\n    go();\n}"));
    expect(r.content).toBe("class A {\n    run() {\n        stop();\n        go();\n    }\n}\n");
    expect(r.level.name).toBe("indentation");
    expect(r.line).toBe(2);
  });

  test("blocks match when inner indentation differs too (indentation level; new text keeps the file's first indentation)", () => {
    const file = "if (x) {\n\tfoo();\n\t  bar();\n}\n";
    const r = ok(applyEdit(file, "foo();\nbar();", "foo();\nbaz();"));
    expect(r.level.name).toBe("indentation");
    expect(r.content).toBe("if (x) {\n\tfoo();\n\tbaz();\n}\n");
  });

  test("a tolerant match is refused when it finds more than one place", () => {
    const file = "a() {\n  x();\n}\nb() {\n    x();  \n}\n";
    const e = err(applyEdit(file, "x();   ", "y();"));
    expect(e).toContain("2 places");
    expect(e).toContain("lines 2, 5");
  });

  test("tolerant matching keeps CRLF", () => {
    const r = ok(applyEdit("a\r\n  b  \r\nc\r\n", "b\n", "B\n"));
    expect(r.content).toBe("a\r\n  B\r\nc\r\n");
  });

  test("deleting whole lines through a tolerant match leaves no blank line", () => {
    const r = ok(applyEdit("keep\n  drop me  \nkeep too\n", "drop me\n", ""));
    expect(r.content).toBe("keep\nkeep too\n");
  });
});

describe("no match", () => {
  test("quotes the closest lines with their line numbers", () => {
    const file = Array.from({ length: 40 }, (_, i) => `const value${i} = compute(${i});`).join("\n") + "\n";
    const e = err(applyEdit(file, "const value17 = computeIt(17);\nconst value18 = computeIt(18);", "x", { display: "calc.ts" }));
    expect(e).toContain("not found in calc.ts");
    expect(e).toContain("! 18 | const value17 = compute(17);");
    expect(e).toContain("! 19 | const value18 = compute(18);");
    expect(e).toContain('a word: the file has "compute" where old_string has "computeIt"');
    expect(e).toContain("read_file");
  });

  test("says so when nothing is similar", () => {
    const e = err(applyEdit("alpha\nbeta\n", "zzzzqqqq", "x"));
    expect(e).toContain("no lines in it look similar");
  });

  test("a fragment that only matches part of a line with different spaces is not guessed at", () => {
    const e = err(applyEdit("call(a,  b);\n", "call(a, b)", "call(b, a)"));
    expect(e).toContain("not found");
  });
});

// The cases models produce every day that bunker used to answer with "not found" (issue 16, "Why").
describe("why: old_string cases that were not found", () => {
  test("old_string that differs from the file only in runs of whitespace inside a line (if  x ==   1: vs if x == 1:) is found", () => {
    const r = ok(applyEdit("def f(x):\n    if  x ==   1:\n        return 0\n", "    if x == 1:\n        return 0", "    if x == 1:\n        return 1"));
    expect(r.content).toBe("def f(x):\n    if x == 1:\n        return 1\n");
    expect(r.level.name).toBe("inner-whitespace");
  });

  test("old_string with a tab where the file has spaces mid-line is found", () => {
    const r = ok(applyEdit("const a =    1;\nconst b = 2;\n", "const a =\t1;", "const a = 9;"));
    expect(r.content).toBe("const a = 9;\nconst b = 2;\n");
  });

  test("old_string with blank lines around it is found", () => {
    const r = ok(applyEdit("import x\nrun(x)\nexit()\n", "\n\nrun(x)\n\n", "\n\nrun(x, y)\n\n"));
    expect(r.content).toBe("import x\nrun(x, y)\nexit()\n");
    expect(r.level.name).toBe("blank-lines");
  });

  test("old_string written with literal \\n escapes and no real newline is found", () => {
    const r = ok(applyEdit("a\nif (x) {\n  go();\n}\nb\n", "if (x) {\\n  go();\\n}", "if (x) {\\n  stop();\\n}"));
    expect(r.content).toBe("a\nif (x) {\n  stop();\n}\nb\n");
    expect(r.level.name).toBe("literal-escapes");
  });

  test("when the closest lines start at line 1 the error quotes them (line 1 included)", () => {
    const e = err(applyEdit("const first = load(1);\nconst second = load(2);\nrest();\n", "const first = load(10);\nconst second = load(2);", "x", { display: "m.ts" }));
    expect(e).not.toContain("no lines in it look similar");
    expect(e).toContain('Closest lines in m.ts (lines 1-2; "!" marks a line that differs from old_string):');
    expect(e).toContain("! 1 | const first = load(1);");
    expect(e).toContain("  2 | const second = load(2);");
    expect(e).toContain('a word: the file has "1" where old_string has "10"');
  });

  test("function add(a,b) against function add(a, b) quotes the line and says the spacing differs", () => {
    const e = err(applyEdit("function add(a, b) {\n  return a + b;\n}\n", "function add(a,b) {", "function add(a, b, c) {", { display: "add.js" }));
    expect(e).toContain("! 1 | function add(a, b) {");
    expect(e).toContain('whitespace inside the line: the file has ", b" where old_string has ",b"');
  });
});

// Where opencode's and Roo-Code's edit tools differ on purpose from bunker.
describe("where bunker is stricter than its peers, and why that is safer", () => {
  test("no similarity guessing: lines that only look alike are quoted back, never replaced", () => {
    // opencode's BlockAnchorReplacer and Roo-Code's fuzzy threshold accept a block whose first and last
    // lines match and whose middle is merely similar. A wrong middle line is exactly the case where the
    // model misremembers the file, and replacing there edits code the model has not read.
    const file = "function f() {\n  const total = sum(items);\n  return total;\n}\n";
    const e = err(applyEdit(file, "function f() {\n  const total = sum(item);\n  return total;\n}", "function f() {\n  return 0;\n}"));
    expect(e).toContain("! 2 |   const total = sum(items);");
    expect(e).toContain('a word: the file has "items" where old_string has "item"');
  });

  test("a tolerant match in two places is refused, where peers take the first", () => {
    // Taking the first of two loosely equal places edits whichever comes first in the file, which the
    // model did not choose; naming both lets it add the context that picks one.
    const e = err(applyEdit("if (a) {\n  retry();\n}\nif (b) {\n  retry();\t\n}\n", "retry(); ", "stop();"));
    expect(e).toContain("2 places (lines 2, 5)");
  });
});
