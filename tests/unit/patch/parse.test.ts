import { describe, expect, test } from "bun:test";
import { parseEnvelopeText } from "../../../src/patch/envelope.ts";
import { parsePatch, parseUnifiedDiff } from "../../../src/patch/parse.ts";
import { PatchSyntaxError, type FilePatch } from "../../../src/patch/types.ts";
import { thrown } from "../../support/thrown.ts";

/** The parts of a FilePatch a reader cares about, in a compact form. */
function shape(fps: FilePatch[]) {
  return fps.map((f) => ({
    op: f.op,
    path: f.path,
    moveTo: f.moveTo,
    hunks: f.hunks.map((h) => h.lines.map((l) => l.op + l.text)),
  }));
}

const syntaxError = (fn: () => unknown) => thrown(fn, PatchSyntaxError);

describe("unified diff", () => {
  test("git diff with several files, prefixes stripped, numbers kept as hints", () => {
    const fps = parseUnifiedDiff(
      [
        "diff --git a/src/a.ts b/src/a.ts",
        "index 1111111..2222222 100644",
        "--- a/src/a.ts",
        "+++ b/src/a.ts",
        "@@ -10,3 +10,3 @@ function f() {",
        " one",
        "-two",
        "+TWO",
        " three",
        "@@ -40,2 +40,3 @@",
        " x",
        "+y",
        " z",
        "diff --git a/b.txt b/b.txt",
        "--- a/b.txt",
        "+++ b/b.txt",
        "@@ -1 +1 @@",
        "-b",
        "+B",
        "",
      ].join("\n"),
    );
    expect(shape(fps)).toEqual([
      { op: "update", path: "src/a.ts", moveTo: undefined, hunks: [[" one", "-two", "+TWO", " three"], [" x", "+y", " z"]] },
      { op: "update", path: "b.txt", moveTo: undefined, hunks: [["-b", "+B"]] },
    ]);
    expect(fps[0]!.hunks.map((h) => [h.oldStart, h.header, h.line])).toEqual([
      [10, "@@ -10,3 +10,3 @@ function f() {", 5],
      [40, "@@ -40,2 +40,3 @@", 10],
    ]);
  });

  test("paths without prefixes, /dev/null for created and deleted files, ./ dropped", () => {
    const fps = parseUnifiedDiff(
      ["--- /dev/null", "+++ ./new.txt", "@@ -0,0 +1 @@", "+hi", "--- old.txt", "+++ /dev/null", "@@ -1 +0,0 @@", "-bye"].join("\n"),
    );
    expect(shape(fps)).toEqual([
      { op: "add", path: "new.txt", moveTo: undefined, hunks: [["+hi"]] },
      { op: "delete", path: "old.txt", moveTo: undefined, hunks: [["-bye"]] },
    ]);
  });

  test("a real directory named a/ is kept when the other side has no b/ prefix", () => {
    const fps = parseUnifiedDiff(["--- a/x.txt", "+++ a/x.txt", "@@ -1 +1 @@", "-1", "+2"].join("\n"));
    expect(fps[0]!.path).toBe("a/x.txt");
  });

  test("diff -u timestamps are not part of the path", () => {
    const fps = parseUnifiedDiff(["--- my file.c\t2024-05-01 10:00:00 +0200", "+++ my file.c\t2024-05-02 10:00:00 +0200", "@@ -1 +1 @@", "-a", "+b"].join("\n"));
    expect(fps[0]!.path).toBe("my file.c");
  });

  test("git rename with edits, pure rename, new file mode, empty deleted file, quoted names", () => {
    const fps = parseUnifiedDiff(
      [
        "diff --git a/lib/util.js b/lib/math.js",
        "similarity index 80%",
        "rename from lib/util.js",
        "rename to lib/math.js",
        "--- a/lib/util.js",
        "+++ b/lib/math.js",
        "@@ -1 +1 @@",
        "-a",
        "+b",
        "diff --git a/x b/y",
        "similarity index 100%",
        "rename from x",
        "rename to y",
        "diff --git a/run.sh b/run.sh",
        "new file mode 100755",
        "--- /dev/null",
        "+++ b/run.sh",
        "@@ -0,0 +1 @@",
        "+echo hi",
        "diff --git a/empty b/empty",
        "deleted file mode 100644",
        "index e69de29..0000000",
        'diff --git "a/sp\\303\\251cial \\"q\\".txt" "b/sp\\303\\251cial \\"q\\".txt"',
        'new file mode 100644',
        "--- /dev/null",
        '+++ "b/sp\\303\\251cial \\"q\\".txt"',
        "@@ -0,0 +1 @@",
        "+é",
      ].join("\n"),
    );
    expect(shape(fps)).toEqual([
      { op: "update", path: "lib/util.js", moveTo: "lib/math.js", hunks: [["-a", "+b"]] },
      { op: "update", path: "x", moveTo: "y", hunks: [] },
      { op: "add", path: "run.sh", moveTo: undefined, hunks: [["+echo hi"]] },
      { op: "delete", path: "empty", moveTo: undefined, hunks: [] },
      { op: "add", path: 'spécial "q".txt', moveTo: undefined, hunks: [["+é"]] },
    ]);
    expect(fps[2]!.mode).toBe(0o755);
  });

  test("a new file's mode is only ever 644 or 755: set-uid, sticky, world-writable and symlink modes are not honoured", () => {
    const modeOf = (mode: string) =>
      parseUnifiedDiff(["diff --git a/f b/f", `new file mode ${mode}`, "--- /dev/null", "+++ b/f", "@@ -0,0 +1 @@", "+x"].join("\n"))[0]!.mode;
    expect(modeOf("104777")).toBe(0o755);
    expect(modeOf("100666")).toBe(0o644);
    expect(modeOf("102644")).toBe(0o644);
    expect(modeOf("120000")).toBe(0o644);
    expect(modeOf("100644")).toBe(0o644);
  });

  test("`\\ No newline at end of file` belongs to the side of the line before it", () => {
    const [old, both, neu] = parseUnifiedDiff(
      [
        "--- a/1", "+++ b/1", "@@ -1 +1 @@", "-x", "\\ No newline at end of file", "+x",
        "--- a/2", "+++ b/2", "@@ -1,2 +1,2 @@", "-a", "+A", " x", "\\ No newline at end of file",
        "--- a/3", "+++ b/3", "@@ -1 +1 @@", "-x", "+y", "\\ No newline at end of file",
      ].join("\n"),
    ).map((f) => f.hunks[0]!);
    expect([old!.oldNoNewline, old!.newNoNewline]).toEqual([true, false]);
    expect([both!.oldNoNewline, both!.newNoNewline]).toEqual([true, true]);
    expect([neu!.oldNoNewline, neu!.newNoNewline]).toEqual([false, true]);
  });

  test("wrong counts do not cut a hunk short or make it swallow the next file", () => {
    const fps = parseUnifiedDiff(
      ["--- a/f", "+++ b/f", "@@ -1,1 +1,1 @@", " a", "-b", "+B", " c", " d", "--- a/g", "+++ b/g", "@@ -1,9 +1,9 @@", "-g", "+G"].join("\n"),
    );
    expect(shape(fps).map((f) => f.hunks)).toEqual([[[" a", "-b", "+B", " c", " d"]], [["-g", "+G"]]]);
  });

  test("`--- ` and `+++ ` lines inside a hunk are removed/added lines while the counts say so", () => {
    const fps = parseUnifiedDiff(["--- a/q.sql", "+++ b/q.sql", "@@ -1,2 +1,2 @@", "--- old comment", "+++ new comment", " select 1;"].join("\n"));
    expect(shape(fps)[0]!.hunks).toEqual([["--- old comment", "+++ new comment", " select 1;"]]);
  });

  test("bare blank lines are empty context inside a hunk and dropped at its end; git's signature is not a line", () => {
    const fps = parseUnifiedDiff(
      [
        ...["--- a/f", "+++ b/f", "@@ -1,3 +1,3 @@", " a", "", "-b", "+B", "", ""],
        ...["--- a/g", "+++ b/g", "@@ -1,4 +1,4 @@", " a", "", "-b", "+B", " c", "-- ", "2.39.0", ""],
      ].join("\n"),
    );
    expect(shape(fps).map((f) => f.hunks)).toEqual([[[" a", " ", "-b", "+B"]], [[" a", " ", "-b", "+B", " c"]]]);
  });

  test("text before, between and after the diff (commit message, fences) is ignored", () => {
    const fps = parsePatch(["Fix the thing.", "```diff", "--- a/f", "+++ b/f", "@@ -1 +1 @@", "-a", "+b", "```", ""].join("\n"));
    expect(shape(fps)).toEqual([{ op: "update", path: "f", moveTo: undefined, hunks: [["-a", "+b"]] }]);
  });

  test("CRLF patch lines are read without their \\r, which is remembered", () => {
    const fps = parseUnifiedDiff("--- a/f\r\n+++ b/f\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n");
    expect(fps[0]!.path).toBe("f");
    expect(fps[0]!.hunks[0]!.lines).toEqual([
      { op: "-", text: "a", cr: true },
      { op: "+", text: "b", cr: true },
    ]);
  });

  test("malformed input is reported with the line number of the bad line", () => {
    expect(syntaxError(() => parseUnifiedDiff("@@ -1 +1 @@\n-a\n+b\n")).line).toBe(1);
    const mid = syntaxError(() => parseUnifiedDiff("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\nno prefix here\n-c\n+C\n"));
    expect([mid.line, mid.reason]).toEqual([5, 'expected a hunk line starting with " " (context), "-" (removed), "+" (added) or "\\", got "no prefix here"']);
    expect(syntaxError(() => parseUnifiedDiff("diff --git a/i b/i\nindex 1..2 100644\nBinary files a/i and b/i differ\n")).line).toBe(3);
    expect(syntaxError(() => parseUnifiedDiff("diff --git a/i b/j\ncopy from i\ncopy to j\n")).line).toBe(2);
    expect(syntaxError(() => parseUnifiedDiff("--- a/f\n+++ b/f\n@@ @@\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n")).reason).toContain("has no lines");
    expect(syntaxError(() => parseUnifiedDiff("--- a/f\n@@ -1 +1 @@\n-a\n")).line).toBe(2);
    expect(syntaxError(() => parseUnifiedDiff("--- a/f\n+++ b/f\n")).reason).toContain("expected an @@ hunk header");
    // Hunk lines without their @@ line are never skipped silently.
    const noAt = syntaxError(() => parseUnifiedDiff("diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n a\n-b\n+c\n"));
    expect([noAt.line, noAt.reason]).toEqual([5, "expected an @@ hunk header after the `---`/`+++` file header"]);
    expect(syntaxError(() => parseUnifiedDiff("--- /dev/null\n+++ b/new\n+a\n")).line).toBe(3);
    const garbage = syntaxError(() => parsePatch("\n\nhello there\n"));
    expect([garbage.line, garbage.reason.startsWith("no file changes found")]).toEqual([3, true]);
  });

  test("an empty patch parses to nothing", () => {
    expect(parsePatch("")).toEqual([]);
    expect(parsePatch("\n \n")).toEqual([]);
  });
});

describe("*** Begin Patch envelope", () => {
  test("add, delete, update with move, stacked @@ anchors, end of file", () => {
    const fps = parseEnvelopeText(
      [
        "*** Begin Patch",
        "*** Add File: docs/a.md",
        "+# A",
        "",
        "+text",
        "*** Delete File: old.txt",
        "*** Update File: src/m.py",
        "*** Move to: src/n.py",
        "@@ class B:",
        "@@     def run(self):",
        "-        return 1",
        "+        return 2",
        "@@",
        " tail",
        "+more",
        "*** End of File",
        "*** End Patch",
        "ignored after the end",
      ].join("\n"),
    );
    expect(shape(fps)).toEqual([
      { op: "add", path: "docs/a.md", moveTo: undefined, hunks: [["+# A", "+", "+text"]] },
      { op: "delete", path: "old.txt", moveTo: undefined, hunks: [] },
      { op: "update", path: "src/m.py", moveTo: "src/n.py", hunks: [["-        return 1", "+        return 2"], [" tail", "+more"]] },
    ]);
    const [h1, h2] = fps[2]!.hunks;
    expect(h1!.anchors).toEqual(["class B:", "def run(self):"]);
    expect([h1!.atEof, h2!.atEof, h2!.anchors]).toEqual([false, true, []]);
  });

  test("a first hunk without @@, a unified-style @@ header as a line hint, text before the envelope", () => {
    const fps = parsePatch(
      ["apply_patch <<'EOF'", "*** Begin Patch", "*** Update File: f", " a", "-b", "+B", "@@ -20,3 +20,3 @@", " x", "-y", "+Y", "*** End Patch", "EOF"].join("\n"),
    );
    expect(shape(fps)[0]!.hunks).toEqual([[" a", "-b", "+B"], [" x", "-y", "+Y"]]);
    expect(fps[0]!.hunks.map((h) => [h.oldStart, h.anchors])).toEqual([[undefined, []], [20, []]]);
  });

  test("malformed envelopes name the bad line", () => {
    const cut = syntaxError(() => parsePatch("*** Begin Patch\n*** Update File: f\n-a\n+b\n"));
    expect([cut.line, cut.reason]).toEqual([5, "the patch ends without `*** End Patch` (was it cut off?)"]);
    expect(syntaxError(() => parsePatch("*** Begin Patch\n*** Add File: f\nno plus\n*** End Patch\n")).line).toBe(3);
    expect(syntaxError(() => parsePatch("*** Begin Patch\n*** Frobnicate File: f\n*** End Patch\n")).line).toBe(2);
    expect(syntaxError(() => parsePatch("*** Begin Patch\n*** Update File: f\n*** End Patch\n")).reason).toContain("has no changes");
    expect(syntaxError(() => parsePatch("*** Begin Patch\n*** Update File: f\n*** End of File\n*** End Patch\n")).line).toBe(3);
    expect(syntaxError(() => parsePatch("*** Begin Patch\n*** Update File: f\n-a\n*** Move to: g\n*** End Patch\n")).line).toBe(4);
    expect(syntaxError(() => parsePatch("*** Begin Patch\n*** Delete File:\n*** End Patch\n")).line).toBe(2);
  });

  test("a unified diff whose lines mention the envelope stays a unified diff", () => {
    const fps = parsePatch("--- a/doc.md\n+++ b/doc.md\n@@ -1,2 +1,2 @@\n *** Begin Patch\n-old\n+new\n");
    expect(shape(fps)[0]!.hunks).toEqual([[" *** Begin Patch", "-old", "+new"]]);
  });
});

// The envelope cases models produce every day that bunker used to reject (issue 16, "Why").
describe("why: envelopes that were refused", () => {
  test("a blank line after `*** End of File` (before `*** End Patch` or the next `*** Update File`) is not an empty hunk", () => {
    const fps = parsePatch(
      ["*** Begin Patch", "*** Update File: a", "@@", " x", "+y", "*** End of File", "", "*** Update File: b", "-1", "+2", "*** End of File", "  ", "", "*** End Patch"].join("\n"),
    );
    expect(shape(fps)).toEqual([
      { op: "update", path: "a", moveTo: undefined, hunks: [[" x", "+y"]] },
      { op: "update", path: "b", moveTo: undefined, hunks: [["-1", "+2"]] },
    ]);
    expect(fps.map((f) => f.hunks[0]!.atEof)).toEqual([true, true]);
  });

  test("an indented `*** Update File: x` line inside a hunk is context, not a new file section", () => {
    // The file being patched documents patches: its lines, with the context prefix, look like markers.
    const fps = parsePatch(
      ["*** Begin Patch", "*** Update File: docs/patches.md", "@@ Example:", "  *** Update File: x", " +added", "-old", "+new", "*** End Patch"].join("\n"),
    );
    expect(shape(fps)).toEqual([{ op: "update", path: "docs/patches.md", moveTo: undefined, hunks: [["  *** Update File: x", " +added", "-old", "+new"]] }]);
  });

  test("marker-looking lines prefixed with +, - or a space are content, and `*** End of File` likewise", () => {
    const fps = parsePatch(
      ["*** Begin Patch", "*** Update File: f", " *** End Patch", "-*** Delete File: g", "+*** Add File: h", " *** End of File", "*** End Patch"].join("\n"),
    );
    expect(shape(fps)[0]!.hunks).toEqual([[" *** End Patch", "-*** Delete File: g", "+*** Add File: h", " *** End of File"]]);
    expect(fps[0]!.hunks[0]!.atEof).toBe(false);
  });

  test("blank lines between sections, after `*** Begin Patch` and before the first hunk are spacing", () => {
    const fps = parsePatch(["*** Begin Patch", "", "*** Add File: n", "+x", "", "", "*** Update File: f", "", "@@", "-a", "+b", "", "*** Delete File: d", "", "*** End Patch"].join("\n"));
    expect(shape(fps)).toEqual([
      { op: "add", path: "n", moveTo: undefined, hunks: [["+x"]] },
      { op: "update", path: "f", moveTo: undefined, hunks: [["-a", "+b"]] },
      { op: "delete", path: "d", moveTo: undefined, hunks: [] },
    ]);
  });

  test("a real `@@` with nothing after it is still an empty hunk", () => {
    expect(syntaxError(() => parsePatch("*** Begin Patch\n*** Update File: f\n@@\n\n*** End Patch\n")).reason).toContain("empty `@@` hunk");
  });
});
