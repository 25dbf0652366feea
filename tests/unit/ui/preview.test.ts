// The open block's plain preview: what the person sees of the block being
// written, after every delta, at most PREVIEW_ROWS rows no wider than the screen.
import { describe, expect, test } from "bun:test";
import { MarkdownBlocks } from "../../../src/ui/markdown.ts";
import { BlockPreview, GrowingLine, PREVIEW_ROWS, wrapPlain } from "../../../src/ui/preview.ts";

/** `text` in deltas of `size` characters (whole code points, as the API sends them; a grapheme may be split). */
function deltas(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/** Feeds `text` in deltas of `size` and returns the text so far and the preview after each one. */
function stream(text: string, size: number, cols: number): { so: string; rows: string[] }[] {
  const blocks = new MarkdownBlocks();
  const preview = new BlockPreview();
  const shown: { so: string; rows: string[] }[] = [];
  let so = "";
  for (const delta of deltas(text, size)) {
    blocks.push(delta);
    so += delta;
    shown.push({ so, rows: preview.rowsFor(blocks, cols) });
  }
  return shown;
}

const words = "the quick brown fox jumps over a lazy dog while an extraordinarily-long-hyphenated-identifier-goes-by ";

describe("BlockPreview", () => {
  test("a line growing delta by delta shows the same rows as the whole line wrapped at once", () => {
    const line = words.repeat(40);
    for (const size of [1, 7, 16, 64]) {
      const blocks = new MarkdownBlocks();
      const preview = new BlockPreview();
      for (let i = 0; i < line.length; i += size) {
        blocks.push(line.slice(i, i + size));
        const so = line.slice(0, i + size);
        expect(preview.rowsFor(blocks, 30)).toEqual(wrapPlain(so, 30).slice(-PREVIEW_ROWS));
      }
    }
  });

  test("rows are never wider than the screen, and the last ones end with the text written so far (wide and combined characters too)", () => {
    const text = "漢字かなまじり文 — “quoted” → café, naïve 👍🏽 family 👨‍👩‍👧 ".repeat(30);
    const cols = 23;
    for (const { so, rows } of stream(text, 5, cols)) {
      expect(rows.length).toBeLessThanOrEqual(PREVIEW_ROWS);
      for (const row of rows) expect(Bun.stringWidth(row)).toBeLessThanOrEqual(cols);
      expect(so.endsWith(rows.join(""))).toBe(true);
    }
  });

  test("a full row never changes while the line goes on (no reflow on screen)", () => {
    // Numbered words: no two rows are alike.
    const text = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ");
    const shown = stream(text, 3, 25).map((s) => s.rows);
    for (let i = 1; i < shown.length; i++) {
      const full = shown[i - 1]!.slice(0, -1);
      const now = shown[i]!;
      // Every full row shown before is still shown, as it was, unless it scrolled off the top.
      const kept = full.filter((row) => now.includes(row));
      expect(kept).toEqual(full.slice(full.length - kept.length));
      expect(now.slice(0, kept.length)).toEqual(kept);
      expect(full.length - kept.length).toBeLessThanOrEqual(1);
    }
  });

  test("complete lines and the line being written; a finished block starts the preview afresh", () => {
    const blocks = new MarkdownBlocks();
    const preview = new BlockPreview();
    blocks.push("- one\n- tw");
    expect(preview.rowsFor(blocks, 40)).toEqual(["- one", "- tw"]);
    blocks.push("o\n- three");
    expect(preview.rowsFor(blocks, 40)).toEqual(["- one", "- two", "- three"]);
    blocks.push("\n\nNext");
    expect(preview.rowsFor(blocks, 40)).toEqual(["Next"]);
    // A resize wraps again at the new width.
    blocks.push(" paragraph here");
    expect(preview.rowsFor(blocks, 10)).toEqual(["Next ", "paragraph ", "here"]);
  });

  test("control characters are shown escaped, in the growing line as in complete ones", () => {
    const blocks = new MarkdownBlocks();
    const preview = new BlockPreview();
    blocks.push("safe \x1b[31mred\x07 and \u202eevil");
    const rows = preview.rowsFor(blocks, 80);
    expect(rows.join("")).toBe("safe \\x1b[31mred\\x07 and \\u202eevil");
    blocks.push(" more\nnext \x1b]52;c;AAAA\x07");
    expect(preview.rowsFor(blocks, 80)).toEqual(["safe \\x1b[31mred\\x07 and \\u202eevil more", "next \\x1b]52;c;AAAA\\x07"]);
    for (const row of preview.rowsFor(blocks, 80)) expect(row).not.toMatch(/[\x00-\x1f\x7f\u202e]/);
  });
});

describe("GrowingLine", () => {
  test("reads only what the caller says was added, and the whole line when it does not say", () => {
    const g = new GrowingLine();
    expect(g.rows("abc", 10)).toEqual(["abc"]);
    expect(g.rows("abcdef", 10, "def")).toEqual(["abcdef"]);
    // `added` that does not match the line's growth is not trusted.
    expect(g.rows("abcdefghi jkl", 10, "zz")).toEqual(["abcdefghi ", "jkl"]);
  });
});
