// edit_file's replacement (pure, no I/O): find old_string with the one
// matcher (match.ts) and put new_string in its place. Exact text first, as a
// substring (several places need replace_all); then the tolerant levels, line
// by line, each needing exactly one place. The file keeps its BOM, its line
// endings (new text takes them) and its final newline; at the levels that
// ignore indentation, new_string is shifted onto the file's indentation.
import { quoteClosest, closestLines } from "./closest.ts";
import {
  LEVELS,
  LineIndex,
  level,
  reindenter,
  shiftsIndentation,
  trimBlankLines,
  unescapeLiteral,
  type Level,
} from "./match.ts";

export type EditOutcome =
  | { ok: true; content: string; replacements: number; line: number; level: Level }
  | { ok: false; error: string };

export interface EditOptions {
  replaceAll?: boolean;
  /** The file's name in error messages. */
  display?: string;
}

const BOM = "\uFEFF";
const MAX_LISTED = 20;
const ADVICE = "Read the file again (read_file) and copy old_string exactly, including whitespace and indentation.";

export function applyEdit(original: string, oldString: string, newString: string, opts: EditOptions = {}): EditOutcome {
  const name = opts.display ?? "the file";
  if (oldString === newString) return fail("old_string and new_string are the same, so the edit would change nothing.");

  const bom = original.startsWith(BOM);
  const body = bom ? original.slice(1) : original;
  const eol = dominantEol(body);
  const oldText = toEol(stripBom(oldString), eol);
  const newText = toEol(newString, eol);
  const done = (result: string, replacements: number, line: number, lv: Level) =>
    finish(original, bom, body, result, eol, replacements, line, lv);

  if (oldText === "") {
    if (body !== "") {
      return fail(`old_string is empty, but ${name} already has content. Give the exact text to replace (read the file first), or use write_file to replace the whole file.`);
    }
    return done(newText, 1, 1, level("exact"));
  }

  const found = findAll(body, oldText);
  if (found.length === 1 || (found.length > 1 && opts.replaceAll)) {
    const result = opts.replaceAll ? body.split(oldText).join(newText) : body.slice(0, found[0]) + newText + body.slice(found[0]! + oldText.length);
    return done(result, found.length, lineOf(body, found[0]!), level("exact"));
  }
  if (found.length > 1) {
    return fail(
      `old_string occurs ${found.length} times in ${name} (lines ${listLines(found.map((i) => lineOf(body, i)))}). ` +
        `Include more surrounding lines in old_string to pick one place, or set replace_all to true to replace every occurrence.`,
    );
  }

  const lines = splitLines(body);
  const file = new LineIndex(lines.map((l) => l.text));
  for (const attempt of attempts(oldString, newString)) {
    // Literal escapes: the unescaped text may also be a plain substring (part of a line).
    if (attempt.lv.name === "literal-escapes") {
      const at = findAll(body, toEol(attempt.oldText, eol));
      if (at.length > 1) return fail(ambiguous(name, attempt.lv, at.map((i) => lineOf(body, i))));
      if (at.length === 1) {
        const result = body.slice(0, at[0]) + toEol(attempt.newText, eol) + body.slice(at[0]! + toEol(attempt.oldText, eol).length);
        return done(result, 1, lineOf(body, at[0]!), attempt.lv);
      }
    }
    if (attempt.want.every((l) => l.trim() === "")) continue;
    const hits = file.find(attempt.want, attempt.lv);
    if (hits.length > 1) return fail(ambiguous(name, attempt.lv, hits.map((h) => h + 1)));
    if (hits.length === 1) return done(replaceLines(body, lines, hits[0]!, attempt, eol), 1, hits[0]! + 1, attempt.lv);
  }
  return fail(notFound(name, lines.map((l) => l.text), file, attempts(oldString, newString).at(-1)!.want));
}

/** One tolerant level's search and replacement, shaped as that level reads them. */
interface Attempt {
  lv: Level;
  want: string[];
  /** The replacement's lines (before re-indenting). */
  put: string[];
  oldText: string;
  newText: string;
  /** Whether old_string / new_string end with a line break (kept only while no blank lines were trimmed). */
  oldEndsNl: boolean;
  newEndsNl: boolean;
}

function attempts(oldString: string, newString: string): Attempt[] {
  const out: Attempt[] = [];
  const shape = (lv: Level, oldText: string, newText: string, trim: boolean): Attempt => {
    const search = modelLines(stripBom(oldText));
    let put = newText === "" ? [] : modelLines(newText);
    let want = search;
    let trimmed = false;
    if (trim) {
      const t = trimBlankLines(search);
      want = t.lines;
      trimmed = t.before + t.after > 0;
      // The blank lines dropped around the search go from the replacement too.
      for (let k = 0; k < t.before && put.length > 0 && put[0]!.trim() === ""; k++) put = put.slice(1);
      for (let k = 0; k < t.after && put.length > 0 && put.at(-1)!.trim() === ""; k++) put = put.slice(0, -1);
    }
    const endsNl = (s: string) => !trimmed && /\n$/.test(s);
    return { lv, want, put, oldText, newText, oldEndsNl: endsNl(oldText), newEndsNl: endsNl(newText) };
  };
  for (const lv of LEVELS) {
    switch (lv.name) {
      case "exact":
        break; // the substring search above
      case "trailing-whitespace":
      case "indentation":
      case "inner-whitespace":
        out.push(shape(lv, oldString, newString, false));
        break;
      case "blank-lines":
        if (trimBlankLines(modelLines(oldString)).lines.length !== modelLines(oldString).length) out.push(shape(lv, oldString, newString, true));
        break;
      case "unicode-punctuation":
        out.push(shape(lv, oldString, newString, true));
        break;
      case "literal-escapes": {
        const old = unescapeLiteral(oldString);
        if (old !== null) out.push(shape(lv, old, unescapeLiteral(newString) ?? newString, true));
        break;
      }
    }
  }
  return out;
}

function replaceLines(body: string, lines: Line[], at: number, a: Attempt, eol: string): string {
  const first = lines[at]!;
  const last = lines[at + a.want.length - 1]!;
  const window = lines.slice(at, at + a.want.length).map((l) => l.text);
  const reshape = shiftsIndentation(a.lv) ? reindenter(a.want, window) : (l: string) => l;
  if (a.put.length === 0) return body.slice(0, first.start) + body.slice(last.next);
  const spanEnd = a.oldEndsNl && !a.newEndsNl ? last.next : last.end;
  const replacement = a.put.map(reshape).join(eol) + (a.newEndsNl && !a.oldEndsNl ? eol : "");
  return body.slice(0, first.start) + replacement + body.slice(spanEnd);
}

function ambiguous(name: string, lv: Level, lines: number[]): string {
  return (
    `old_string was not found exactly in ${name}, and ${lv.says} it matches ${lines.length} places (lines ${listLines(lines)}). ` +
    `Copy old_string exactly from the file, with enough surrounding lines to pick one place.`
  );
}

function notFound(name: string, texts: string[], file: LineIndex, want: string[]): string {
  if (texts.length === 0) return `old_string was not found in ${name}: the file is empty. ${ADVICE}`;
  const best = closestLines(file, want);
  if (!best) return `old_string was not found in ${name}, and no lines in it look similar. ${ADVICE}`;
  return [`old_string was not found in ${name}.`, ...quoteClosest(name, texts, want, best, "old_string"), ADVICE].join("\n");
}

function fail(error: string): EditOutcome {
  return { ok: false, error };
}

function finish(original: string, bom: boolean, body: string, result: string, eol: string, replacements: number, line: number, lv: Level): EditOutcome {
  // Keep the final newline: an edit at the end of the file must not drop it.
  if (body.endsWith("\n") && result !== "" && !result.endsWith("\n")) result += eol;
  const content = (bom ? BOM : "") + result;
  if (content === original) return fail("The edit would leave the file unchanged.");
  return { ok: true, content, replacements, line, level: lv };
}

// ---- text plumbing ------------------------------------------------------------------

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

function findAll(haystack: string, needle: string): number[] {
  const out: number[] = [];
  if (needle === "") return out;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** "1 (3 times), 2": each line once, with how often when more than once (new user 12's N12-24: "lines 1, 1, 1, 2"). */
function listLines(lines: number[]): string {
  const counts = new Map<number, number>();
  for (const l of lines) counts.set(l, (counts.get(l) ?? 0) + 1);
  const each = [...counts].map(([l, n]) => (n > 1 ? `${l} (${n} times)` : `${l}`));
  const shown = each.slice(0, MAX_LISTED).join(", ");
  return each.length > MAX_LISTED ? `${shown}, and ${each.length - MAX_LISTED} more` : shown;
}

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

/** Model text as lines, without the empty piece after a final newline. */
function modelLines(text: string): string[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
