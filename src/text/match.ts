// The one matcher: where a piece of text the model wrote sits in a file.
// edit_file (old_string) and apply_patch (a hunk's context and removed lines)
// both find their text here, with the same levels, tried in this order; the
// first level that finds the text decides, and the result names it.
//
//   exact                 the text as written. Always tried first, so a
//                         tolerant level never overrides a real match.
//   trailing-whitespace   spaces and tabs at line ends ignored: editors strip
//                         them, models drop them.
//   indentation           leading whitespace ignored: a block quoted out of its
//                         nesting, or re-indented with tabs for spaces. New
//                         text is shifted by the same amount (see reindenter).
//   inner-whitespace      runs of spaces and tabs inside a line count as one
//                         space: aligned code (`x  =   1`) and a tab mid-line
//                         are retyped with single spaces.
//   blank-lines           blank lines at the start and end of the search are
//                         dropped: models pad old_string with an empty line
//                         the file does not have there.
//   unicode-punctuation   dashes, quotes, ellipses and odd spaces folded to
//                         ASCII: models write `-` for `—`, `'` for `’`.
//   literal-escapes       a one-line search holding `\n` or `\t` is read with
//                         those as a line break and a tab: old_string escaped
//                         twice in JSON.
//
// Each level also ignores what the levels before it ignore. Every tolerant
// level (all but exact) must find exactly one place: two candidates are an
// error that names them, never a guess. Nothing is matched by similarity; the
// closest lines are only quoted back in the "not found" message (closest.ts).
//
// Tolerant levels compare whole lines. apply_patch uses the levels that keep
// a hunk's lines one-to-one with the file's (LINE_LEVELS); blank-lines and
// literal-escapes reshape the search itself, so only edit_file uses them.

export type LevelName =
  | "exact"
  | "trailing-whitespace"
  | "indentation"
  | "inner-whitespace"
  | "blank-lines"
  | "unicode-punctuation"
  | "literal-escapes";

export interface Level {
  name: LevelName;
  /** How a match at this level is described to the model: "matched <says>". */
  says: string;
  /** The line key this level compares. */
  key: (line: string) => string;
}

const UNICODE_ASCII: Record<string, string> = {};
for (const c of "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uFE58\uFE63\uFF0D") UNICODE_ASCII[c] = "-";
for (const c of "\u2018\u2019\u201A\u201B\u2032\uFF07") UNICODE_ASCII[c] = "'";
for (const c of "\u201C\u201D\u201E\u201F\u2033\uFF02") UNICODE_ASCII[c] = '"';
for (const c of "\u00A0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000") UNICODE_ASCII[c] = " ";
UNICODE_ASCII["\u2026"] = "...";
const UNICODE_RE = new RegExp(`[${Object.keys(UNICODE_ASCII).join("")}]`, "g");

/** Unicode dashes, quotes, ellipsis and spaces as their ASCII forms. */
export function foldUnicode(s: string): string {
  return s.replace(UNICODE_RE, (c) => UNICODE_ASCII[c]!);
}

const exact = (s: string): string => s;
const trailing = (s: string): string => s.trimEnd();
const indentation = (s: string): string => s.trim();
const inner = (s: string): string => s.trim().replace(/[ \t]+/g, " ");
const unicode = (s: string): string => inner(foldUnicode(s));

export const LEVELS: readonly Level[] = [
  { name: "exact", says: "exactly", key: exact },
  { name: "trailing-whitespace", says: "ignoring trailing whitespace", key: trailing },
  { name: "indentation", says: "ignoring indentation", key: indentation },
  { name: "inner-whitespace", says: "ignoring runs of whitespace inside lines", key: inner },
  { name: "blank-lines", says: "ignoring blank lines around it", key: inner },
  { name: "unicode-punctuation", says: "ignoring whitespace and Unicode dash/quote/space differences", key: unicode },
  { name: "literal-escapes", says: "reading literal \\n and \\t as line breaks and tabs", key: unicode },
];

/** The levels that keep the search's lines one-to-one with the file's (apply_patch). */
export const LINE_LEVELS: readonly Level[] = LEVELS.filter((l) => l.name !== "blank-lines" && l.name !== "literal-escapes");

export function level(name: LevelName): Level {
  return LEVELS.find((l) => l.name === name)!;
}

/** The loosest line key: what "the same line" means when nothing stricter matched. */
export const loosestKey = unicode;

/** Whether a level keeps the file's indentation rather than the search's. */
export function shiftsIndentation(l: Level): boolean {
  return LEVELS.indexOf(l) >= LEVELS.indexOf(level("indentation"));
}

/**
 * The file's lines with each level's keys built once (lazily) and an index
 * from key to positions, so placing many hunks on a large file stays fast.
 */
export class LineIndex {
  private readonly keys = new Map<Level["key"], string[]>();
  private readonly index = new Map<Level["key"], Map<string, number[]>>();

  constructor(readonly lines: readonly string[]) {}

  keysOf(key: Level["key"]): string[] {
    let k = this.keys.get(key);
    if (!k) {
      k = key === exact ? (this.lines as string[]) : this.lines.map(key);
      this.keys.set(key, k);
    }
    return k;
  }

  private positions(key: Level["key"]): Map<string, number[]> {
    let idx = this.index.get(key);
    if (!idx) {
      idx = new Map();
      const keys = this.keysOf(key);
      for (let p = 0; p < keys.length; p++) {
        const list = idx.get(keys[p]!);
        if (list) list.push(p);
        else idx.set(keys[p]!, [p]);
      }
      this.index.set(key, idx);
    }
    return idx;
  }

  /** Every start p in [from, last] where `want` matches the file's lines at `level`. */
  find(want: readonly string[], lv: Level, from = 0, last = this.lines.length - want.length): number[] {
    if (want.length === 0 || last < from) return [];
    const idx = this.positions(lv.key);
    const wantKeys = want.map(lv.key);
    // Drive the search from the rarest line of `want`.
    let pivot = 0;
    let pivotHits: number[] | undefined;
    for (let r = 0; r < wantKeys.length; r++) {
      const hits = idx.get(wantKeys[r]!);
      if (!hits) return [];
      if (!pivotHits || hits.length < pivotHits.length) {
        pivot = r;
        pivotHits = hits;
      }
    }
    const keys = this.keysOf(lv.key);
    const found: number[] = [];
    for (const q of pivotHits!) {
      const p = q - pivot;
      if (p < from || p > last) continue;
      let same = true;
      for (let r = 0; r < wantKeys.length && same; r++) same = keys[p + r] === wantKeys[r];
      if (same) found.push(p);
    }
    return found;
  }

  /** The first line at or after `from` equal to `want` at the strictest line level that finds one. */
  findLine(want: string, from: number): { at: number; level: Level } | undefined {
    for (const lv of LINE_LEVELS) {
      const at = this.positions(lv.key).get(lv.key(want))?.find((p) => p >= from);
      if (at !== undefined) return { at, level: lv };
    }
    return undefined;
  }

  /** Positions of lines equal to `line` at the loosest level (for closest-line voting). */
  loosePositions(line: string): number[] | undefined {
    return this.positions(loosestKey).get(loosestKey(line));
  }
}

/**
 * Where `want` (whole lines) sits among the file's lines, at the first line
 * level that finds it. Exact may find several (the caller picks, by a line
 * hint or replace_all); a tolerant level must find one, or it is ambiguous.
 */
export type LinesMatch =
  | { kind: "found"; level: Level; at: number[] }
  | { kind: "ambiguous"; level: Level; at: number[] }
  | { kind: "none" };

export function matchLines(
  file: LineIndex,
  want: readonly string[],
  opts: { from?: number; last?: number; levels?: readonly Level[]; eligible?: (at: number) => boolean } = {},
): LinesMatch {
  const levels = opts.levels ?? LINE_LEVELS;
  for (const lv of levels) {
    let at = file.find(want, lv, opts.from, opts.last);
    if (opts.eligible) at = at.filter(opts.eligible);
    if (at.length === 0) continue;
    if (lv.name !== "exact" && at.length > 1) return { kind: "ambiguous", level: lv, at };
    return { kind: "found", level: lv, at };
  }
  return { kind: "none" };
}

const isBlank = (s: string): boolean => s.trim() === "";

/** The search without blank lines at its start and end, and how many were dropped at each. */
export function trimBlankLines(lines: readonly string[]): { lines: string[]; before: number; after: number } {
  let a = 0;
  let b = lines.length;
  while (a < b && isBlank(lines[a]!)) a++;
  while (b > a && isBlank(lines[b - 1]!)) b--;
  return { lines: lines.slice(a, b), before: a, after: lines.length - b };
}

/** A search written with literal `\n`/`\t` and no real line break, read as it was meant; null when it does not apply. */
export function unescapeLiteral(text: string): string | null {
  if (text.includes("\n") || !/\\[nt]/.test(text)) return null;
  return text.replace(/\\r\\n|\\n|\\t/g, (e) => (e === "\\t" ? "\t" : "\n"));
}

const leadingWs = (s: string): string => /^[ \t]*/.exec(s)![0];
const firstIndent = (lines: readonly string[]): string => leadingWs(lines.find((l) => !isBlank(l)) ?? "");

/**
 * Maps text written at the search's indentation onto the file's: the search's
 * first indentation becomes the file's, and deeper lines keep their depth.
 */
export function reindenter(search: readonly string[], found: readonly string[]): (line: string) => string {
  const from = firstIndent(search);
  const to = firstIndent(found);
  if (from === to) return (line) => line;
  const extra = to.startsWith(from) ? to.slice(from.length) : null;
  return (line) => {
    if (isBlank(line)) return line;
    if (line.startsWith(from)) return to + line.slice(from.length);
    return extra !== null ? extra + line : line;
  };
}
