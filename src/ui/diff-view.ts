// Turns a FileChangePreview (an uncoloured unified diff) into the coloured,
// bounded lines shown before a write is approved: a header with the path and
// `+added -removed`, then the hunks (additions green, deletions red, hunk
// headers cyan). A long diff is cut with a line saying how much is hidden.
import pc from "picocolors";
import type { FileChangePreview } from "../perms/types.ts";
import { escapeControl } from "./escape.ts";

export interface DiffViewOptions {
  /** Diff lines shown at most (headers not counted). Default 200. */
  maxLines?: number;
  /** Longest line shown before it is cut. Default 400 characters. */
  maxLineLength?: number;
  /** Colour the output. Default: picocolors' detection. */
  color?: boolean;
}

export const DEFAULT_MAX_DIFF_LINES = 200;
const DEFAULT_MAX_LINE_LENGTH = 400;

type Colors = ReturnType<typeof pc.createColors>;

/** Renders several files' changes sharing one line budget; every file's header is always shown. */
export function renderFileChanges(files: FileChangePreview[], opts: DiffViewOptions = {}): string[] {
  let budget = opts.maxLines ?? DEFAULT_MAX_DIFF_LINES;
  const out: string[] = [];
  for (const file of files) {
    const lines = renderFileChange(file, { ...opts, maxLines: budget });
    out.push(...lines);
    budget = Math.max(0, budget - (lines.length - 1));
  }
  return out;
}

/** The header line and the bounded, coloured diff body for one file. */
export function renderFileChange(file: FileChangePreview, opts: DiffViewOptions = {}): string[] {
  const c = pc.createColors(opts.color ?? pc.isColorSupported);
  const maxLines = Math.max(0, opts.maxLines ?? DEFAULT_MAX_DIFF_LINES);
  const maxLen = opts.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  const body = diffBody(file.diff);

  const out = [header(file, c)];
  if (body.length === 0) {
    out.push(c.dim(file.kind === "create" ? "(empty file)" : "(no changes to the content)"));
    return out;
  }
  if (body.length <= maxLines) {
    for (const line of body) out.push(colourLine(clip(line, maxLen), c));
    return out;
  }
  const runs = runsOf(body);
  const keep = runLength(runs, maxLines);
  if (keep === 0) {
    // Too many separate changes to show a piece of each: the first ones, and a count of the rest.
    const shown = body.slice(0, Math.max(0, maxLines - 1));
    for (const line of shown) out.push(colourLine(clip(line, maxLen), c));
    out.push(hiddenNote(body.slice(shown.length), c));
    return out;
  }
  // Every run of removed, added or unchanged lines shows its start, so a rewrite shows new lines as well as old.
  for (const run of runs) {
    for (const line of run.slice(0, keep)) out.push(colourLine(clip(line, maxLen), c));
    if (run.length > keep) out.push(hiddenNote(run.slice(keep), c));
  }
  return out;
}

/** Consecutive lines of one kind (hunk header, removed, added, unchanged). */
function runsOf(body: string[]): string[][] {
  const runs: string[][] = [];
  for (const line of body) {
    const last = runs.at(-1);
    if (last && kindOf(last[0]!) === kindOf(line) && kindOf(line) !== "@") last.push(line);
    else runs.push([line]);
  }
  return runs;
}

function kindOf(line: string): string {
  return line.startsWith("@@") ? "@" : (line[0] ?? " ");
}

/** The most lines of each run that fit `budget`, counting a note for each run cut; 0 if not even one each fits. */
function runLength(runs: string[][], budget: number): number {
  const cost = (k: number) => runs.reduce((n, r) => n + Math.min(r.length, k) + (r.length > k ? 1 : 0), 0);
  let lo = 0;
  let hi = Math.max(...runs.map((r) => r.length));
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (cost(mid) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function header(file: FileChangePreview, c: Colors): string {
  const what = { create: "new file", modify: "", delete: "deleted", rename: "renamed" }[file.kind];
  const path = c.bold(escapeControl(file.display));
  // A zero count is dim, not alarming red or green.
  const count = (n: number, sign: string, colour: (t: string) => string) => (n === 0 ? c.dim(`${sign}0`) : colour(`${sign}${n}`));
  const counts = `${count(file.added, "+", c.green)} ${count(file.removed, "-", c.red)}`;
  return `${path}${what ? ` ${c.dim(`(${what})`)}` : ""}  ${counts}`;
}

/** The diff's lines without the `---`/`+++` file headers (the header line shows the path). */
function diffBody(diff: string): string[] {
  if (diff === "") return [];
  const lines = diff.split("\n");
  // Before the first hunk: drop the file headers, keep notes such as "new file mode 100755".
  let firstHunk = lines.findIndex((l) => l.startsWith("@@"));
  if (firstHunk === -1) firstHunk = lines.length;
  const head = lines.slice(0, firstHunk).filter((l) => !l.startsWith("--- ") && !l.startsWith("+++ "));
  // A CRLF file's diff lines end in \r: not worth shouting about on every line.
  return [...head, ...lines.slice(firstHunk)].map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

/** At most `max` characters, the note about the cut included, so a cut line never wraps on a screen that wide. */
function clip(line: string, max: number): string {
  if (line.length <= max) return line;
  const noteLength = ` (${line.length} more characters)…`.length;
  const keep = Math.max(1, max - noteLength);
  return `${line.slice(0, keep)}… (${line.length - keep} more characters)`;
}

function colourLine(raw: string, c: Colors): string {
  const line = escapeControl(raw, { keepTabs: true });
  if (raw.startsWith("@@")) return c.cyan(line);
  if (raw.startsWith("new file mode")) return c.yellow(line);
  if (raw.startsWith("+")) return c.green(line);
  if (raw.startsWith("-")) return c.red(line);
  if (raw.startsWith("\\")) return c.dim(line);
  return line;
}

function hiddenNote(hidden: string[], c: Colors): string {
  let added = 0;
  let removed = 0;
  for (const l of hidden) {
    if (l.startsWith("+")) added++;
    else if (l.startsWith("-")) removed++;
  }
  const n = hidden.length;
  return c.dim(`… ${n.toLocaleString("en-US")} more diff line${n === 1 ? "" : "s"} hidden (+${added} -${removed})`);
}
