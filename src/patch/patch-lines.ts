// Shared by both patch parsers: splitting the patch text into lines, and
// building one hunk's body line by line (blank lines, `\ No newline` markers).
import { PatchSyntaxError, type Hunk, type HunkLine } from "./types.ts";

export interface PatchLine {
  /** The line without its "\n" and without a trailing "\r". */
  text: string;
  cr: boolean;
}

export function splitPatchLines(text: string): PatchLine[] {
  const raw = text.split("\n");
  if (raw.length > 0 && raw[raw.length - 1] === "") raw.pop();
  return raw.map((l) => (l.endsWith("\r") ? { text: l.slice(0, -1), cr: true } : { text: l, cr: false }));
}

/**
 * Accumulates one hunk's body. Bare empty lines are held back: in the middle
 * of a hunk they are empty context lines (editors strip the lone space), at
 * the end they are only the gap before the next section and are dropped.
 */
export class HunkBuilder {
  readonly hunk: Hunk;
  private pendingBlanks = 0;

  constructor(header: string, line: number, init: Partial<Pick<Hunk, "oldStart" | "anchors">> = {}) {
    this.hunk = {
      header,
      line,
      oldStart: init.oldStart,
      anchors: init.anchors ?? [],
      lines: [],
      oldNoNewline: false,
      newNoNewline: false,
      atEof: false,
    };
  }

  get lineCount(): number {
    return this.hunk.lines.length;
  }

  blank(): void {
    this.pendingBlanks++;
  }

  add(op: HunkLine["op"], text: string, cr: boolean): void {
    this.flushBlanks();
    this.hunk.lines.push({ op, text, cr });
  }

  /** A `\ No newline at end of file` line: it belongs to the side(s) of the line before it. */
  noNewline(lineNo: number): void {
    this.flushBlanks();
    const prev = this.hunk.lines[this.hunk.lines.length - 1];
    if (!prev) throw new PatchSyntaxError(lineNo, "`\\ No newline at end of file` with no hunk line before it");
    if (prev.op !== "+") this.hunk.oldNoNewline = true;
    if (prev.op !== "-") this.hunk.newNoNewline = true;
  }

  private flushBlanks(): void {
    for (; this.pendingBlanks > 0; this.pendingBlanks--) this.hunk.lines.push({ op: " ", text: "", cr: false });
  }
}

/** Numbers from a unified hunk header (`@@ -l,s +l,s @@`), leniently: any part may be missing. */
export function parseHunkNumbers(header: string): { oldStart?: number; oldCount?: number; newCount?: number } {
  const m = /^@@+\s*-(\d+)(?:,(\d+))?(?:\s+\+(\d+)(?:,(\d+))?)?\s*(?:@@|$)/.exec(header);
  if (!m) return {};
  return {
    oldStart: Number(m[1]),
    oldCount: m[2] !== undefined ? Number(m[2]) : 1,
    newCount: m[3] === undefined ? undefined : m[4] !== undefined ? Number(m[4]) : 1,
  };
}

/** Shortens a line quoted in an error message. */
export function clip(s: string, max = 80): string {
  return s.length > max ? s.slice(0, max) + "…" : s;
}
