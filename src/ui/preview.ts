// The block of the answer still being written, as plain rows for the live
// region: its last few rows, wrapped at the screen width, control characters
// escaped. It is asked for again after every delta, so the work per delta
// must not grow with the block or the line: complete lines are wrapped once,
// and of the line being written only its last row is wrapped again (rows
// before it are full and never change, which also keeps them from reflowing
// on screen while the line grows).
import { escapeControl } from "./escape.ts";
import type { MarkdownBlocks } from "./markdown.ts";

/** Rows of the open block shown under the transcript while it is written. */
export const PREVIEW_ROWS = 12;

export class BlockPreview {
  /** Which open block and width the rows below belong to. */
  private generation = -1;
  private cols = 0;
  /** Complete lines of the open block already wrapped into `rows`. */
  private lines = 0;
  /** The last rows of the complete lines. */
  private rows: string[] = [];
  /** The line being written. */
  private growing = new GrowingLine();

  /** The open block's last rows, each at most `cols` wide. */
  rowsFor(blocks: Pick<MarkdownBlocks, "openLines" | "partialLine" | "appended" | "generation">, cols: number): string[] {
    const { openLines, partialLine, appended, generation } = blocks;
    if (this.generation !== generation || this.cols !== cols) {
      this.generation = generation;
      this.cols = cols;
      this.lines = 0;
      this.rows = [];
      this.growing = new GrowingLine();
    }
    if (this.lines < openLines.length) {
      // Lines completed since the last call; the first of them is the one that was shown growing.
      for (; this.lines < openLines.length; this.lines++) {
        this.rows.push(...this.growing.rows(openLines[this.lines]!, cols));
        this.growing = new GrowingLine();
      }
      if (this.rows.length > PREVIEW_ROWS) this.rows = this.rows.slice(-PREVIEW_ROWS);
    }
    if (!partialLine) return this.rows;
    const rows = this.rows.concat(this.growing.rows(partialLine, cols, appended ?? undefined));
    return rows.length > PREVIEW_ROWS ? rows.slice(-PREVIEW_ROWS) : rows;
  }
}

/**
 * One line wrapped as it grows. Each call passes the whole line so far; only
 * what follows its last full row is wrapped again. The line is read only
 * where it grew (`added`, when the caller knows it): a line built by `+=`
 * is a rope, and reading all of it again for each delta would copy it each
 * time.
 */
export class GrowingLine {
  /** Full rows so far (the last PREVIEW_ROWS of them). */
  private full: string[] = [];
  /** Characters of the line read so far. */
  private seen = 0;
  /** What was read after the last full row. */
  private rest = "";
  /** An escaped character was read: rows no longer map one to one onto the text. */
  private escaped = false;
  /** `rest` is printable ASCII: its width is its length. */
  private ascii = true;

  /** `added`: the end of `line` that arrived since the last call, when the caller knows it. */
  rows(line: string, cols: number, added?: string): string[] {
    const fresh = added !== undefined && this.seen + added.length === line.length ? added : line.slice(this.seen);
    this.seen = line.length;
    this.rest += fresh;
    this.ascii &&= PRINTABLE_ASCII.test(fresh);
    // Most calls: the text after the last full row still fits in one row.
    if (this.ascii && !this.escaped && this.rest.length <= cols) return this.full.length === 0 ? [this.rest] : this.full.concat(this.rest);
    if (!this.escaped && escapeControl(fresh, { keepTabs: true }) !== fresh) this.escaped = true;
    if (this.escaped) {
      // Rare (model text with control characters): wrap the line's tail afresh for each call.
      if (this.rest.length <= PREVIEW_ROWS * cols) return this.full.concat(wrapPlain(this.rest, cols)).slice(-PREVIEW_ROWS);
      this.rest = this.rest.slice(-PREVIEW_ROWS * cols);
      this.full = [];
      return wrapPlain(this.rest, cols).slice(-PREVIEW_ROWS);
    }
    const rows = wrapPlain(this.rest, cols, true);
    if (rows.length > 1 && rows.reduce((n, r) => n + r.length, 0) !== this.rest.length) {
      // Not one to one after all (a wrapper that drops a character): wrap afresh from here on.
      this.escaped = true;
      return this.rows(line, cols);
    }
    if (rows.length > 1) {
      // Every row but the last is followed by more text: it is full and stays as it is.
      const last = rows[rows.length - 1]!;
      this.rest = last;
      this.ascii = PRINTABLE_ASCII.test(last);
      this.full.push(...rows.slice(0, -1));
      if (this.full.length > PREVIEW_ROWS) this.full = this.full.slice(-PREVIEW_ROWS);
      return this.full.concat(last);
    }
    return this.full.length === 0 ? rows : this.full.concat(rows[0]!);
  }
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Model text as plain rows of at most `cols` columns, control characters
 * escaped (`escaped`: the caller made sure there are none); the rows joined
 * are the escaped text.
 */
export function wrapPlain(text: string, cols: number, escaped = false): string[] {
  if (!PRINTABLE_ASCII.test(text)) {
    const safe = escaped ? text : escapeControl(text, { keepTabs: true });
    // The line being written is mostly shorter than a row: measuring is cheaper than wrapping.
    if (Bun.stringWidth(safe) <= cols) return [safe];
    return Bun.wrapAnsi(safe, cols, { hard: true, trim: false }).split("\n");
  }
  // The common case, done cheaply: break after the last space that fits, or mid-word when none does.
  const rows: string[] = [];
  let rest = text;
  while (rest.length > cols) {
    const space = rest.lastIndexOf(" ", cols - 1);
    const cut = space > 0 ? space + 1 : cols;
    rows.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  rows.push(rest);
  return rows;
}
