// How the live region writes a line without its cursor ever passing the
// narrowest screen's edge (see LiveRegion's drawBottomUp): the line is put in
// at its row's start in insert mode, a piece at a time from its end, each
// piece narrower than MIN_COLUMNS, the cursor back at column 0 after each.
// A frame is drawn for every few tokens of an answer and the line being
// written changes in each, so the common case is kept cheap: a line of
// characters one code unit each (ASCII, Latin, Greek, Cyrillic, punctuation,
// CJK) is cut at code-unit offsets without the grapheme tables, and the
// growing line reuses the pieces it had (pieces are counted from the line's
// start, so a longer line keeps every piece but its last).

/** The narrowest screen the region is drawn for (a narrower one is treated as this wide). */
export const MIN_COLUMNS = 20;
/** Columns put in at a time: the cursor ends a piece short of the narrowest screen's edge. */
const PIECE = MIN_COLUMNS - 1;

/** Insert mode (what is written pushes the rest of the row right) and back to replace mode. */
const INSERT = "\x1b[4h";
const REPLACE = "\x1b[4l";
/** A blank row put in at the cursor's row, pushing the rows below it down. */
const INSERT_LINE = "\x1b[L";

export class RowInserts {
  /** The last frame's lines, their codes, and what was written after its last line's (the other lines bottom-up). */
  private texts: readonly string[] = [];
  private codes: string[] = [];
  private above = "";
  /** The last line cut on the fast path: its text before its last piece, and the code of the pieces in that text. */
  private lastPrefix = "";
  private lastRest = "";

  /**
   * The bytes that put `lines` (each one row, already fitted to the screen) in at the cursor's row, bottom-up: each
   * line put in, then a blank row inserted above it for the next; the cursor at column 0 after.
   */
  frame(lines: readonly string[]): string {
    const n = lines.length;
    // Most frames: only the last line changed (the answer's row being written). The rest is what was written last time.
    let same = 0;
    while (same < n - 1 && this.texts[same] === lines[same]) same++;
    const reuse = same === n - 1 && this.texts.length === n;
    const codes: string[] = [];
    for (let i = 0; i < n; i++) {
      const line = lines[i]!;
      // A line the last frame had, in the same row or a row lower (the preview scrolled up by one).
      if (this.texts[i] === line) codes.push(this.codes[i]!);
      else if (this.texts[i + 1] === line) codes.push(this.codes[i + 1]!);
      else codes.push(this.fast(line) ?? (displayWidth(line) < MIN_COLUMNS ? `\r${line}\r` : INSERT + backwards(line) + REPLACE));
    }
    let above = reuse ? this.above : "";
    if (!reuse) for (let i = n - 2; i >= 0; i--) above += INSERT_LINE + codes[i];
    this.texts = lines;
    this.codes = codes;
    this.above = flat(above);
    return codes[n - 1] + above;
  }

  /** A line of one-code-unit characters only: its pieces cut by offset; undefined for any other line. */
  private fast(line: string): string | undefined {
    // A line that grew from the last one keeps that one's pieces: only what follows them is cut.
    const reuse = this.lastPrefix.length > 0 && line.startsWith(this.lastPrefix);
    const from = reuse ? this.lastPrefix.length : 0;
    let rest = reuse ? this.lastRest : "";
    let start = from;
    let width = 0;
    let total = 0;
    for (let i = from; i < line.length; i++) {
      const w = cellWidth(line.charCodeAt(i));
      if (w === 0) return undefined;
      if (width + w > PIECE) {
        rest = line.slice(start, i) + "\r" + rest;
        start = i;
        width = 0;
      }
      width += w;
      total += w;
    }
    if (!reuse && total < MIN_COLUMNS) return `\r${line}\r`;
    if (start !== from || !reuse) {
      this.lastPrefix = line.slice(0, start);
      this.lastRest = flat(rest);
    }
    return INSERT + "\r" + line.slice(start) + "\r" + rest + REPLACE;
  }
}

/**
 * Cells a code unit takes when it is a whole character that never joins the next one into a grapheme: printable
 * ASCII, Latin-1 (not the soft hyphen), Latin Extended, Greek and Cyrillic letters, punctuation, arrows, box
 * drawing (1); CJK punctuation, kana, ideographs, Hangul syllables, full-width forms (2). Anything else (a
 * combining mark, a surrogate half, a control or escape character): 0, for the general path.
 */
function cellWidth(c: number): number {
  if (c >= 0x20 && c <= 0x7e) return 1;
  if (c < 0xa0) return 0;
  if (c <= 0x2ff) return c === 0xad ? 0 : 1;
  if (c >= 0x370 && c <= 0x482) return 1;
  if ((c >= 0x2010 && c <= 0x2027) || (c >= 0x2030 && c <= 0x205e) || (c >= 0x2190 && c <= 0x21ff) || (c >= 0x2500 && c <= 0x259f)) return 1;
  if ((c >= 0x3000 && c <= 0x3029) || (c >= 0x3041 && c <= 0x3096) || (c >= 0x30a0 && c <= 0x30ff)) return 2;
  if ((c >= 0x4e00 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xff01 && c <= 0xff60)) return 2;
  return 0;
}

/** A colour or style sequence, or the text up to the next one. */
const SGR_OR_TEXT = /\x1b\[[0-9;]*m|(?:[^\x1b]|\x1b(?!\[[0-9;]*m))+/g;
const PLAIN = /^[\x20-\x7e]*$/;
let graphemes: Intl.Segmenter | undefined;

/**
 * `line` put in from its end, a piece at a time at the row's start, each piece narrower than the narrowest screen
 * (so the cursor, which ends a piece where it ends, never reaches a column a re-wrap could move to another row), and
 * back to the row's start after each ("\r"). Each piece carries its colours; a character is a whole grapheme (an
 * emoji, a letter with its accents), never split. The general path, for lines with colours or other characters.
 */
export function backwards(line: string): string {
  const cells: { style: string; text: string; width: number }[] = [];
  let style = "";
  for (const [piece] of line.matchAll(SGR_OR_TEXT)) {
    if (/^\x1b\[[0-9;]*m$/.test(piece)) style = piece === "\x1b[m" || piece === "\x1b[0m" ? "" : style + piece;
    else if (PLAIN.test(piece)) for (const ch of piece) cells.push({ style, text: ch, width: 1 });
    else for (const { segment } of (graphemes ??= new Intl.Segmenter()).segment(piece)) cells.push({ style, text: segment, width: Bun.stringWidth(segment) });
  }
  let out = "\r";
  for (let end = cells.length; end > 0; ) {
    let start = end;
    let width = 0;
    while (start > 0 && width + cells[start - 1]!.width <= PIECE) width += cells[--start]!.width;
    if (start === end) start--; // a cell wider than a piece (none is): put in alone
    let current = "";
    for (let i = start; i < end; i++) {
      const cell = cells[i]!;
      if (cell.style !== current) {
        out += "\x1b[0m" + cell.style;
        current = cell.style;
      }
      out += cell.text;
    }
    out += (current ? "\x1b[0m" : "") + "\r";
    end = start;
  }
  return out;
}

/**
 * `s` made one flat string now. JavaScriptCore keeps `a + b` as a rope, and writing a frame flattens the frame's
 * rope but not the ropes inside it: a remembered code left a rope is walked again in every frame that holds it
 * (measured: 3.6 of the 4.5 ms a 20 KB answer's frames took to write). Searching a string resolves it in place.
 */
function flat(s: string): string {
  s.indexOf("\0");
  return s;
}

/** Columns a line takes; plain ASCII (most lines) without a call into the width tables. */
export function displayWidth(text: string): number {
  return PLAIN.test(text) ? text.length : Bun.stringWidth(text);
}
