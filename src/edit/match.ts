// Finds old_string in a file's content and replaces it (pure, no I/O).
// Exact match first. Models often get whitespace slightly wrong, so when the
// exact text is not there we try, in order, ignoring trailing whitespace,
// a consistent indentation shift, and whitespace at both ends of each line,
// and accept a tolerant match only when it finds exactly one place. The file
// keeps its BOM, line endings (new text takes them) and final newline.

export type MatchHow = "exact" | "ignoring trailing whitespace" | "ignoring indentation" | "ignoring whitespace at line ends";

export type EditOutcome =
  | { ok: true; content: string; replacements: number; line: number; how: MatchHow }
  | { ok: false; error: string };

export interface EditOptions {
  replaceAll?: boolean;
  /** The file's name in error messages. */
  display?: string;
}

const BOM = "\uFEFF";
const MAX_LISTED = 20;
const MAX_QUOTED_LINES = 12;
const MAX_QUOTED_LENGTH = 200;

export function applyEdit(original: string, oldString: string, newString: string, opts: EditOptions = {}): EditOutcome {
  const name = opts.display ?? "the file";
  if (oldString === newString) return fail("old_string and new_string are the same, so the edit would change nothing.");

  const bom = original.startsWith(BOM);
  const body = bom ? original.slice(1) : original;
  const eol = dominantEol(body);
  const oldText = toEol(stripBom(oldString), eol);
  const newText = toEol(newString, eol);

  if (oldText === "") {
    if (body !== "") {
      return fail(`old_string is empty, but ${name} already has content. Give the exact text to replace (read the file first), or use write_file to replace the whole file.`);
    }
    return done(original, bom, body, newText, eol, 1, 1, "exact");
  }

  const found = findAll(body, oldText);
  if (found.length === 1 || (found.length > 1 && opts.replaceAll)) {
    const result = opts.replaceAll ? body.split(oldText).join(newText) : replaceAt(body, found[0]!, oldText.length, newText);
    return done(original, bom, body, result, eol, found.length, lineOf(body, found[0]!), "exact");
  }
  if (found.length > 1) {
    const lines = lineNumbers(body, found);
    return fail(
      `old_string occurs ${found.length} times in ${name} (lines ${listLines(lines)}). ` +
        `Include more surrounding lines in old_string to pick one place, or set replace_all to true to replace every occurrence.`,
    );
  }

  const tolerant = tolerantEdit(body, oldString, newString, eol, name);
  if (tolerant.kind === "edit") {
    return done(original, bom, body, tolerant.result, eol, 1, tolerant.line, tolerant.how);
  }
  if (tolerant.kind === "ambiguous") return fail(tolerant.error);
  return fail(notFoundMessage(body, oldString, name));
}

function fail(error: string): EditOutcome {
  return { ok: false, error };
}

function done(
  original: string,
  bom: boolean,
  body: string,
  result: string,
  eol: string,
  replacements: number,
  line: number,
  how: MatchHow,
): EditOutcome {
  // Keep the final newline: an edit at the end of the file must not drop it.
  if (body.endsWith("\n") && result !== "" && !result.endsWith("\n")) result += eol;
  const content = (bom ? BOM : "") + result;
  if (content === original) return fail("The edit would leave the file unchanged.");
  return { ok: true, content, replacements, line, how };
}

// ---- line endings ------------------------------------------------------------

/** "\r\n" when most line breaks are CRLF, else "\n". */
export function dominantEol(text: string): "\n" | "\r\n" {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text[i - 1] === "\r") crlf++;
    else lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

function toEol(text: string, eol: string): string {
  const lf = text.replace(/\r\n/g, "\n");
  return eol === "\n" ? lf : lf.replace(/\n/g, eol);
}

function stripBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

// ---- exact matching ------------------------------------------------------------

function findAll(haystack: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

function replaceAt(text: string, index: number, length: number, replacement: string): string {
  return text.slice(0, index) + replacement + text.slice(index + length);
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function lineNumbers(text: string, indices: number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let pos = 0;
  for (const idx of indices) {
    for (let i = text.indexOf("\n", pos); i !== -1 && i < idx; i = text.indexOf("\n", i + 1)) {
      line++;
      pos = i + 1;
    }
    out.push(line);
  }
  return out;
}

function listLines(lines: number[]): string {
  const shown = lines.slice(0, MAX_LISTED).join(", ");
  return lines.length > MAX_LISTED ? `${shown}, and ${lines.length - MAX_LISTED} more` : shown;
}

// ---- tolerant, line-based matching ------------------------------------------------

interface Line {
  text: string;
  /** Offset of the first character. */
  start: number;
  /** Offset just past the text (before the line break). */
  end: number;
  /** Offset just past the line break. */
  next: number;
}

function splitLines(body: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start < body.length) {
    const nl = body.indexOf("\n", start);
    if (nl === -1) {
      lines.push({ text: body.slice(start), start, end: body.length, next: body.length });
      break;
    }
    const end = nl > start && body[nl - 1] === "\r" ? nl - 1 : nl;
    lines.push({ text: body.slice(start, end), start, end, next: nl + 1 });
    start = nl + 1;
  }
  return lines;
}

/** Split model text into lines, dropping the empty piece after a final newline. */
function modelLines(text: string): string[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

const leadingWs = (s: string): string => /^[ \t]*/.exec(s)![0];
const isBlank = (s: string): boolean => s.trim() === "";
const firstIndent = (lines: string[]): string => leadingWs(lines.find((l) => !isBlank(l)) ?? "");

/** Maps the model's lines onto the file's indentation: `oldIndent` prefix becomes `fileIndent`. */
function reindenter(oldIndent: string, fileIndent: string): (line: string) => string {
  const extra = fileIndent.startsWith(oldIndent) ? fileIndent.slice(oldIndent.length) : null;
  return (line) => {
    if (isBlank(line)) return line;
    if (line.startsWith(oldIndent)) return fileIndent + line.slice(oldIndent.length);
    return extra !== null ? extra + line : line;
  };
}

interface Strategy {
  how: MatchHow;
  /** Whether the file window matches; returns how to reshape new lines, or null. */
  match(window: string[], old: string[]): ((line: string) => string) | null;
}

const identity = (l: string): string => l;

const STRATEGIES: Strategy[] = [
  {
    how: "ignoring trailing whitespace",
    match: (w, o) => (w.every((l, i) => l.trimEnd() === o[i]!.trimEnd()) ? identity : null),
  },
  {
    how: "ignoring indentation",
    match: (w, o) => {
      const shift = reindenter(firstIndent(o), firstIndent(w));
      return w.every((l, i) => (isBlank(l) && isBlank(o[i]!)) || l.trimEnd() === shift(o[i]!).trimEnd()) ? shift : null;
    },
  },
  {
    how: "ignoring whitespace at line ends",
    match: (w, o) => (w.every((l, i) => l.trim() === o[i]!.trim()) ? reindenter(firstIndent(o), firstIndent(w)) : null),
  },
];

type Tolerant =
  | { kind: "edit"; result: string; line: number; how: MatchHow }
  | { kind: "ambiguous"; error: string }
  | { kind: "none" };

function tolerantEdit(body: string, oldString: string, newString: string, eol: string, name: string): Tolerant {
  const old = modelLines(stripBom(oldString));
  if (old.every(isBlank)) return { kind: "none" };
  const lines = splitLines(body);
  const texts = lines.map((l) => l.text);
  const n = old.length;

  for (const strategy of STRATEGIES) {
    const hits: { at: number; shape: (line: string) => string }[] = [];
    for (let i = 0; i + n <= lines.length; i++) {
      const shape = strategy.match(texts.slice(i, i + n), old);
      if (shape) hits.push({ at: i, shape });
    }
    if (hits.length > 1) {
      return {
        kind: "ambiguous",
        error:
          `old_string was not found exactly in ${name}, and ${strategy.how} it matches ${hits.length} places (lines ${listLines(hits.map((h) => h.at + 1))}). ` +
          `Copy old_string exactly from the file, with enough surrounding lines to pick one place.`,
      };
    }
    if (hits.length === 1) {
      const { at, shape } = hits[0]!;
      const oldEndsNl = /\r?\n$/.test(oldString);
      const newEndsNl = /\r?\n$/.test(newString);
      const first = lines[at]!;
      const last = lines[at + n - 1]!;
      const spanEnd = oldEndsNl && !newEndsNl ? last.next : last.end;
      const replacement =
        (newString === "" ? "" : modelLines(newString).map(shape).join(eol)) + (newEndsNl && !oldEndsNl ? eol : "");
      return { kind: "edit", result: body.slice(0, first.start) + replacement + body.slice(spanEnd), line: at + 1, how: strategy.how };
    }
  }
  return { kind: "none" };
}

// ---- the "not found" message ------------------------------------------------------

function notFoundMessage(body: string, oldString: string, name: string): string {
  const advice = "Read the file again (read_file) and copy old_string exactly, including whitespace and indentation.";
  const lines = splitLines(body).map((l) => l.text);
  const old = modelLines(stripBom(oldString)).filter((l) => !isBlank(l));
  if (lines.length === 0) return `old_string was not found in ${name}: the file is empty. ${advice}`;
  const best = closestWindow(lines, old);
  if (!best) return `old_string was not found in ${name}, and no lines in it look similar. ${advice}`;
  const count = Math.min(Math.max(modelLines(oldString).length, 1), MAX_QUOTED_LINES);
  const from = best;
  const to = Math.min(lines.length, from + count);
  const width = String(to).length;
  const quoted = lines
    .slice(from, to)
    .map((l, i) => `${String(from + i + 1).padStart(width)}│ ${l.length > MAX_QUOTED_LENGTH ? l.slice(0, MAX_QUOTED_LENGTH) + "…" : l}`);
  return `old_string was not found in ${name}. The closest lines in the file are (line numbers first):\n${quoted.join("\n")}\n${advice}`;
}

/** Index of the line where the model's first few lines fit best, or null when nothing is alike. */
function closestWindow(lines: string[], old: string[]): number | null {
  const probe = old.slice(0, 3).map((l) => bigrams(l.trim()));
  if (probe.length === 0) return null;
  const cache = new Map<number, Map<number, number>>();
  const grams = (i: number): Map<number, number> => {
    let g = cache.get(i);
    if (!g) cache.set(i, (g = bigrams(lines[i]!.trim())));
    return g;
  };
  // Rank every line against the first probe line, then score the best few as windows.
  const first: { at: number; score: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!isBlank(lines[i]!)) first.push({ at: i, score: dice(probe[0]!, grams(i)) });
  }
  first.sort((a, b) => b.score - a.score);
  let bestAt = -1;
  let bestScore = 0;
  for (const { at } of first.slice(0, 25)) {
    let score = 0;
    for (let k = 0; k < probe.length && at + k < lines.length; k++) score += dice(probe[k]!, grams(at + k));
    score /= probe.length;
    if (score > bestScore) {
      bestScore = score;
      bestAt = at;
    }
  }
  return bestScore >= 0.3 ? bestAt : null;
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
