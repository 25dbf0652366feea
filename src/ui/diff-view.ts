// Turns a FileChangePreview (an uncoloured unified diff) into the coloured,
// bounded lines shown before a write is approved: a header with the path and
// `+added -removed`, then the hunks (additions green, deletions red, hunk
// headers cyan). Inside a changed line the words that changed are marked
// (the `diff` package diffing words, runs of punctuation and of space, between
// a removed and an added line paired by likeness); a long line is cut around its change.
// What is shown is what will be written: every character that does not show
// itself is escaped (escape.ts), a CR included. A diff whose every line ends
// in CRLF shows the lines without it and says "CRLF line ends" once; a CR
// anywhere else is shown on its line, and a line whose only change is its
// line end is named as such. A long diff is cut with a line saying how much
// is hidden. A word that mixes scripts as a spoof does (`gооgle` with
// Cyrillic o's) has its odd letters marked in the changed lines and the file
// name, and each is named in a note under the file's diff (mixed-scripts.ts).
import pc from "./colors.ts";
import type { FileChangePreview } from "../perms/types.ts";
import { escapeControl } from "./escape.ts";
import { markAt, markMixedScripts, mixedScripts } from "./mixed-scripts.ts";

export interface DiffViewOptions {
  /** Diff lines shown at most (headers not counted). Default 200. */
  maxLines?: number;
  /** Longest line shown before it is cut. Default 400 characters. */
  maxLineLength?: number;
  /** Colour the output. Default: picocolors' detection. */
  color?: boolean;
  /** Called when anything of the diff is not shown (a line cut, diff lines hidden): the approver then offers the whole change. */
  onCut?: () => void;
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

/** Rows of diff shown for a write decided without a question (allowed by a flag, or refused unasked). */
const UNASKED_DIFF_LINES = 40;

/** A write decided without a question, as the person still sees it: the diffs, indented under the tool's line. */
export function unaskedChangeLines(files: FileChangePreview[]): string[] {
  return renderFileChanges(files, { maxLines: UNASKED_DIFF_LINES }).map((line) => `    ${line}`);
}

/** The header line and the bounded, coloured diff body for one file. */
export function renderFileChange(file: FileChangePreview, opts: DiffViewOptions = {}): string[] {
  const color = opts.color ?? pc.isColorSupported;
  const c = pc.createColors(color);
  const maxLines = Math.max(0, opts.maxLines ?? DEFAULT_MAX_DIFF_LINES);
  const maxLen = opts.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  const { lines: body, crlf, lineEndChanges } = diffBody(file.diff);
  const words = changedWords(body);
  const cut = () => opts.onCut?.();
  // Rows the budget has to spare when every line fits: they go to showing more of a change a cut would hide.
  let spare = body.length <= maxLines ? maxLines - body.length : 0;
  const takeRow = () => spare > 0 && spare-- > 0;
  const show = (line: string, i: number) => colourLine(line, c, maxLen, words.get(i), cut, takeRow, color);
  // Said under the diff whether or not the lines they are about had to be hidden.
  const notes = mixedScriptNotes(file.display, body).map((n) => c.yellow(n));

  const out = [header(file, c, crlf, lineEndChanges, color)];
  if (body.length === 0) {
    out.push(c.dim(file.kind === "create" ? "(empty file)" : "(no changes to the content)"));
    return [...out, ...notes];
  }
  if (body.length <= maxLines) {
    body.forEach((line, i) => out.push(...show(line, i)));
    return [...out, ...notes];
  }
  cut();
  const runs = runsOf(body);
  const keep = runLength(runs, maxLines);
  if (keep === 0) {
    // Too many separate changes to show a piece of each: the first changed lines (the hunk's header first, room
    // allowing), and a count of the rest; never only the context before the change (new user: at 40x24 the question
    // showed two unchanged lines and "… 5 more diff lines hidden (+1 -0)").
    const shown = firstChanges(body, Math.max(0, maxLines - 1));
    for (const i of shown) out.push(...show(body[i]!, i));
    out.push(hiddenNote(body.filter((_, i) => !shown.includes(i)), c));
    return [...out, ...notes];
  }
  // Every run of removed, added or unchanged lines shows its start, so a rewrite shows new lines as well as old.
  for (const run of runs) {
    for (const i of run.slice(0, keep)) out.push(...show(body[i]!, i));
    if (run.length > keep) out.push(hiddenNote(run.slice(keep).map((i) => body[i]!), c));
  }
  return [...out, ...notes];
}

/**
 * The indices of at most `slots` lines of `body` to show when not every change can show a piece: the first removed
 * or added lines, each after its hunk's header when there is room for both, then the line before the first change.
 */
function firstChanges(body: string[], slots: number): number[] {
  const chosen = new Set<number>();
  let hunk = -1;
  for (let i = 0; i < body.length && chosen.size < slots; i++) {
    if (body[i]!.startsWith("@@")) hunk = i;
    else if (/^[-+]/.test(body[i]!)) {
      if (hunk !== -1 && !chosen.has(hunk) && chosen.size + 2 <= slots) chosen.add(hunk);
      chosen.add(i);
    }
  }
  const first = [...chosen].find((i) => /^[-+]/.test(body[i]!));
  if (first !== undefined && chosen.size < slots && first > 0 && body[first - 1]!.startsWith(" ")) chosen.add(first - 1);
  return [...chosen].sort((a, b) => a - b);
}

/** What the file's name and changed lines hold of mixed scripts (mixed-scripts.ts), each note once. */
function mixedScriptNotes(display: string, body: string[]): string[] {
  const notes = new Set(mixedScripts(escapeControl(display))?.notes);
  for (const line of body) {
    if (!/^[-+]/.test(line)) continue;
    for (const n of mixedScripts(escapeControl(line.slice(1), { keepTabs: true }))?.notes ?? []) notes.add(n);
    if (notes.size > MAX_SCRIPT_NOTES) break;
  }
  const all = [...notes];
  return all.length > MAX_SCRIPT_NOTES ? [...all.slice(0, MAX_SCRIPT_NOTES - 1), "… and more words of mixed scripts"] : all;
}

/** Notes about mixed scripts under one file's diff, at most. */
const MAX_SCRIPT_NOTES = 5;

/** A piece of a changed line, and whether the word diff marks it as changed. */
interface Piece {
  text: string;
  changed: boolean;
  /** The change is only in whitespace with a tab in it: tabs are shown as `\t`, or the change would not show. */
  tabs?: boolean;
}

/**
 * For each removed line directly followed by added lines, paired by likeness
 * (pairLines): which words changed. Keyed by body index; text without the
 * diff sign. A line with no like partner stays whole: marking the words of
 * `return sum(xs) // len(xs)` against `return 0.0` hides the real change.
 */
function changedWords(body: string[]): Map<number, Piece[]> {
  const out = new Map<number, Piece[]>();
  for (let i = 0; i < body.length; ) {
    if (!body[i]!.startsWith("-")) {
      i++;
      continue;
    }
    let r = i;
    while (r < body.length && body[r]!.startsWith("-")) r++;
    let a = r;
    while (a < body.length && body[a]!.startsWith("+")) a++;
    const removed = body.slice(i, r).map((l) => l.slice(1));
    const added = body.slice(r, a).map((l) => l.slice(1));
    for (const [k, m] of pairLines(removed, added)) {
      const before = removed[k]!;
      const after = added[m]!;
      // Word diffs of huge lines cost more than they show.
      if (before.length + after.length > 20_000) continue;
      // Required here, not imported: a turn that shows no diff never loads the diff package.
      const parts = wordDiff(before, after);
      // A line rewritten whole has nothing worth marking inside it.
      if (!parts.some((p) => !p.added && !p.removed && p.value.trim() !== "")) continue;
      const changed = parts.filter((p) => p.added || p.removed);
      const tabs = changed.every((p) => p.value.trim() === "") && changed.some((p) => p.value.includes("\t"));
      out.set(i + k, parts.filter((p) => !p.added).map((p) => ({ text: p.value, changed: p.removed, tabs })));
      out.set(r + m, parts.filter((p) => !p.removed).map((p) => ({ text: p.value, changed: p.added, tabs })));
    }
    i = a;
  }
  return out;
}

/** Words, runs of punctuation and runs of space: `//` → `/` is one token changed, not one `/` of two removed. */
const TOKEN = /\s+|\w+|[^\s\w]+/gu;

/** The two lines' tokens (TOKEN) diffed: pieces common to both, removed or added. */
function wordDiff(before: string, after: string): { value: string; added: boolean; removed: boolean }[] {
  // Required here, not imported: a turn that shows no diff never loads the diff package.
  const { diffArrays } = require("../diff/package.ts") as typeof import("../diff/package.ts");
  return diffArrays(before.match(TOKEN) ?? [], after.match(TOKEN) ?? []).map((c) => ({ value: c.value.join(""), added: c.added, removed: c.removed }));
}

/** How alike two lines must be (likeness, 0..1) for the words that changed between them to be marked. */
export const LIKE_LINES = 0.5;
/** Blocks with more removed × added lines than this are paired in order (still only like pairs): the search costs m × n. */
const MAX_PAIRING_CELLS = 10_000;

/**
 * How alike two lines are, 0..1: the Dice coefficient of their character pairs, indentation and trailing space
 * aside (a re-indented line is the same line). Two empty lines are alike; an empty one and another are not.
 */
export function likeness(a: string, b: string): number {
  const x = a.trim();
  const y = b.trim();
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const pairs = new Map<string, number>();
  for (let i = 0; i + 1 < x.length; i++) {
    const p = x.slice(i, i + 2);
    pairs.set(p, (pairs.get(p) ?? 0) + 1);
  }
  let common = 0;
  for (let i = 0; i + 1 < y.length; i++) {
    const p = y.slice(i, i + 2);
    const n = pairs.get(p) ?? 0;
    if (n > 0) {
      common++;
      pairs.set(p, n - 1);
    }
  }
  return (2 * common) / (x.length - 1 + (y.length - 1));
}

/**
 * Removed and added lines paired as [removed index, added index]: in order (neither side crosses), each pair at
 * least LIKE_LINES alike, the pairs chosen for the most likeness in all. A line with no like partner is unpaired.
 */
export function pairLines(removed: string[], added: string[]): [number, number][] {
  const m = removed.length;
  const n = added.length;
  if (m === 0 || n === 0) return [];
  if (m * n > MAX_PAIRING_CELLS) {
    const inOrder: [number, number][] = [];
    for (let k = 0; k < Math.min(m, n); k++) if (likeness(removed[k]!, added[k]!) >= LIKE_LINES) inOrder.push([k, k]);
    return inOrder;
  }
  const like = removed.map((r) => added.map((a) => likeness(r, a)));
  // best[k][j]: the most likeness pairing the first k removed with the first j added lines.
  const best = Array.from({ length: m + 1 }, () => new Float64Array(n + 1));
  for (let k = 1; k <= m; k++) {
    for (let j = 1; j <= n; j++) {
      const l = like[k - 1]![j - 1]!;
      best[k]![j] = Math.max(best[k - 1]![j]!, best[k]![j - 1]!, l >= LIKE_LINES ? best[k - 1]![j - 1]! + l : 0);
    }
  }
  const pairs: [number, number][] = [];
  for (let k = m, j = n; k > 0 && j > 0; ) {
    if (best[k]![j] === best[k - 1]![j]) k--;
    else if (best[k]![j] === best[k]![j - 1]) j--;
    else {
      pairs.push([k - 1, j - 1]);
      k--;
      j--;
    }
  }
  return pairs.reverse();
}

/** Consecutive lines of one kind (hunk header, removed, added, unchanged), as indices into the body. */
function runsOf(body: string[]): number[][] {
  const runs: number[][] = [];
  body.forEach((line, i) => {
    const last = runs.at(-1);
    if (last && kindOf(body[last[0]!]!) === kindOf(line) && kindOf(line) !== "@") last.push(i);
    else runs.push([i]);
  });
  return runs;
}

function kindOf(line: string): string {
  return line.startsWith("@@") ? "@" : (line[0] ?? " ");
}

/** The most lines of each run that fit `budget`, counting a note for each run cut; 0 if not even one each fits. */
function runLength(runs: number[][], budget: number): number {
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

function header(file: FileChangePreview, c: Colors, crlf: boolean, lineEndChanges: number, color: boolean): string {
  const what = { create: "new file", modify: "", delete: "deleted", rename: "renamed" }[file.kind];
  const path = c.bold(markMixedScripts(escapeControl(file.display), color).text);
  // A zero count is dim, not alarming red or green.
  const count = (n: number, sign: string, colour: (t: string) => string) => (n === 0 ? c.dim(`${sign}0`) : colour(`${sign}${n}`));
  const counts = `${count(file.added, "+", c.green)} ${count(file.removed, "-", c.red)}`;
  const notes = [
    ...(crlf ? [c.yellow("CRLF line ends")] : []),
    ...(lineEndChanges > 0 ? [c.yellow(lineEndChanges === 1 ? "1 line changes only its line end (\\r)" : `${lineEndChanges} lines change only their line end (\\r)`)] : []),
  ];
  return `${path}${what ? ` ${c.dim(`(${what})`)}` : ""}  ${counts}${notes.length ? `  ${notes.join(", ")}` : ""}`;
}

/**
 * The diff's lines without the `---`/`+++` file headers (the header line shows
 * the path). When every content line ends in CR (a CRLF file, before and
 * after), the CR is taken off and named once in the header; otherwise each CR
 * stays, to be shown escaped. Also counts removed/added pairs that differ only
 * by a trailing CR.
 */
function diffBody(diff: string): { lines: string[]; crlf: boolean; lineEndChanges: number } {
  if (diff === "") return { lines: [], crlf: false, lineEndChanges: 0 };
  const lines = diff.split("\n");
  // Before the first hunk: drop the file headers, keep notes such as "new file mode 100755".
  let firstHunk = lines.findIndex((l) => l.startsWith("@@"));
  if (firstHunk === -1) firstHunk = lines.length;
  const head = lines.slice(0, firstHunk).filter((l) => !l.startsWith("--- ") && !l.startsWith("+++ "));
  const hunks = lines.slice(firstHunk);
  const content = hunks.filter((l) => /^[-+ ]/.test(l));
  const crlf = content.length > 0 && content.every((l) => l.endsWith("\r"));
  let lineEndChanges = 0;
  for (let i = 0; i + 1 < hunks.length; i++) {
    const [a, b] = [hunks[i]!, hunks[i + 1]!];
    if (a.startsWith("-") && b.startsWith("+") && a !== "-" + b.slice(1) && a.slice(1).replace(/\r$/, "") === b.slice(1).replace(/\r$/, "")) lineEndChanges++;
  }
  const body = crlf ? hunks.map((l) => (/^[-+ ]/.test(l) ? l.slice(0, -1) : l)) : hunks;
  return { lines: [...head, ...body], crlf, lineEndChanges };
}

/** The line's colour, by its diff sign. */
function lineColour(raw: string, c: Colors): (t: string) => string {
  if (raw.startsWith("@@")) return c.cyan;
  if (raw.startsWith("new file mode")) return c.yellow;
  if (raw.startsWith("+")) return c.green;
  if (raw.startsWith("-")) return c.red;
  if (raw.startsWith("\\")) return c.dim;
  return (t) => t;
}

/** Rows shown at most for one long line with changes far apart: its first change, then one row per further change. */
const MAX_ROWS_PER_LINE = 4;
/** Characters of a cut line a row shows at least, or its note goes on a row of its own. */
const MIN_ROW_TEXT = 20;

/**
 * One diff line, escaped, coloured by its sign, its changed words marked, as
 * rows at most `max` characters wide (the cut marks included). A line too
 * long for the screen is cut around its first change, not at its start, and
 * each further change the cut would hide gets a row of its own, and a change
 * the cut splits goes on in the next row while the diff has rows to spare
 * (up to MAX_ROWS_PER_LINE; the last row's note says "changed" when it leaves
 * a change out): a change at the far end of a long line must not pass unseen.
 */
function colourLine(raw: string, c: Colors, max: number, pieces: Piece[] | undefined, onCut: () => void, takeRow: () => boolean, color: boolean): string[] {
  const colour = lineColour(raw, c);
  const sign = pieces ? raw[0]! : "";
  const parts = (pieces ?? [{ text: raw, changed: false }]).map((p) => ({ text: escapeControl(p.text, { keepTabs: !p.tabs }), changed: p.changed }));
  const text = parts.map((p) => p.text).join("");
  // Letters of a changed line that pass for another script's: marked wherever the line is shown.
  const odd = color && /^[-+]/.test(raw) ? mixedScripts(text)?.at : undefined;
  const paint = (from: number, to: number) => paintParts(parts, c, from, to, odd);
  const width = max - sign.length;
  if (text.length <= width) return [colour(`${sign}${paint(0, text.length)}`)];
  // Where each change is, in the escaped text. An added or removed line with no word diff is a change all along
  // (a new line's hidden tail is new code: red team, `DOC = "…"; import os; os.system(…)` passed as "more characters").
  const changes: [number, number][] = [];
  let at = 0;
  for (const p of parts) {
    if (p.changed) changes.push([at, at + p.text.length]);
    at += p.text.length;
  }
  if (!pieces && /^[-+]/.test(raw)) changes.push([1, text.length]);
  // The note says when what it leaves out holds a change, so a hidden change never reads as more of the same.
  const note = (to: number, short = false) => `… (${text.length - to} more${short ? "" : " characters"}${changes.some(([, end]) => end > to) ? ", changed" : ""})`;
  const third = Math.floor(width / 3);
  // On a narrow screen the note would leave a few characters a row: it goes on a row of its own instead.
  const inlineRoom = width - 1 - note(0).length;
  const noteRow = inlineRoom < MIN_ROW_TEXT;
  const room = noteRow ? Math.max(1, width - 2) : inlineRoom;
  // Rows after the first go on with the same line, after its "…". In colour, under a blank gutter: the colour says
  // added or removed, and a sign of their own read as more lines (new user 12's N12-10: eight + rows for a +3 file).
  // Without colour they keep the line's sign: nothing else would tell an added tail from an unchanged line.
  const mark = color && /^[-+]/.test(raw) ? " " : /^[-+]/.test(raw) ? raw[0]! : " ";
  const rows: string[] = [];
  let shownTo = 0;
  // Whether the rows leave any of the line out: only then is the person offered the whole change (N12-10).
  let leftOut = false;
  let focus = changes[0]?.[0] ?? 0;
  for (;;) {
    const continued = rows.length > 0;
    let from = continued ? Math.max(shownTo, focus - third) : focus > width / 2 ? focus - third : 0;
    // A row `r` characters of the line long at most, ended after a space rather than mid-word when that keeps most of it.
    const cutAt = (r: number) => {
      const t = Math.min(text.length, from + r);
      const space = t < text.length ? text.lastIndexOf(" ", t - 1) : -1;
      return space >= from + (t - from) / 2 ? space + 1 : t;
    };
    // The rest of the line whole when it fits without a note; else a row as wide as the screen, its "…" at each end:
    // only the last row keeps room for the note (new user 13's N13-02: every row was a note's width short).
    let to = text.length - from <= width - 1 ? text.length : cutAt(noteRow ? room : width - 2);
    // At the end of the line: fill the row with what comes before instead.
    if (from > 0 && to === text.length) from = Math.max(shownTo, text.length - (width - 1));
    // The next change that starts beyond this row gets a row of its own; a change the row cuts goes on in the next
    // while the diff has rows to spare; the last row's note says what is left out.
    const unseen = changes.findIndex(([begin]) => begin >= to);
    const cutsChange = to < text.length && changes.some(([begin, end]) => begin < to && end > to);
    const last = rows.length === MAX_ROWS_PER_LINE - (noteRow ? 2 : 1) || !(unseen >= 0 || (cutsChange && takeRow()));
    if (last && !noteRow && to < text.length) to = cutAt(room);
    const after = to >= text.length ? "" : last && !noteRow ? note(to) : "…";
    rows.push(colour(`${continued ? mark : sign}${from > 0 ? "…" : ""}${paint(from, to)}${after}`));
    if (from > shownTo || (last && to < text.length)) leftOut = true;
    if (last) {
      if (leftOut) onCut();
      // On a narrow screen the row's "…" says there is more; a row of its own only to count unchanged characters
      // would double every cut line's height (and push the question's options off a small screen). A hidden change
      // is always said.
      const hidesChange = changes.some(([, end]) => end > to);
      if (noteRow && to < text.length && hidesChange) rows.push(colour(`${mark}${note(to).length < width ? note(to) : note(to, true)}`));
      return rows;
    }
    shownTo = to;
    focus = cutsChange ? to : changes[unseen]![0];
  }
}

/** The pieces' text between `from` and `to`, changed words in reverse video, the `odd` letters (offsets into the whole) marked. */
function paintParts(parts: { text: string; changed: boolean }[], c: Colors, from: number, to: number, odd: number[] | undefined): string {
  let out = "";
  let at = 0;
  for (const p of parts) {
    const start = Math.max(at, from);
    const end = Math.min(at + p.text.length, to);
    if (end > start) {
      let piece = p.text.slice(start - at, end - at);
      const here = odd?.filter((i) => i >= start && i < end).map((i) => i - start);
      if (here?.length) piece = markAt(piece, here, p.changed);
      out += p.changed ? c.inverse(piece) : piece;
    }
    at += p.text.length;
  }
  return out;
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
