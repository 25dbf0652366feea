// The internal form both patch formats parse into (unified diff and the
// `*** Begin Patch` envelope), and the one the dry run applies.

export interface HunkLine {
  op: " " | "-" | "+";
  /** The line without its prefix and without a trailing "\r". */
  text: string;
  /** The line ended in "\r" in the patch (a CRLF file's diff). */
  cr: boolean;
}

export interface Hunk {
  /** The header as written, for messages: "@@ -3,4 +3,5 @@", "@@ def f():", or "(no @@ line)". */
  header: string;
  /** 1-based line of the header (or of the first body line) in the patch text. */
  line: number;
  /** 1-based old start from an `@@ -l,s` header: a hint for where to look, never truth. */
  oldStart?: number;
  /** Envelope `@@ text` lines: each is found in order (from the cursor) before the hunk's lines. */
  anchors: string[];
  lines: HunkLine[];
  /** `\ No newline at end of file` after a line of the old side / of the new side. */
  oldNoNewline: boolean;
  newNoNewline: boolean;
  /** Envelope `*** End of File`: the hunk's lines end the file. */
  atEof: boolean;
}

export interface FilePatch {
  /** add: `path` must not exist; delete: it must; update: it must, and may move to `moveTo`. */
  op: "add" | "delete" | "update";
  path: string;
  moveTo?: string;
  hunks: Hunk[];
  /** Permission bits for a new file (git `new file mode 100755`). */
  mode?: number;
  /** 1-based line where this file's section starts in the patch text. */
  line: number;
}

/** A patch that cannot be read, with the 1-based line of the bad line. */
export class PatchSyntaxError extends Error {
  override name = "PatchSyntaxError";
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}
