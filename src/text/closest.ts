// "Not found" that helps: the lines of the file that look most like what the
// model searched for, quoted with their numbers, and for each line that
// differs, how (trailing whitespace, indentation, spacing, punctuation, a
// word, line endings). Only for the message: the matcher never acts on a
// similarity score (match.ts).
import { foldUnicode, loosestKey, type LineIndex } from "./match.ts";

export interface Closest {
  /** 0-based first line of the window in the file. */
  start: number;
  /** Mean similarity of the window's lines to the search's, 0..1. */
  score: number;
}

/** Below this, nothing in the file is said to look like the search. */
const MIN_SCORE = 0.3;
/** Windows scored in full, at most. */
const MAX_CANDIDATES = 40;
/** Above this many lines, only lines that are loosely equal propose windows (no bigram scan of the whole file). */
const MAX_SCANNED_LINES = 50_000;
/** Lines quoted in a message, at most, and characters of each. */
export const MAX_QUOTED_LINES = 20;
const MAX_LINE_CHARS = 200;

/**
 * The window of the file most like `want`: every line loosely equal to one of
 * `want`'s votes for where `want` would start, and the lines most like its
 * first lines propose more starts; each start is scored line by line. Ties go
 * to the start nearest `near`. Undefined when no window scores at least 0.3.
 */
export function closestLines(file: LineIndex, want: readonly string[], near = 0): Closest | undefined {
  const lines = file.lines;
  if (lines.length === 0 || want.length === 0) return undefined;
  const starts = new Map<number, number>();
  const vote = (start: number, weight: number) => {
    if (start < 0 || start >= lines.length) return;
    starts.set(start, (starts.get(start) ?? 0) + weight);
  };
  for (let r = 0; r < want.length; r++) {
    const key = loosestKey(want[r]!);
    const hits = file.loosePositions(want[r]!);
    // Lines like "}" or "" occur everywhere and say nothing about where the search belongs.
    if (!hits || key.length <= 1 || hits.length > 1000) continue;
    for (const q of hits) vote(q - r, 1);
  }
  if (lines.length <= MAX_SCANNED_LINES) {
    const probes = want.map((l, r) => ({ r, g: bigrams(loosestKey(l)) })).filter((p) => p.g.size > 0).slice(0, 3);
    for (const { r, g } of probes) {
      const ranked: { at: number; s: number }[] = [];
      for (let i = 0; i < lines.length; i++) ranked.push({ at: i, s: dice(g, gramsOf(file, i)) });
      ranked.sort((a, b) => b.s - a.s);
      for (const { at, s } of ranked.slice(0, 10)) if (s > 0) vote(at - r, s);
    }
  }
  const candidates = [...starts.entries()].sort((a, b) => b[1] - a[1]).slice(0, MAX_CANDIDATES);
  let best: Closest | undefined;
  for (const [start] of candidates) {
    const score = windowScore(file, want, start);
    if (!best || score > best.score || (score === best.score && Math.abs(start - near) < Math.abs(best.start - near))) {
      best = { start, score };
    }
  }
  return best && best.score >= MIN_SCORE ? best : undefined;
}

function windowScore(file: LineIndex, want: readonly string[], start: number): number {
  const n = Math.min(want.length, MAX_QUOTED_LINES);
  let total = 0;
  for (let r = 0; r < n; r++) {
    const line = file.lines[start + r];
    if (line === undefined) continue;
    const a = loosestKey(want[r]!);
    const b = loosestKey(line);
    total += a === b ? 1 : dice(bigrams(a), gramsOf(file, start + r));
  }
  return total / n;
}

/**
 * The closest window quoted for the model: a heading, then each line with its
 * number (a "!" before the lines that differ), and under each differing line
 * how it differs. `what` names the search in the text ("old_string", "the hunk").
 */
export function quoteClosest(path: string, lines: readonly string[], want: readonly string[], at: Closest, what: string): string[] {
  const start = at.start;
  const end = Math.min(lines.length, start + Math.max(want.length, 1));
  const shownEnd = Math.min(end, start + MAX_QUOTED_LINES);
  const width = String(shownEnd).length;
  const span = end - start === 1 ? `line ${start + 1}` : `lines ${start + 1}-${end}`;
  const out = [`Closest lines in ${path} (${span}; "!" marks a line that differs from ${what}):`];
  for (let i = start; i < shownEnd; i++) {
    const expected = want[i - start];
    const how = expected === undefined ? undefined : difference(lines[i]!, expected, what);
    out.push(`  ${how ? "!" : " "} ${String(i + 1).padStart(width)} | ${clip(lines[i]!, MAX_LINE_CHARS)}`);
    if (how) out.push(`    ${" ".repeat(width)}   ^ ${how}`);
  }
  if (end > shownEnd) out.push(`    … (${end - shownEnd} more lines)`);
  return out;
}

/** How a file line differs from the line the model wrote, in words; undefined when they are equal. */
export function difference(fileLine: string, wrote: string, what = "the search"): string | undefined {
  if (fileLine === wrote) return undefined;
  const fileCr = fileLine.endsWith("\r");
  if (fileCr !== wrote.endsWith("\r") && fileLine.replace(/\r$/, "") === wrote.replace(/\r$/, "")) {
    return `line endings: the file's line ends in ${fileCr ? "CRLF" : "LF"}, ${what}'s in ${fileCr ? "LF" : "CRLF"}`;
  }
  if (fileLine.trimEnd() === wrote.trimEnd()) return "trailing whitespace only";
  if (fileLine.trim() === wrote.trim()) return `indentation: the file has ${JSON.stringify(indent(fileLine))}, ${what} ${JSON.stringify(indent(wrote))}`;
  const span = differingSpan(fileLine.trim(), wrote.trim());
  const where = `the file has ${JSON.stringify(span.file)} where ${what} has ${JSON.stringify(span.wrote)}`;
  const noWs = (s: string) => s.replace(/\s+/g, "");
  if (noWs(fileLine) === noWs(wrote)) return `whitespace inside the line: ${where}`;
  if (noWs(foldUnicode(fileLine)) === noWs(foldUnicode(wrote))) return `Unicode punctuation: ${where}`;
  return `${/^\w+$/.test(span.file) && /^\w+$/.test(span.wrote) ? "a word" : "the text"}: ${where}`;
}

const indent = (s: string): string => /^\s*/.exec(s)![0];

/** The smallest run of whole tokens (words, single symbols, whitespace runs) where two lines differ. */
function differingSpan(a: string, b: string): { file: string; wrote: string } {
  const ta = a.match(/\w+|\s+|[^\w\s]/g) ?? [];
  const tb = b.match(/\w+|\s+|[^\w\s]/g) ?? [];
  let p = 0;
  while (p < ta.length && p < tb.length && ta[p] === tb[p]) p++;
  let s = 0;
  while (s < ta.length - p && s < tb.length - p && ta[ta.length - 1 - s] === tb[tb.length - 1 - s]) s++;
  let [from, endA, endB] = [p, ta.length - s, tb.length - s];
  // A space put in or left out reads better with its neighbours: ", b" vs ",b".
  const thin = (t: string[], end: number) => t.slice(from, end).join("").trim() === "";
  if (thin(ta, endA) || thin(tb, endB)) {
    from = Math.max(0, from - 1);
    endA = Math.min(ta.length, endA + 1);
    endB = Math.min(tb.length, endB + 1);
  }
  return { file: clip(ta.slice(from, endA).join(""), 60), wrote: clip(tb.slice(from, endB).join(""), 60) };
}

function clip(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) + "…" : s;
}

const gramCache = new WeakMap<LineIndex, Map<number, Map<number, number>>>();
function gramsOf(file: LineIndex, i: number): Map<number, number> {
  let cache = gramCache.get(file);
  if (!cache) gramCache.set(file, (cache = new Map()));
  let g = cache.get(i);
  if (!g) cache.set(i, (g = bigrams(loosestKey(file.lines[i]!))));
  return g;
}

function bigrams(s: string): Map<number, number> {
  const m = new Map<number, number>();
  for (let i = 0; i + 1 < s.length; i++) {
    const g = s.charCodeAt(i) * 65536 + s.charCodeAt(i + 1);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

/** Sørensen–Dice similarity of two bigram multisets, 0..1. */
function dice(a: Map<number, number>, b: Map<number, number>): number {
  let total = 0;
  let common = 0;
  for (const v of a.values()) total += v;
  for (const v of b.values()) total += v;
  if (total === 0) return 0;
  for (const [g, v] of a) common += Math.min(v, b.get(g) ?? 0);
  return (2 * common) / total;
}
