// The text of the REPL's input line and how keys edit it: insert, delete,
// move by character or word, delete a word either way, kill to either end, walk the history with the
// arrows. Pure state; drawing it is the prompt's job.
import { escapeControl } from "./escape.ts";
import type { Key } from "./keys.ts";
import type { RegionCursor } from "./live-region.ts";

export class LineEditor {
  text = "";
  cursor = 0;
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
      case "paste":
        this.insert(key.text ?? "");
        return true;
      case "backspace":
        if (cursor > 0) this.replace(cursor - 1, cursor, "");
        return true;
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
      case "up":
        this.walkHistory(1);
        return true;
      case "down":
        this.walkHistory(-1);
        return true;
      default:
        return false;
    }
  }

  insert(s: string): void {
    this.replace(this.cursor, this.cursor, s);
  }

  /** The message as written; the line is emptied and the message joins the history. */
  take(): string {
    const message = this.text;
    this.text = "";
    this.cursor = 0;
    this.index = -1;
    this.draft = "";
    if (message.trim() && message !== this.history[0]) this.history.unshift(message);
    return message;
  }

  /** The lines to draw after `prompt` (continuation lines indented under it), and where the cursor is. */
  render(prompt: string, promptWidth: number): { lines: string[]; cursor: RegionCursor } {
    const indent = " ".repeat(promptWidth);
    const rows = this.text.split("\n");
    const before = this.text.slice(0, this.cursor).split("\n");
    const line = before.length - 1;
    const col = promptWidth + Bun.stringWidth(escapeControl(before.at(-1)!));
    const lines = rows.map((r, i) => (i === 0 ? prompt : indent) + escapeControl(r));
    return { lines, cursor: { line, col } };
  }

  private replace(from: number, to: number, s: string): void {
    this.text = this.text.slice(0, from) + s + this.text.slice(to);
    this.cursor = from + s.length;
  }

  private walkHistory(step: 1 | -1): void {
    const next = this.index + step;
    if (next < -1 || next >= this.history.length) return;
    if (this.index === -1) this.draft = this.text;
    this.index = next;
    this.text = next === -1 ? this.draft : this.history[next]!;
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
