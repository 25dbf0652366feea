import { describe, expect, test } from "bun:test";
import { applyPatches, type DryRun } from "../../../src/patch/apply.ts";
import { parsePatch } from "../../../src/patch/parse.ts";
import { formatReport } from "../../../src/patch/report.ts";

function dry(files: Record<string, string>, patch: string): DryRun {
  return applyPatches(parsePatch(patch), (p) => files[p] ?? null);
}

/** The new content of every changed file (null: deleted), or the report when it fails. */
function result(files: Record<string, string>, patch: string): Record<string, string | null> | string {
  const r = dry(files, patch);
  if (!r.ok) return formatReport(r.problems);
  return Object.fromEntries(r.changes.flatMap((c) => (c.from ? [[c.from, null], [c.path, c.after]] : [[c.path, c.after]])));
}

function report(files: Record<string, string>, patch: string): string {
  const r = dry(files, patch);
  if (r.ok) throw new Error(`expected the patch to fail, got ${JSON.stringify(r.changes)}`);
  return formatReport(r.problems);
}

const hunk = (header: string, ...lines: string[]) => ["--- a/f", "+++ b/f", header, ...lines].join("\n") + "\n";
const lines = (...ls: string[]) => ls.map((l) => l + "\n").join("");

describe("placing hunks", () => {
  const twin = lines("a()", "  setup();", "  run();", "", "", "", "b()", "  setup();", "  run();", "", "c()");

  test("the match nearest the hinted line wins", () => {
    const patch = (n: number) => hunk(`@@ -${n},2 +${n},2 @@`, "   setup();", "-  run();", "+  go();");
    expect(result({ f: twin }, patch(1))).toEqual({ f: twin.replace("run", "go") });
    expect(result({ f: twin }, patch(9))).toEqual({ f: lines("a()", "  setup();", "  run();", "", "", "", "b()", "  setup();", "  go();", "", "c()") });
  });

  test("two matches equally near the hint is an error, not a guess", () => {
    const text = report({ f: twin }, hunk("@@ -5,2 +5,2 @@", "   setup();", "-  run();", "+  go();"));
    expect(text).toContain("f, hunk 1 of 1 (@@ -5,2 +5,2 @@, patch line 3): the hunk's lines occur equally near line 5, at lines 2 and 8.");
  });

  test("with no line number at all, more than one match is an error", () => {
    const text = report({ f: twin }, hunk("@@", "   setup();", "-  run();", "+  go();"));
    expect(text).toContain("occur in 2 places (lines 2, 8), and nothing says which one is meant");
  });

  test("an exact match beats a nearer whitespace-insensitive one", () => {
    const f = lines("x = 1  ", "pad", "pad", "pad", "pad", "x = 1");
    expect(result({ f }, hunk("@@ -1 +1 @@", "-x = 1", "+x = 2"))).toEqual({ f: lines("x = 1  ", "pad", "pad", "pad", "pad", "x = 2") });
  });

  test("fuzzy levels in order: trailing whitespace, all outer whitespace, Unicode dashes and quotes", () => {
    const f = lines("keep  ", "\tindented", "it\u2019s \u201cquoted\u201d \u2014 ok", "end");
    const r = dry({ f }, hunk("@@ -1,4 +1,4 @@", " keep", "-  indented", "+  INDENTED", " it's \"quoted\" - ok", " end"));
    expect(r.ok && r.changes[0]!.after).toBe(lines("keep  ", "  INDENTED", "it\u2019s \u201cquoted\u201d \u2014 ok", "end"));
    expect(r.ok && r.notes).toEqual(["f, hunk 1 of 1 (@@ -1,4 +1,4 @@, patch line 3): matched ignoring whitespace and Unicode dash/quote/space differences."]);
  });

  test("wrong numbers: later hunks are hinted by how far the earlier ones moved", () => {
    const f = lines(...Array.from({ length: 60 }, (_, i) => (i % 10 === 5 ? "same" : `l${i}`)));
    // Hunk 1 is unique and 20 lines lower than its header says; hunk 2's "same" occurs every 10
    // lines, and its header (also 20 too low) picks the right one once shifted by hunk 1's offset.
    const p = ["--- a/f", "+++ b/f", "@@ -5,1 +5,2 @@", " l24", "+A", "@@ -16,1 +17,2 @@", " same", "+B"].join("\n");
    const r = dry({ f }, p);
    expect(r.ok && r.notes).toEqual([
      "f, hunk 1 of 2 (@@ -5,1 +5,2 @@, patch line 3): placed at line 25 (the header said 5).",
      "f, hunk 2 of 2 (@@ -16,1 +17,2 @@, patch line 6): placed at line 36 (the header said 16).",
    ]);
    const after = r.ok ? r.changes[0]!.after!.split("\n") : [];
    expect([after.indexOf("A"), after.indexOf("B")]).toEqual([25, 37]);
  });

  test("hunks must come in file order and must not overlap", () => {
    const f = lines("1", "2", "3", "4", "5");
    const text = report({ f }, ["--- a/f", "+++ b/f", "@@ -2,2 +2,2 @@", " 2", "-3", "+III", "@@ -3,2 +3,2 @@", " 3", "-4", "+IV"].join("\n"));
    expect(text).toContain("hunk 2 of 2");
    expect(text).toContain("its lines are at line 3, which is before the end of the previous hunk (line 3). Hunks must be in file order and must not overlap");
  });

  test("a pure addition is placed by its context, not appended", () => {
    const f = lines("a", "b", "c", "d");
    expect(result({ f }, hunk("@@ -90,2 +90,3 @@", " b", "+b2", " c"))).toEqual({ f: lines("a", "b", "b2", "c", "d") });
    expect(report({ f }, hunk("@@ -2,0 +3 @@", "+b2"))).toContain("has no context lines");
    // At the end it needs to say so: `*** End of File`.
    const eof = "*** Begin Patch\n*** Update File: f\n@@\n+e\n*** End of File\n*** End Patch\n";
    expect(result({ f }, eof)).toEqual({ f: lines("a", "b", "c", "d", "e") });
  });

  test("a hunk marked as the end of the file must match there", () => {
    const f = lines("}", "x", "}");
    const env = "*** Begin Patch\n*** Update File: f\n@@\n }\n+tail\n*** End of File\n*** End Patch\n";
    expect(result({ f }, env)).toEqual({ f: lines("}", "x", "}", "tail") });
    const g = lines("end", "more");
    expect(report({ f: g }, hunk("@@ -1 +1 @@", "-end", "+END", "\\ No newline at end of file"))).toContain(
      "its lines are at line 1, but the hunk says `\\ No newline at end of file`, so they must be the last lines of the file (it has 2)",
    );
  });

  test("a change already in the file is recognised as applied before", () => {
    const f = lines("a", "B", "c");
    expect(report({ f }, hunk("@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"))).toContain(
      "f, hunk 1 of 1 (@@ -1,3 +1,3 @@, patch line 3): its lines are not in the file, but its result (context and added lines) is, at line 1: this change seems to be applied already.",
    );
  });

  test("envelope @@ lines narrow the search and must exist", () => {
    const f = lines("class A:", "  x = 1", "class B:", "  x = 1");
    const env = (anchor: string) => `*** Begin Patch\n*** Update File: f\n@@ ${anchor}\n-  x = 1\n+  x = 2\n*** End Patch\n`;
    expect(result({ f }, env("class B:"))).toEqual({ f: lines("class A:", "  x = 1", "class B:", "  x = 2") });
    expect(report({ f }, env("class C:"))).toContain('could not find the line "class C:" named after @@');
  });
});

describe("line endings and the final newline", () => {
  test("CRLF files stay CRLF; mixed endings are kept line by line", () => {
    expect(result({ f: "a\r\nb\r\nc\r\n" }, hunk("@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"))).toEqual({ f: "a\r\nB\r\nc\r\n" });
    expect(result({ f: "a\r\nb\nc\r\nd\r\n" }, hunk("@@ -1,3 +1,4 @@", " a", " b", "+new", " c"))).toEqual({ f: "a\r\nb\nnew\r\nc\r\nd\r\n" });
  });

  test("the final newline follows the patch's markers, and stays as it is when the patch is silent", () => {
    const cases: [string, string[], string][] = [
      ["x\ny", [" x", "-y", "\\ No newline at end of file", "+y"], "x\ny\n"],
      ["x\ny\n", [" x", "-y", "+y", "\\ No newline at end of file"], "x\ny"],
      ["x\ny", ["-x", "+X", " y", "\\ No newline at end of file"], "X\ny"],
      ["x\ny", [" x", "-y", "+Y"], "x\nY"],
      ["x\ny\n", [" x", "-y", "+Y"], "x\nY\n"],
      ["x\r\ny", [" x", "-y", "\\ No newline at end of file", "+y"], "x\r\ny\r\n"],
    ];
    for (const [before, body, after] of cases) expect(result({ f: before }, hunk("@@ -1,2 +1,2 @@", ...body))).toEqual({ f: after });
  });

  test("removing the last line of a file without a final newline", () => {
    expect(result({ f: "a\nb" }, hunk("@@ -1,2 +1 @@", " a", "-b", "\\ No newline at end of file"))).toEqual({ f: "a\n" });
  });

  test("a byte-order mark survives and does not stop the first line matching", () => {
    expect(result({ f: "\uFEFFa\nb\n" }, hunk("@@ -1,2 +1,2 @@", "-a", "+A", " b"))).toEqual({ f: "\uFEFFA\nb\n" });
  });

  test("a new file from a CRLF diff is CRLF", () => {
    expect(result({}, "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+a\r\n+b\r\n")).toEqual({ n: "a\r\nb\r\n" });
  });
});

describe("files", () => {
  test("rename then edit under the new name, in one patch", () => {
    const env = "*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-1\n+2\n*** Update File: b\n@@\n-2\n+3\n*** End Patch\n";
    const r = dry({ a: "1\n" }, env);
    expect(r.ok && r.changes).toEqual([{ path: "b", from: "a", before: "1\n", after: "3\n" }]);
  });

  test("created and deleted in the same patch is no change at all", () => {
    const env = "*** Begin Patch\n*** Add File: t\n+x\n*** Delete File: t\n*** End Patch\n";
    expect(dry({}, env)).toEqual({ ok: true, changes: [], notes: [] });
  });

  test("missing files, existing new files and move targets each get their own message", () => {
    expect(report({}, hunk("@@ -1 +1 @@", "-a", "+b"))).toContain("f does not exist, but the patch changes it.");
    expect(report({ n: "x\n" }, "--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+y\n")).toContain("n already exists, but the patch creates it");
    expect(report({ a: "1\n", b: "2\n" }, "*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch\n")).toContain(
      "b already exists, so a cannot be renamed to it",
    );
  });

  test("every failing hunk of every file is reported, with the closest lines", () => {
    const f = lines("const a = 1;", "const b = 2;", "const c = 3;");
    const p = ["--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", " const a = 1;", "-const b = 20;", "+const b = 0;", "--- a/g", "+++ b/g", "@@ -1 +1 @@", "-zzz", "+y"].join("\n");
    expect(report({ f, g: "q\n" }, p)).toBe(
      [
        "The patch was not applied; nothing was written. 2 problems:",
        "",
        "1. f, hunk 1 of 1 (@@ -1,2 +1,2 @@, patch line 3): its lines are not in the file. Expected (the hunk's context and removed lines):",
        "     const a = 1;",
        "    -const b = 20;",
        'Closest lines in f (lines 1-2; "!" marks a line that differs from the hunk):',
        "    1 | const a = 1;",
        "  ! 2 | const b = 2;",
        '        ^ a word: the file has "2" where the hunk has "20"',
        "",
        "2. g, hunk 1 of 1 (@@ -1 +1 @@, patch line 9): its lines are not in the file. Expected (the hunk's context and removed lines):",
        "    -zzz",
        "No lines in g (1 line) look like these. Re-read the file and rebuild the hunk from its current content.",
        "",
        "Fix these and send the whole patch again (re-read a file if you are unsure of its content).",
      ].join("\n"),
    );
  });
});

// Where Codex's apply_patch (and opencode's port of it) differ on purpose from bunker.
describe("where bunker is stricter than its peers, and why that is safer", () => {
  test("no silent overwrite on Add: adding a file that exists is refused", () => {
    // Codex writes `*** Add File` over an existing file. A model that "adds" a file it never read
    // would erase the person's content without a diff of what was lost; refusing costs one retry.
    expect(report({ f: "precious\n" }, "*** Begin Patch\n*** Add File: f\n+new\n*** End Patch\n")).toContain("f already exists, but the patch creates it");
  });

  test("no silent overwrite on Move: moving onto an existing file is refused", () => {
    // Codex renames over the target; the target's content would vanish with no hunk showing it.
    expect(report({ a: "1\n", b: "keep me\n" }, "*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-1\n+2\n*** End Patch\n")).toContain(
      "b already exists, so a cannot be renamed to it",
    );
  });

  test("all-or-nothing: one hunk that does not apply stops every file in the patch", () => {
    // Codex applies file by file and stops at the first failure, leaving earlier files changed: the
    // model then patches a half-patched tree. Here the dry run places every hunk before anything is written.
    const r = dry({ a: "1\n", b: "2\n" }, "*** Begin Patch\n*** Update File: a\n-1\n+one\n*** Update File: b\n-20\n+two\n*** End Patch\n");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.map((p) => p.path)).toEqual(["b"]);
  });

  test("no pure-addition hunk appended at the end: added lines need context that says where", () => {
    // Codex appends a hunk with only `+` lines at the end of the file. When the model meant the
    // middle, the code lands in the wrong place and still "applies"; asking for context cannot misplace it.
    expect(report({ f: "a\nb\n" }, "*** Begin Patch\n*** Update File: f\n@@\n+c\n*** End Patch\n")).toContain(
      "the hunk only adds lines and has no context lines",
    );
    // With `*** End of File` the place is stated, and the lines go at the end.
    expect(result({ f: "a\nb\n" }, "*** Begin Patch\n*** Update File: f\n@@\n+c\n*** End of File\n*** End Patch\n")).toEqual({ f: "a\nb\nc\n" });
  });

  test("no first-of-several at a tolerant level: two loosely equal places are an error even with a line hint", () => {
    // Codex's seek_sequence takes the first place that matches after trimming; a line hint from a model
    // is often wrong, so a loose match must be unique before bunker edits there.
    const f = lines("if  a:", "  go()", "x", "if   a:", "  go()");
    expect(report({ f }, hunk("@@ -4,2 +4,2 @@", " if a:", "-  go()", "+  stop()"))).toContain(
      "the hunk's lines are not in the file exactly, and ignoring runs of whitespace inside lines they occur in 2 places (lines 1, 4)",
    );
  });
});
