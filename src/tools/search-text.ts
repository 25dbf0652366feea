// Line matching for grep, pure: which lines of a text match a regex, and the
// rg-style output for them. The regex runs over the whole text at once (one
// JIT'd scan per file, no split into lines) and each hit is confirmed on its
// line alone, so a match never spans lines: the semantics of `grep`/`rg`.

export interface LineMatch {
  /** 1-based. */
  line: number;
  /** Where the match starts in the line. */
  column: number;
  text: string;
}

/** A regex pair for one search: `scan` has the g and m flags, `line` neither g nor y. */
export interface LineRegex {
  scan: RegExp;
  line: RegExp;
}

export function compileLineRegex(pattern: string, ignoreCase: boolean): LineRegex {
  const flags = ignoreCase ? "i" : "";
  return { scan: new RegExp(pattern, `gm${flags}`), line: new RegExp(pattern, `m${flags}`) };
}

/**
 * JavaScriptCore's regex engine stops after too much backtracking and then
 * reports "no match" (`/(x+x+)+y|z/` finds no `z` in 28 x's and a z): a
 * silent wrong answer. A search that comes back empty after this long, for
 * the length it covered, is taken to be that, and said.
 */
export class RegexTooComplex extends Error {
  override name = "RegexTooComplex";
}
const GAVE_UP_MS = 400;
/** Far slower than any linear scan (about 20 MB/s): a scan this slow was backtracking. */
const CHARS_PER_MS = 20_000;

function execOrGiveUp(re: RegExp, text: string, from: number): RegExpExecArray | null {
  const t0 = performance.now();
  const m = re.exec(text);
  if (m === null && performance.now() - t0 > GAVE_UP_MS + (text.length - from) / CHARS_PER_MS) throw new RegexTooComplex();
  return m;
}

/** The lines of `text` that match, in order, at most `max` of them. Throws RegexTooComplex when the engine gave up. */
export function matchingLines(text: string, re: LineRegex, max: number): LineMatch[] {
  const out: LineMatch[] = [];
  if (text === "") return out;
  const scan = re.scan;
  // A file ending in a newline has no line after it: an empty match there is not a line.
  const pastLastLine = text.endsWith("\n") ? text.length : text.length + 1;
  let lineNo = 1;
  let counted = 0; // newlines are counted up to here
  scan.lastIndex = 0;
  while (out.length < max) {
    const m = execOrGiveUp(scan, text, scan.lastIndex);
    if (m === null) break;
    const at = m.index;
    if (at >= pastLastLine) break;
    const start = at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
    let stop = text.indexOf("\n", at);
    if (stop === -1) stop = text.length;
    const line = text.slice(start, stop);
    const hit = execOrGiveUp(re.line, line, 0);
    if (hit !== null) {
      for (let nl = text.indexOf("\n", counted); nl !== -1 && nl < start; nl = text.indexOf("\n", nl + 1)) lineNo++;
      counted = start;
      out.push({ line: lineNo, column: hit.index, text: line });
    }
    if (stop >= text.length) break;
    scan.lastIndex = stop + 1;
  }
  return out;
}

/** Longest line shown in grep output; longer ones show a window around the match. */
export const MAX_GREP_LINE = 300;

/**
 * rg-style lines for one file: `path:line:text` for matches, `path-line-text`
 * for context, `--` between groups that are not adjacent.
 */
export function formatMatches(path: string, text: string, matches: LineMatch[], context: number): string[] {
  if (context === 0) return matches.map((m) => `${path}:${m.line}:${clip(m.text, m.column)}`);
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const out: string[] = [];
  let shownUpTo = 0; // last line number already printed
  const isMatch = new Set(matches.map((m) => m.line));
  const columns = new Map(matches.map((m) => [m.line, m.column]));
  for (const m of matches) {
    if (m.line <= shownUpTo) continue;
    const from = Math.max(1, m.line - context, shownUpTo + 1);
    if (shownUpTo > 0 && from > shownUpTo + 1) out.push("--");
    // Extend through later matches whose context touches this group.
    let to = Math.min(lines.length, m.line + context);
    for (let n = from; n <= to; n++) {
      if (isMatch.has(n)) to = Math.min(lines.length, Math.max(to, n + context));
      const sepChar = isMatch.has(n) ? ":" : "-";
      out.push(`${path}${sepChar}${n}${sepChar}${clip(lines[n - 1] ?? "", columns.get(n) ?? 0)}`);
    }
    shownUpTo = to;
  }
  return out;
}

/** A long line cut to a window that shows the match. */
function clip(line: string, column: number): string {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  if (text.length <= MAX_GREP_LINE) return text;
  const start = Math.max(0, Math.min(column - 50, text.length - MAX_GREP_LINE));
  const head = start > 0 ? "…" : "";
  const tail = start + MAX_GREP_LINE < text.length ? "…" : "";
  return `${head}${text.slice(start, start + MAX_GREP_LINE)}${tail} [line cut: ${text.length} chars]`;
}
