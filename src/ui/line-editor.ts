// The text of the REPL's input line and how keys edit it: insert, delete,
// move by character or word, delete a word either way, kill to either end, walk the history with the
// arrows. A long paste stands in the line as one short placeholder ("[Pasted text #1 +100 lines]", as
// Claude Code shows it) and goes out whole when the message is taken. Pure state; drawing it is the prompt's job.
import { escapeControl } from "./escape.ts";
import type { Key } from "./keys.ts";
import type { RegionCursor } from "./live-region.ts";

/** A paste with more lines than this, or more characters, is shown as a placeholder. */
export const PASTE_MAX_LINES = 10;
export const PASTE_MAX_CHARS = 1000;

/** What stands in the line for a long paste: its number in this message and its size. */
export function pastePlaceholder(n: number, text: string): string {
  const lines = text.replace(/\n$/, "").split("\n").length;
  return lines > 1 ? `[Pasted text #${n} +${lines} lines]` : `[Pasted text #${n} ${text.length} characters]`;
}

export class LineEditor {
  /** The line as shown: a long paste is its placeholder here. */
  text = "";
  cursor = 0;
  /** Each long paste of this message (and of a message brought back with Up), by its placeholder. */
  private pastes = new Map<string, string>();
  /** Pastes so far: numbers go on across messages, so a message brought back never shares one with the line. */
  private pasteCount = 0;
  /** Messages sent from here with a paste: Up brings each back as it stood, placeholders and all. */
  private readonly sent = new Map<string, { text: string; pastes: [string, string][] }>();
  /** Where in `history` the Up arrow has got to (-1: the text being written). */
  private index = -1;
  private draft = "";

  /** `history`: earlier messages, newest first (shared with the caller, who adds to it). */
  constructor(readonly history: string[] = []) {}

  /** Applies an editing key; false when the key is not an editing key. */
  edit(key: Key): boolean {
    const { text, cursor } = this;
    switch (key.name) {
      case "text":
        this.insert(key.text ?? "");
        return true;
      case "paste":
        this.paste(key.text ?? "");
        return true;
      case "backspace": {
        // A placeholder goes as a whole, as it came: half of one would be neither the paste nor text anyone wrote.
        const placeholder = [...this.pastes.keys()].find((p) => text.slice(0, cursor).endsWith(p));
        if (placeholder) {
          this.replace(cursor - placeholder.length, cursor, "");
          if (!this.text.includes(placeholder)) this.pastes.delete(placeholder);
        } else if (cursor > 0) this.replace(cursor - 1, cursor, "");
        return true;
      }
      case "delete":
      case "ctrl-d":
        if (cursor < text.length) this.replace(cursor, cursor + 1, "");
        return true;
      case "left":
        this.cursor = Math.max(0, cursor - 1);
        return true;
      case "right":
        this.cursor = Math.min(text.length, cursor + 1);
        return true;
      case "home":
      case "ctrl-a":
        this.cursor = text.lastIndexOf("\n", cursor - 1) + 1;
        return true;
      case "end":
      case "ctrl-e": {
        const nl = text.indexOf("\n", cursor);
        this.cursor = nl < 0 ? text.length : nl;
        return true;
      }
      case "ctrl-u":
        this.replace(text.lastIndexOf("\n", cursor - 1) + 1, cursor, "");
        return true;
      case "ctrl-k": {
        const nl = text.indexOf("\n", cursor);
        this.replace(cursor, nl < 0 ? text.length : nl, "");
        return true;
      }
      case "ctrl-w":
        this.replace(wordStart(text, cursor), cursor, "");
        return true;
      case "word-left":
        this.cursor = wordStart(text, cursor);
        return true;
      case "word-right":
        this.cursor = wordEnd(text, cursor);
        return true;
      case "kill-word":
        this.replace(cursor, wordEnd(text, cursor), "");
        return true;
      // In a draft of several lines the arrows move between them; the history is reached from its first line (up)
      // or its last (down), as Claude Code and Codex do (new user 12's N12-21: ↑ on line 2 swapped the draft away).
      case "up":
        if (!this.moveRow(-1)) this.walkHistory(1);
        return true;
      case "down":
        if (!this.moveRow(1)) this.walkHistory(-1);
        return true;
      default:
        return false;
    }
  }

  insert(s: string): void {
    // Typed inside a placeholder, it goes after it: a placeholder broken by a letter would be sent as text, its paste lost.
    const at = this.placeholderEndAround(this.cursor) ?? this.cursor;
    this.replace(at, at, s);
  }

  /** The end of the placeholder the cursor is strictly inside, or null. */
  private placeholderEndAround(cursor: number): number | null {
    for (const placeholder of this.pastes.keys()) {
      for (let i = this.text.indexOf(placeholder); i !== -1; i = this.text.indexOf(placeholder, i + 1)) {
        if (i < cursor && cursor < i + placeholder.length) return i + placeholder.length;
      }
    }
    return null;
  }

  /** A paste: as it is when short, as a placeholder when long (the whole text is kept for the message). */
  private paste(s: string): void {
    if (s.split("\n").length - (s.endsWith("\n") ? 1 : 0) <= PASTE_MAX_LINES && s.length <= PASTE_MAX_CHARS) return this.insert(s);
    const placeholder = pastePlaceholder(++this.pasteCount, s);
    this.pastes.set(placeholder, s.replace(/\n$/, ""));
    this.insert(placeholder);
  }

  /** The message as it will be sent: every placeholder still in the line replaced by its paste. */
  get message(): string {
    let out = this.text;
    for (const [placeholder, pasted] of this.pastes) out = out.split(placeholder).join(pasted);
    return out;
  }

  /** The message as written (pastes whole); the line is emptied and the message joins the history. */
  take(): string {
    const message = this.message;
    const kept = [...this.pastes].filter(([placeholder]) => this.text.includes(placeholder));
    if (kept.length > 0) this.sent.set(message, { text: this.text, pastes: kept });
    this.text = "";
    this.cursor = 0;
    this.index = -1;
    this.draft = "";
    this.pastes.clear();
    if (message.trim() && message !== this.history[0]) this.history.unshift(message);
    return message;
  }

  /**
   * `message` in the line to edit and send again (a turn /rewind took out of the conversation), its long pastes as
   * placeholders as when it was sent; false, and nothing changed, when the line is not empty (what was typed stays).
   */
  putBack(message: string): boolean {
    if (this.text !== "") return false;
    this.show(message);
    return true;
  }

  /** The line becomes `message` (an earlier one: its long pastes as placeholders, as sent), the cursor at its end. */
  show(message: string): void {
    const withPastes = this.sent.get(message);
    for (const [placeholder, pasted] of withPastes?.pastes ?? []) this.pastes.set(placeholder, pasted);
    this.text = withPastes?.text ?? message;
    this.cursor = this.text.length;
    this.index = -1;
  }

  /** The lines to draw after `prompt` (continuation lines indented under it), and where the cursor is. */
  render(prompt: string, promptWidth: number, columns?: number): { lines: string[]; cursor: RegionCursor } {
    const indent = " ".repeat(promptWidth);
    const rows = this.text.split("\n");
    const before = this.text.slice(0, this.cursor).split("\n");
    const line = before.length - 1;
    const col = promptWidth + Bun.stringWidth(escapeControl(before.at(-1)!));
    // Without a width (or one too narrow to wrap in), each line whole: the terminal wraps it.
    const room = columns === undefined ? 0 : columns - 1 - promptWidth;
    if (room < 10) return { lines: rows.map((r, i) => (i === 0 ? prompt : indent) + escapeControl(r)), cursor: { line, col } };
    // Each line broken between words inside the prompt's indent, as everything else bunker writes: the terminal's own
    // wrap cut words ("f" / "ield") and put the rows after the first at column 0 (new user 12's N12-29).
    const lines: string[] = [];
    let cursor: RegionCursor = { line: 0, col: promptWidth };
    for (let i = 0; i < rows.length; i++) {
      const shown = escapeControl(rows[i]!);
      const pieces = wrapRow(shown, room);
      const at = i === line ? escapeControl(before.at(-1)!).length : -1;
      for (let p = 0; p < pieces.length; p++) {
        const { start, text } = pieces[p]!;
        const end = p + 1 < pieces.length ? pieces[p + 1]!.start : shown.length + 1;
        if (at >= start && at < end) cursor = { line: lines.length, col: promptWidth + Bun.stringWidth(shown.slice(start, at)) };
        lines.push((lines.length === 0 ? prompt : indent) + text);
      }
    }
    return { lines, cursor };
  }

  private replace(from: number, to: number, s: string): void {
    this.text = this.text.slice(0, from) + s + this.text.slice(to);
    this.cursor = from + s.length;
  }

  /** The cursor one line up or down in the text, at the same column or the line's end; false when there is none. */
  private moveRow(step: 1 | -1): boolean {
    // (At 0, lastIndexOf(…, -1) would look at index 0: a draft that begins with its own newline (reviewer's R13-10).)
    const start = this.cursor === 0 ? 0 : this.text.lastIndexOf("\n", this.cursor - 1) + 1;
    const column = this.cursor - start;
    if (step === -1) {
      if (start === 0) return false;
      const above = start < 2 ? 0 : this.text.lastIndexOf("\n", start - 2) + 1;
      this.cursor = Math.min(above + column, start - 1);
      return true;
    }
    const end = this.text.indexOf("\n", this.cursor);
    if (end < 0) return false;
    const next = this.text.indexOf("\n", end + 1);
    this.cursor = Math.min(end + 1 + column, next < 0 ? this.text.length : next);
    return true;
  }

  private walkHistory(step: 1 | -1): void {
    const next = this.index + step;
    if (next < -1 || next >= this.history.length) return;
    if (this.index === -1) this.draft = this.text;
    this.index = next;
    const entry = next === -1 ? this.draft : this.history[next]!;
    const withPastes = next === -1 ? undefined : this.sent.get(entry);
    for (const [placeholder, pasted] of withPastes?.pastes ?? []) this.pastes.set(placeholder, pasted);
    this.text = withPastes?.text ?? entry;
    this.cursor = this.text.length;
  }
}

function wordStart(text: string, cursor: number): number {
  const m = /\S*\s*$/.exec(text.slice(0, cursor))!;
  return cursor - m[0].length;
}

function wordEnd(text: string, cursor: number): number {
  const m = /^\s*\S*/.exec(text.slice(cursor))!;
  return cursor + m[0].length;
}

/**
 * `text` (escaped: one column a code unit or wider, no control characters) cut into rows of at most `room` columns
 * between words: a word with the one space after it stays on its row; a word wider than a row is cut where it fills it.
 */
function wrapRow(text: string, room: number): { start: number; text: string }[] {
  const rows: { start: number; text: string }[] = [];
  let start = 0;
  let row = "";
  let width = 0;
  const flush = (next: number) => {
    rows.push({ start, text: row });
    start = next;
    row = "";
    width = 0;
  };
  for (const m of text.matchAll(/\S+ ?|\s/gu)) {
    const token = m[0];
    const w = Bun.stringWidth(token);
    if (width + w <= room) {
      row += token;
      width += w;
      continue;
    }
    if (row !== "") flush(m.index);
    if (w <= room) {
      row = token;
      width = w;
      continue;
    }
    // Wider than a row: cut where it fills one.
    let at = m.index;
    for (const ch of token) {
      const cw = Bun.stringWidth(ch);
      if (width + cw > room) flush(at);
      row += ch;
      width += cw;
      at += ch.length;
    }
  }
  if (rows.length === 0 || row !== "") rows.push({ start, text: row });
  return rows;
}
