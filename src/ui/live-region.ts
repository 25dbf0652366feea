// The bottom of the terminal that is redrawn in place: the block of the answer
// still being written, the input line, the status line. Everything else is
// printed above it with `print` and scrolls into the transcript as usual, so
// what is in the region never does. The region is never taller than the
// screen (relative cursor moves cannot reach rows scrolled away).
import pc from "./colors.ts";
import { displayWidth, MIN_COLUMNS, RowInserts } from "./row-inserts.ts";

export interface RegionOutput {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
}

export interface RegionCursor {
  /** Index into the part's lines. */
  line: number;
  /** Display width of the text before the cursor on that line. */
  col: number;
}

interface Part {
  lines: string[];
  cursor?: RegionCursor;
  /** The caller made every line narrower than a screen this wide: no need to measure or cut them at that width. */
  fitsFor?: number;
}

export interface SetOptions {
  cursor?: RegionCursor;
  /** Draw within a frame rather than now (text that streams fast). */
  later?: boolean;
  /** Every line is already narrower than the screen (wrapped by the caller). */
  fits?: boolean;
}

export class LiveRegion {
  private readonly parts = new Map<string, Part>();
  /** Physical row, counted from the region's top, where the terminal cursor is. */
  private cursorRow = 0;
  private drawn = false;
  private hidden = false;
  /** What was printed while hidden, in order. */
  private readonly held: string[] = [];
  /** A frame is due (set with `later`): parts changed since the last draw. */
  private timer: ReturnType<typeof setTimeout> | undefined;
  private dirty = false;
  private readonly fitted = new Map<string, { text: string; width: number }>();
  private readonly inserts = new RowInserts();
  private fittedFor = 0;
  /** The lines on screen as last drawn, and where the cursor was put among them. */
  private shown: string[] = [];
  private cursorKey = "";
  /** The width the region was last drawn for, and the cursor's place as (line, columns into it). */
  private drawnCols = 0;
  private cursorAt = { line: 0, offset: 0 };

  /** `order`: the parts from top to bottom, e.g. ["preview", "input", "status"]. */
  constructor(
    private readonly out: RegionOutput,
    private readonly order: string[],
  ) {}

  /** The terminal's width now: asked of the terminal (one ioctl), as the 'resize' event can come late on a busy machine. */
  get columns(): number {
    (this.out as { _refreshSize?: () => void })._refreshSize?.();
    return Math.max(MIN_COLUMNS, this.out.columns ?? 80);
  }

  private get maxRows(): number {
    return Math.max(3, (this.out.rows ?? 24) - 1);
  }

  /** Replaces a part; drawn now, or with `later` within a frame. */
  set(name: string, lines: string[], opts: SetOptions = {}): void {
    if (lines.length === 0) this.parts.delete(name);
    else this.parts.set(name, { lines, cursor: opts.cursor, fitsFor: opts.fits ? this.columns : undefined });
    if (!opts.later) return this.draw();
    this.dirty = true;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      if (this.dirty) this.draw();
    }, 16);
  }

  /** Writes `text` (whole lines) into the transcript above the region. */
  print(text: string): void {
    // A prompt has the screen (hide): it redraws its own rows, and would overwrite lines written under it. They wait for `show`.
    if (this.hidden) {
      this.held.push(text);
      return;
    }
    // Written with the frame that redraws the region under it: one write, not two (a write is most of a frame's cost).
    this.pending = this.eraseCode() + text + (text.endsWith("\n") ? "" : "\n");
    this.drawn = false;
    this.shown = [];
    this.cursorRow = 0;
    this.draw();
    this.write("");
  }

  /** What `print` wrote that goes out with the next write. */
  private pending = "";

  private write(text: string): void {
    const out = this.pending + text;
    this.pending = "";
    if (out) this.out.write(out);
  }

  /** Takes the region off the screen (for a prompt that needs the whole terminal) until `show`. */
  hide(): void {
    this.erase();
    this.hidden = true;
  }

  show(): void {
    this.hidden = false;
    const held = this.held.splice(0);
    if (held.length > 0) this.print(held.map((t) => (t.endsWith("\n") ? t : `${t}\n`)).join(""));
    else this.draw();
  }

  erase(): void {
    if (this.drawn) this.write(this.eraseCode() + "\x1b[?25h");
    this.drawn = false;
    this.shown = [];
    this.cursorRow = 0;
  }

  draw(): void {
    this.dirty = false;
    if (this.hidden) return;
    // A tty stream learns a new size with its 'resize' event, which can come well after the terminal has
    // re-wrapped (a busy machine): a frame drawn for the old width meanwhile lands askew. Ask the terminal
    // now (one ioctl; Node's and Bun's tty streams do it this way, and emit 'resize' when it changed).
    (this.out as { _refreshSize?: () => void })._refreshSize?.();
    const cols = this.columns;
    if (cols !== this.fittedFor) {
      this.fitted.clear();
      this.fittedFor = cols;
    }
    if (this.drawn && cols !== this.drawnCols) {
      // A resize: the terminal has re-wrapped the rows drawn for the old width. Clear from the region's top
      // (where it is now) and draw it all again.
      this.write(this.eraseCode());
      this.drawn = false;
      this.shown = [];
      this.cursorRow = 0;
    }
    const lines: { text: string; width: number; cursor?: number; part: string }[] = [];
    let edited: string | undefined;
    const rowsOf = (l: { width: number }) => Math.floor(l.width / cols) + 1;
    // Rows the lines take (a line as wide as the screen or wider wraps: the one being edited), counted as they come.
    let total = 0;
    for (const name of this.order) {
      const part = this.parts.get(name);
      if (!part) continue;
      if (part.cursor) edited = name;
      for (let i = 0; i < part.lines.length; i++) {
        const text = part.lines[i]!;
        let line: { text: string; width: number; cursor?: number; part: string };
        if (part.cursor?.line === i) line = { text, width: displayWidth(text), cursor: part.cursor.col, part: name };
        // A line known to be narrower than the screen takes one row; its exact width is not needed.
        else if (part.fitsFor === cols) line = { text, width: 0, cursor: undefined, part: name };
        else {
          const fitted = this.fit(text, cols);
          line = { text: fitted.text, width: fitted.width, cursor: undefined, part: name };
        }
        lines.push(line);
        total += rowsOf(line);
      }
    }
    // Too tall for the screen: the oldest rows of the preview go first.
    while (total > this.maxRows && lines.length > 1 && lines[0]!.cursor === undefined && lines[0]!.part !== edited) total -= rowsOf(lines.shift()!);
    // Then the first lines of the text being edited (a long paste): a row in their place keeps its marker and
    // says how many are above, so the screen still shows where the message starts.
    if (total > this.maxRows && lines[0]?.part === edited && lines[0]!.cursor === undefined) {
      const head = lines[0]!.text;
      let hidden = 0;
      while (total + 1 > this.maxRows && lines.length > 1 && lines[0]!.cursor === undefined) {
        total -= rowsOf(lines.shift()!);
        hidden++;
      }
      // The marker is what stands where the lines below are indented ("› " above "  ").
      const indent = /^ */.exec(Bun.stripANSI(lines[0]!.text))![0].length;
      const note = `${indent > 0 ? Bun.sliceAnsi(head, 0, indent) : ""}${pc.dim(`(${hidden} more line${hidden === 1 ? "" : "s"} above)`)}`;
      lines.unshift({ ...this.fit(note, cols), part: edited! });
      total += 1;
    }
    if (lines.length === 0) return this.erase();

    if (edited === undefined || !lines.some((l) => l.cursor !== undefined)) return this.drawBottomUp(lines);

    // Rows above the first line that changed stay as they are on screen; only the rest is written.
    let first = 0;
    if (this.drawn) while (first < lines.length && first < this.shown.length && lines[first]!.text === this.shown[first]) first++;
    const unchanged = this.drawn && first === lines.length && lines.length === this.shown.length;
    if (!unchanged) first = Math.min(first, lines.length - 1);
    let row = 0;
    for (let i = 0; i < first; i++) row += rowsOf(lines[i]!);
    let target: { row: number; col: number } | undefined;
    let cursorAt = { line: 0, offset: 0 };
    for (let i = 0, r = 0; i < lines.length; r += rowsOf(lines[i]!), i++) {
      const c = lines[i]!.cursor;
      if (c !== undefined) {
        target = { row: r + Math.floor(c / cols), col: c % cols };
        cursorAt = { line: i, offset: c };
      }
    }
    const end = total - 1;
    // Autowrap is off while the region draws, but for the line with the cursor (the text being edited, which
    // wraps as typed text does): every other line is one row at any width.
    let out = NO_AUTOWRAP;
    let at = this.cursorRow;
    if (!unchanged) {
      out += this.drawn ? vertical(row - this.cursorRow) + CLEAR_DOWN : "";
      for (let i = first; i < lines.length; i++) {
        const l = lines[i]!;
        // A line that fills its last row exactly leaves the cursor waiting to wrap: make the wrap happen,
        // so every line takes floor(width / cols) + 1 rows.
        const text = l.cursor === undefined ? l.text : AUTOWRAP + l.text + (l.width > 0 && l.width % cols === 0 ? " \r" : "") + NO_AUTOWRAP;
        out += text + (i < lines.length - 1 ? "\r\n" : "");
      }
      at = end;
    }
    const key = `${target!.row},${target!.col}`;
    if (unchanged && key === this.cursorKey) return;
    out += "\r" + vertical(target!.row - at) + (target!.col > 0 ? `\x1b[${target!.col}C` : "") + "\x1b[?25h";
    this.cursorRow = target!.row;
    this.cursorKey = key;
    this.write(out + AUTOWRAP);
    this.drawn = true;
    this.shown = lines.map((l) => l.text);
    this.drawnCols = cols;
    this.cursorAt = cursorAt;
  }

  /**
   * A frame with no cursor to show (a turn running, the answer streaming), written so that the terminal may re-wrap
   * between any two of its bytes (a resize while it is still being read) and it still ends at the region's top left,
   * with nothing of it above: the cursor never leaves the region's first row, and never passes its second column.
   * A re-wrap keeps the cursor in its place in its line, but the rows above it are re-wrapped too: any row of the
   * frame above the cursor, or any part of the cursor's own row left of it, would take more rows than the frame's
   * moves count, and be stranded above the next frame (a half row of the answer in the transcript). So: the region is
   * cleared, and room made below its top (over blank rows, which take one row at any width); then each line, from the
   * bottom up, is written on the first row, pushing the ones written before it down (insert line), and written
   * backwards in insert mode, each character put in at the row's start ("\r" after each). What a re-wrap splits off
   * is then below the cursor, where the next frame clears from. Every line is one row (autowrap off, cut to the
   * width), so a frame written for the old width that arrives after the re-wrap also ends where it began.
   */
  private drawBottomUp(lines: { text: string }[]): void {
    const texts: string[] = [];
    let unchanged = this.drawn && this.cursorKey === "" && lines.length === this.shown.length;
    for (let i = 0; i < lines.length; i++) {
      texts.push(lines[i]!.text);
      unchanged &&= texts[i] === this.shown[i];
    }
    if (unchanged) return;
    // The cursor is hidden already when the last frame was one of these.
    let out = (this.drawn && this.cursorKey === "" ? SYNC_START + NO_AUTOWRAP : FRAME_START) + (this.drawn ? vertical(-this.cursorRow) + CLEAR_DOWN : "\r");
    // Room for the region below its top (scrolling the screen where the region reaches its bottom), then back up;
    // the rows the last frame took are there still.
    const room = lines.length - 1 - (this.drawn ? this.shown.length - 1 : 0);
    if (room > 0) out += "\r\n".repeat(lines.length - 1) + vertical(-(lines.length - 1));
    // Each line is written on the first row, pushing the ones written before it down: a line narrower than any
    // screen the region is drawn on as it is (the cursor stays short of where a re-wrap could split its row), a
    // wider one backwards in insert mode, the cursor at the row's start. (Each insert moves the rest of the row up
    // to its right edge, and tmux then counts the row as written up to there: a re-wrap gives it that many rows
    // more, below the region's top.)
    out += this.inserts.frame(texts);
    this.write(out + FRAME_END);
    this.cursorRow = 0;
    this.cursorKey = "";
    this.drawn = true;
    this.shown = texts;
    this.drawnCols = this.fittedFor;
    this.cursorAt = { line: 0, offset: 0 };
  }

  /**
   * Rows from the region's top down to the cursor. After a resize the terminal has re-wrapped every line
   * drawn (a line of n cells takes ceil(n / width) rows) and keeps the cursor at its place in its line.
   */
  private rowsAboveCursor(): number {
    const cols = this.columns;
    if (cols === this.drawnCols) return this.cursorRow;
    const rowsAt = (cells: number) => Math.max(1, Math.ceil(cells / cols));
    let rows = 0;
    for (let i = 0; i < this.cursorAt.line; i++) {
      const width = displayWidth(this.shown[i] ?? "");
      // A line that filled its last row exactly was followed by one space, to make the wrap happen.
      rows += rowsAt(width > 0 && width % this.drawnCols === 0 ? width + 1 : width);
    }
    return rows + Math.floor(this.cursorAt.offset / cols);
  }

  /** A line cut to fit one row (escape sequences kept), remembered: most lines are drawn many times over. */
  private fit(text: string, cols: number): { text: string; width: number } {
    let f = this.fitted.get(text);
    if (f) return f;
    const width = displayWidth(text);
    f = width < cols ? { text, width } : { text: Bun.sliceAnsi(text, 0, cols - 1, { ellipsis: "…" }), width: cols - 1 };
    if (this.fitted.size > 512) this.fitted.clear();
    this.fitted.set(text, f);
    return f;
  }

  /** Back to the region's first row and clear from there down. */
  private eraseCode(): string {
    if (!this.drawn) return "";
    return vertical(-this.rowsAboveCursor()) + CLEAR_DOWN;
  }
}

/**
 * Clears from the start of the cursor's row to the end of the screen, and leaves the cursor at that row's
 * start. Not one "erase below" from column 0: at the screen's top left that clears the whole screen, which
 * tmux (scroll-on-clear) first copies into the scrollback, a stale copy of the region for every redraw of a
 * region at the top of the screen (as a shrink leaves it). The row is cleared, then the rest from column 1.
 */
const CLEAR_DOWN = "\r\x1b[K\x1b[C\x1b[J\r";

/** The terminal's autowrap, off while the region draws and on again after it (the transcript wraps as usual). */
const NO_AUTOWRAP = "\x1b[?7l";
const AUTOWRAP = "\x1b[?7h";

/** Synchronized output: a terminal that knows it shows the frame whole, not half drawn; others ignore it. */
const SYNC_START = "\x1b[?2026h";
const SYNC_END = "\x1b[?2026l";
/** A frame without a cursor: begun hidden, autowrap off; ended at column 0, autowrap on. */
const FRAME_START = SYNC_START + "\x1b[?25l" + NO_AUTOWRAP;
const FRAME_END = "\r" + AUTOWRAP + SYNC_END;

/** Moves the cursor `n` rows down (up when negative) within the region. */
function vertical(n: number): string {
  return n > 0 ? `\x1b[${n}B` : n < 0 ? `\x1b[${-n}A` : "";
}
