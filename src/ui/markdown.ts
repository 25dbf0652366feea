// The model's markdown, rendered for the terminal as it streams. Text is cut
// into blocks (paragraph, list, fenced code, table, heading); each finished
// block is rendered once with Bun.markdown.ansi and never redrawn, while the
// block still being written is shown as plain text by the caller. Control
// characters are escaped before rendering, so the renderer's own colours are
// the only escape sequences that reach the terminal; and again after it, since
// the renderer decodes numeric references (`&#8238;` is a raw right-to-left
// override) into characters the source never held raw (red team 11's F02).
import { escapeControl } from "./escape.ts";
import { fitTable } from "./markdown-table.ts";

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(\s|$)/;
const BLANK = /^\s*$/;
/** A light background (COLORFGBG "fg;bg" with a white bg): decided once here, since the renderer's own check costs per call. */
const COLORFGBG = process.env.COLORFGBG ?? "";
const LIGHT = COLORFGBG.endsWith(";7") || COLORFGBG.endsWith(";15");

/** One finished block rendered for a terminal `columns` wide: no line is wider. */
export function renderMarkdown(markdown: string, columns: number, colors = true): string {
  const safe = escapeControl(markdown, { keepNewlines: true, keepTabs: true }).replace(/\t/g, "    ");
  const width = Math.max(10, columns);
  // A paragraph, list or quote with an address in it is wrapped here, between words, after the second copy of each
  // bare URL is dropped: the renderer would break an address across rows, and wrap early for that copy (N11-17).
  const table = /^ {0,3}\|/.test(safe);
  const urls = URLISH.test(safe) && !FENCE.test(safe) && !HEADING.test(safe) && !table;
  // A table wider than the screen is laid out by its content here (the renderer gives each column the same share).
  const fitted = table ? fitTable(safe, width, colors, LIGHT) : null;
  const rendered = fitted ?? sameUrlOnce(Bun.markdown.ansi(safe, { columns: urls ? UNWRAPPED : width, colors, light: LIGHT }), safe);
  // Only a reference (`&#8238;`, `&shy;`) makes a character the source did not hold: the rest needs no second pass.
  const out = (safe.includes("&") ? escapeRendered(rendered) : rendered).replace(/\n+$/, "");
  // Paragraphs, headings and tables come back wrapped; code lines and long words can still be wider.
  return out.split("\n").map((line) => (urls ? wrapKeepingWords(line, width) : wrapLine(line, width))).join("\n");
}

/** An address: a scheme and `//`, or `www.`. */
const URLISH = /(?:\b[a-z][a-z0-9+.-]*:\/\/|\bwww\.)[^\s]/i;
/** Columns that let the renderer keep every line whole. */
const UNWRAPPED = 100_000;
/** A quote's or a code block's gutter, then a list item's indent and mark ("  • ", "   1. ", "  ☐ "). */
const GUTTER = /^(?:\x1b\[[0-9;]*m)*[│|] (?:\x1b\[[0-9;]*m)*/;
const ITEM = /^( *)((?:\x1b\[[0-9;]*m)*)((?:[•☐☑☒*]|\d+[.)]|\[[ x]\]) )?((?:\x1b\[[0-9;]*m)*)/;

/**
 * A line fitted to `width` between words, its further rows under its text (after a list item's mark, inside a
 * quote's gutter); a word wider than the room, a long URL, has a row of its own and is never broken: the terminal
 * shows it whole and keeps it clickable.
 */
function wrapKeepingWords(line: string, width: number): string {
  if (Bun.stringWidth(line) <= width) return line;
  // A heading's rule or a thematic break: cut to the width.
  const plain = Bun.stripANSI(line);
  if (/^[═─━-]+$/.test(plain)) return line.replace(plain, plain.slice(0, width));
  const gutter = GUTTER.exec(line)?.[0] ?? "";
  const item = ITEM.exec(line.slice(gutter.length))!;
  const lead = gutter + item[0];
  let indent = Bun.stringWidth(Bun.stripANSI(lead)) - Bun.stringWidth(Bun.stripANSI(gutter));
  // Too deep an indent leaves no room for words: the further rows start at the gutter.
  if (width - Bun.stringWidth(Bun.stripANSI(lead)) < 16) indent = 0;
  const room = width - Bun.stringWidth(Bun.stripANSI(gutter)) - indent;
  const body = line.slice(lead.length);
  const rows = Bun.wrapAnsi(body, room, { hard: false, trim: true }).split("\n");
  // The first row keeps its own lead (the mark's colour closes in it); the others get the gutter and spaces.
  const firstRoom = width - Bun.stringWidth(Bun.stripANSI(lead));
  if (indent === 0 && firstRoom < room) {
    const first = Bun.wrapAnsi(body, Math.max(1, firstRoom), { hard: false, trim: true }).split("\n")[0]!;
    const rest = Bun.wrapAnsi(body.slice(first.length), room, { hard: false, trim: true }).split("\n");
    return [lead + first, ...rest.map((r) => gutter + r)].join("\n");
  }
  return rows.map((row, i) => (i === 0 ? lead + row : gutter + " ".repeat(indent) + row)).join("\n");
}

/** The renderer's own colours (SGR sequences) pass; every other character of its output is escaped as the model's text is. */
const OWN_SGR = /(\x1b\[[0-9;]*m)/;
function escapeRendered(rendered: string): string {
  const pieces = rendered.split(OWN_SGR);
  for (let i = 0; i < pieces.length; i += 2) pieces[i] = escapeControl(pieces[i]!, { keepNewlines: true, keepTabs: true });
  return pieces.join("");
}

// The renderer writes a link as "text (url)"; for a bare URL (an autolink, or www.… for http://www.…)
// that is the same address twice. The second is dropped; a link whose text differs keeps its URL.
const LINK_COLORED = /(\x1b\[34m\x1b\[4m)([^\x1b\n]+)(\x1b\[24m\x1b\[39m)\x1b\[2m[ \n]\(([^\x1b\n]+)\x1b\[2m\)\x1b\[39m\x1b\[22m/g;
const LINK_PLAIN = /(^|[\s(<])((?:[a-z][a-z0-9+.-]*:|www\.)[^\s()]+)[ \n]\(([^\s()]+)\)/g;
const sameAddress = (text: string, url: string) => url === text || url === `http://${text}` || url === `mailto:${text}`;

/** `source`: the markdown; what it says itself as "text (url)" (in code, say) is left as written. */
function sameUrlOnce(rendered: string, source: string): string {
  const written = (text: string, url: string) => source.includes(`${text} (${url})`);
  return rendered
    .replace(LINK_COLORED, (all, open: string, text: string, close: string, url: string) => (sameAddress(text, url) && !written(text, url) ? open + text + close : all))
    .replace(LINK_PLAIN, (all, before: string, text: string, url: string) => (sameAddress(text, url) && !written(text, url) ? before + text : all));
}

/**
 * A code block's line keeps its gutter on every row it wraps onto, and its further rows go on under its own
 * indent after a dim "↪ ": a row of their own at the gutter would read as code indented less (a new user's F12).
 */
function wrapLine(line: string, width: number): string {
  if (Bun.stringWidth(line) <= width) return line;
  const gutter = /^(?:\x1b\[[0-9;]*m)*│ (?:\x1b\[[0-9;]*m)*/.exec(line)?.[0];
  if (!gutter) return Bun.wrapAnsi(line, width, { hard: true, trim: false });
  const code = line.slice(gutter.length);
  const indent = /^ */.exec(Bun.stripANSI(code))![0].length;
  // The mark and the indent take room from each row; too deep an indent leaves too little: the mark alone then.
  const hang = width - 2 - (indent + 2) >= 16 ? indent : 0;
  const rows = Bun.wrapAnsi(code, width - 2 - hang - 2, { hard: true, trim: false }).split("\n");
  const more = `${" ".repeat(hang)}${CONTINUED}`;
  return rows.map((row, i) => (i === 0 ? gutter + row : gutter + more + row.replace(/^((?:\x1b\[[0-9;]*m)*) /, "$1"))).join("\n");
}

/** Marks a code line's further rows. */
const CONTINUED = "\x1b[2m↪\x1b[22m ";

/**
 * Splits streamed text into finished blocks. `push` takes a delta and returns
 * the markdown of every block it finished; `pending` is the text of the block
 * still open; `finish` returns whatever is left as the last block.
 */
export class MarkdownBlocks {
  /** Complete lines of the block being written. */
  private lines: string[] = [];
  /** The line being written (no newline yet). */
  private partial = "";
  /** The open code fence's marker ("```", "~~~~"), when inside one. */
  private fence: string | null = null;

  push(delta: string): string[] {
    if (!delta.includes("\n")) {
      this.partial += delta;
      this.appended = delta;
      return [];
    }
    this.appended = null;
    const done: string[] = [];
    const parts = (this.partial + delta).split("\n");
    this.partial = parts.pop()!;
    for (const line of parts) this.line(line, done);
    return done;
  }

  /** Counts finished blocks: a new value means `openLines` started afresh. */
  generation = 0;

  /** The complete lines of the open block (for a plain preview). */
  get openLines(): readonly string[] {
    return this.lines;
  }

  /** The line being written. */
  get partialLine(): string {
    return this.partial;
  }

  /** What the last push added to the end of the line being written (null when it began a new line). */
  appended: string | null = null;

  /** The rest, as the last block (or null when nothing is left). */
  finish(): string | null {
    if (this.partial) this.lines.push(this.partial);
    this.partial = "";
    this.appended = null;
    this.fence = null;
    return this.take();
  }

  private take(): string | null {
    const block = this.lines.join("\n");
    this.lines = [];
    this.generation++;
    return BLANK.test(block) ? null : block;
  }

  private emit(done: string[]): void {
    const block = this.take();
    if (block !== null) done.push(block);
  }

  private line(line: string, done: string[]): void {
    if (this.fence !== null) {
      this.lines.push(line);
      const close = FENCE.exec(line);
      if (close && close[1]![0] === this.fence[0] && close[1]!.length >= this.fence.length && BLANK.test(line.slice(close[0].length))) {
        this.fence = null;
        this.emit(done);
      }
      return;
    }
    if (BLANK.test(line)) return this.emit(done);
    const open = FENCE.exec(line);
    if (open) {
      this.emit(done);
      this.fence = open[1]!;
      this.lines.push(line);
      return;
    }
    if (HEADING.test(line)) {
      this.emit(done);
      this.lines.push(line);
      return this.emit(done);
    }
    this.lines.push(line);
  }
}
