// Every tool output is bounded at the source, so one call can never flood the
// context: about 20 KB or 2,000 lines, cut at a line boundary, with a note
// that tells the model how to get the rest.

export const MAX_OUTPUT_BYTES = 20_000;
export const MAX_OUTPUT_LINES = 2_000;
/** Longest single line shown before it is cut. */
export const MAX_LINE_CHARS = 2_000;

export interface BoundOptions {
  /** How to get the rest, e.g. "use offset=N"; a function gets the number of lines shown. */
  hint: string | ((linesShown: number) => string);
  maxBytes?: number;
  maxLines?: number;
}

/** `text` unchanged when it fits; otherwise its first whole lines that fit, then a note. */
export function boundOutput(text: string, opts: BoundOptions): string {
  const maxBytes = opts.maxBytes ?? MAX_OUTPUT_BYTES;
  const maxLines = opts.maxLines ?? MAX_OUTPUT_LINES;
  if (text.length <= maxBytes && Buffer.byteLength(text) <= maxBytes && countLines(text) <= maxLines) return text;

  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  let bytes = 0;
  let shown = 0;
  while (shown < lines.length && shown < maxLines) {
    const size = Buffer.byteLength(lines[shown]!) + 1;
    if (bytes + size > maxBytes) break;
    bytes += size;
    shown++;
  }
  const hint = typeof opts.hint === "function" ? opts.hint(shown) : opts.hint;
  if (shown === 0) {
    // A single line larger than the whole budget: show its start.
    const head = cutLine(lines[0] ?? "", Math.floor(maxBytes / 4));
    return `${head}\n${truncationNote(1, lines.length, hint)}`;
  }
  return `${lines.slice(0, shown).join("\n")}\n${truncationNote(shown, lines.length, hint)}`;
}

/**
 * A result the model got only part of, and the person's line saying so under the tool's line ("… first 2,000 lines
 * of 9,001"): the model is told how to get the rest; the person would otherwise take the result for whole.
 */
export function partResult(content: string, cut: string | undefined): string | { content: string; isError: false; shown: string } {
  return cut === undefined ? content : { content, isError: false, shown: `… ${cut}` };
}

/** A count as the person reads it: 9,001. */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

export function truncationNote(shown: number, total: number, hint: string): string {
  return `[output truncated: showing ${shown} of ${total} lines; ${hint}]`;
}

/** A line cut to `max` characters, marked so the model knows it is incomplete. */
export function cutLine(line: string, max = MAX_LINE_CHARS): string {
  if (line.length <= max) return line;
  return `${line.slice(0, max)}… [line cut: ${line.length} chars]`;
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}
