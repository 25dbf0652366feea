// Finding a hunk's lines in a file, at four levels of strictness: exact, then
// ignoring trailing whitespace, then ignoring leading and trailing whitespace,
// then also treating Unicode dashes, quotes and spaces as their ASCII forms.
// Each level builds (lazily, once per file) an index from line key to
// positions, so placing many hunks on a large file stays fast.

export type MatchLevel = 0 | 1 | 2 | 3;
export const MATCH_LEVELS: readonly MatchLevel[] = [0, 1, 2, 3];

/** How a level is described in notes and reports. */
export const LEVEL_NAMES = [
  "exactly",
  "ignoring trailing whitespace",
  "ignoring leading and trailing whitespace",
  "ignoring whitespace and Unicode dash/quote differences",
] as const;

const UNICODE_ASCII: Record<string, string> = {};
for (const c of "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uFE58\uFE63\uFF0D") UNICODE_ASCII[c] = "-";
for (const c of "\u2018\u2019\u201A\u201B\u2032\uFF07") UNICODE_ASCII[c] = "'";
for (const c of "\u201C\u201D\u201E\u201F\u2033\uFF02") UNICODE_ASCII[c] = '"';
for (const c of "\u00A0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000") UNICODE_ASCII[c] = " ";
UNICODE_ASCII["\u2026"] = "...";
const UNICODE_RE = new RegExp(`[${Object.keys(UNICODE_ASCII).join("")}]`, "g");

export function normalizeUnicode(s: string): string {
  return s.replace(UNICODE_RE, (c) => UNICODE_ASCII[c]!);
}

const KEYS: readonly ((s: string) => string)[] = [
  (s) => s,
  (s) => s.trimEnd(),
  (s) => s.trim(),
  (s) => normalizeUnicode(s).trim(),
];

export function lineKey(level: MatchLevel, s: string): string {
  return KEYS[level]!(s);
}

export class LineMatcher {
  private readonly keys: (string[] | undefined)[] = [];
  private readonly index: (Map<string, number[]> | undefined)[] = [];

  constructor(readonly lines: readonly string[]) {}

  private positions(level: MatchLevel): Map<string, number[]> {
    let idx = this.index[level];
    if (!idx) {
      idx = new Map();
      const keys = this.keysAt(level);
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k]!;
        const list = idx.get(key);
        if (list) list.push(k);
        else idx.set(key, [k]);
      }
      this.index[level] = idx;
    }
    return idx;
  }

  keysAt(level: MatchLevel): string[] {
    let keys = this.keys[level];
    if (!keys) {
      const f = KEYS[level]!;
      keys = level === 0 ? (this.lines as string[]) : this.lines.map(f);
      this.keys[level] = keys;
    }
    return keys;
  }

  /** Every start p in [from, last] where `want` matches the file at `level`. */
  find(want: readonly string[], level: MatchLevel, from: number, last: number): number[] {
    if (want.length === 0 || last < from) return [];
    const idx = this.positions(level);
    const wantKeys = want.map(KEYS[level]!);
    // Drive the search from the rarest line of the hunk.
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
    const keys = this.keysAt(level);
    const found: number[] = [];
    for (const q of pivotHits!) {
      const p = q - pivot;
      if (p < from || p > last) continue;
      let ok = true;
      for (let r = 0; r < wantKeys.length; r++) {
        if (keys[p + r] !== wantKeys[r]) {
          ok = false;
          break;
        }
      }
      if (ok) found.push(p);
    }
    return found;
  }

  /** The first line at or after `from` equal to `want` at the loosest level that finds one. */
  findLine(want: string, from: number): { at: number; level: MatchLevel } | undefined {
    for (const level of MATCH_LEVELS) {
      const hits = this.positions(level).get(KEYS[level]!(want));
      const at = hits?.find((p) => p >= from);
      if (at !== undefined) return { at, level };
    }
    return undefined;
  }

  /**
   * Where the file looks most like `want` (loosest level): the window start
   * with the most equal lines, nearest `near` on a tie. Undefined when no
   * line of `want` occurs in the file at all.
   */
  closest(want: readonly string[], near: number): { start: number; equal: number } | undefined {
    const idx = this.positions(3);
    const votes = new Map<number, number>();
    for (let r = 0; r < want.length; r++) {
      const key = lineKey(3, want[r]!);
      const hits = idx.get(key);
      // Lines like "}" or "" occur everywhere and say nothing about where the hunk belongs.
      if (!hits || (key.length <= 1 && want.length > 1) || hits.length > 1000) continue;
      for (const q of hits) votes.set(q - r, (votes.get(q - r) ?? 0) + 1);
    }
    let best: { start: number; equal: number } | undefined;
    for (const [start, equal] of votes) {
      if (
        !best ||
        equal > best.equal ||
        (equal === best.equal && Math.abs(start - near) < Math.abs(best.start - near))
      ) {
        best = { start, equal };
      }
    }
    return best;
  }
}
