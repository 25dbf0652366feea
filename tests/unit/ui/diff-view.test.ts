import { describe, expect, test } from "bun:test";
import { makeFilePreview } from "../../../src/diff/preview.ts";
import { renderFileChange, renderFileChanges } from "../../../src/ui/diff-view.ts";
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
    const text = renderFileChange(makeFilePreview("min.js", null, "x".repeat(5000)), { color: false, maxLineLength: 100 }).join("\n");
    const cut = text.split("\n")[2]!;
    expect(cut).toMatch(/^\+x+… \(\d+ more characters\)$/);
    // The note counts towards the width: the line is no longer than asked.
    expect(cut.length).toBeLessThanOrEqual(100 + 1);
    expect(cut.length - cut.replace(/x/g, "").length + Number(/(\d+) more/.exec(cut)![1])).toBe(5000);
  });
});

describe("escapeControl", () => {
  test("makes every control visible and leaves ordinary text alone", () => {
    expect(escapeControl("a\tb\nc\rd\x1b[31me\x7f\x9b\u2028\ufeff")).toBe("a\\tb\\nc\\rd\\x1b[31me\\x7f\\x9b\\u2028\\ufeff");
    expect(escapeControl("héllo wörld ✓ 日本")).toBe("héllo wörld ✓ 日本");
    expect(escapeControl("a\nb\tc", { keepNewlines: true, keepTabs: true })).toBe("a\nb\tc");
  });
});
