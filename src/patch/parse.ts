// Unified diff text (git diff, diff -u, or a model's approximation of one) →
// FilePatch[]. Pure. The `@@` numbers are kept only as hints: a hunk's extent
// is decided by its lines, because models get the counts wrong.
import { parseEnvelope } from "./envelope.ts";
import { clip, HunkBuilder, parseHunkNumbers, splitPatchLines, type PatchLine } from "./patch-lines.ts";
import { PatchSyntaxError, type FilePatch, type Hunk } from "./types.ts";

/** Either format: the `*** Begin Patch` envelope or a unified diff, whichever comes first. */
export function parsePatch(text: string): FilePatch[] {
  const lines = splitPatchLines(text);
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.text;
    if (t.trim() === "*** Begin Patch") return parseEnvelope(lines);
    if (t.startsWith("diff --git ") || t.startsWith("@@") || (t.startsWith("--- ") && lines[i + 1]?.text.startsWith("+++ "))) break;
  }
  return parseUnifiedLines(lines);
}

export function parseUnifiedDiff(text: string): FilePatch[] {
  return parseUnifiedLines(splitPatchLines(text));
}

interface GitHeader {
  line: number;
  a?: string;
  b?: string;
  newFile: boolean;
  deletedFile: boolean;
  mode?: number;
  renameFrom?: string;
  renameTo?: string;
}

function parseUnifiedLines(L: PatchLine[]): FilePatch[] {
  const out: FilePatch[] = [];
  const n = L.length;
  const isFileHeader = (i: number) => L[i]!.text.startsWith("--- ") && (L[i + 1]?.text.startsWith("+++ ") ?? false);
  let i = 0;

  /** Hunks from `i` (at an `@@` line, possibly after blank lines) up to the next section. */
  const readHunks = (): Hunk[] => {
    const hunks: Hunk[] = [];
    for (;;) {
      let j = i;
      while (j < n && L[j]!.text === "") j++;
      if (j >= n || !L[j]!.text.startsWith("@@")) return hunks;
      i = j;
      hunks.push(readHunk());
    }
  };

  const readHunk = (): Hunk => {
    const header = L[i]!.text;
    const nums = parseHunkNumbers(header);
    const b = new HunkBuilder(header.trim(), i + 1, { oldStart: nums.oldStart });
    const counted = nums.oldCount !== undefined && nums.newCount !== undefined;
    let oldSeen = 0;
    let newSeen = 0;
    let blanks = 0; // bare empty lines not yet known to be context
    i++;
    for (; i < n; i++) {
      const { text, cr } = L[i]!;
      if (text.startsWith("diff --git ") || text.startsWith("@@")) break;
      const oldLeft = counted && oldSeen + blanks < nums.oldCount!;
      const newLeft = counted && newSeen + blanks < nums.newCount!;
      // "--- x" / "+++ y" is the next file's header unless the counts say these are still this hunk's lines.
      if (isFileHeader(i) && !(oldLeft && newLeft)) break;
      // git format-patch's signature ("-- " then the version) after a complete hunk.
      if (text === "-- " && counted && !oldLeft && !newLeft) break;
      if (text === "") {
        b.blank();
        blanks++;
        continue;
      }
      const c = text[0];
      if (c === " " || c === "-" || c === "+") {
        b.add(c, text.slice(1), cr);
        oldSeen += blanks;
        newSeen += blanks;
        blanks = 0;
        if (c !== "+") oldSeen++;
        if (c !== "-") newSeen++;
        continue;
      }
      if (c === "\\") {
        b.noNewline(i + 1);
        continue;
      }
      // Anything else ends the hunk. If hunk lines follow, it was a line inside the hunk missing its prefix.
      const next = nextNonBlank(L, i + 1);
      if (next !== undefined && !isFileHeader(next) && !L[next]!.text.startsWith("diff --git ") && /^[ +\-@]/.test(L[next]!.text)) {
        throw new PatchSyntaxError(
          i + 1,
          `expected a hunk line starting with " " (context), "-" (removed), "+" (added) or "\\", got ${JSON.stringify(clip(text))}`,
        );
      }
      break;
    }
    if (b.lineCount === 0) throw new PatchSyntaxError(b.hunk.line, `the hunk ${JSON.stringify(clip(header))} has no lines`);
    return b.hunk;
  };

  while (i < n) {
    const t = L[i]!.text;
    if (t.startsWith("diff --git ")) {
      const git = readGitHeader();
      let minus: string | null | undefined;
      let plus: string | null | undefined;
      let hunks: Hunk[] = [];
      if (i < n && isFileHeader(i)) {
        minus = headerPath(L[i]!.text, i + 1);
        plus = headerPath(L[i + 1]!.text, i + 2);
        [minus, plus] = stripPrefixes(minus, plus);
        i += 2;
        hunks = readHunks();
        // git writes `---`/`+++` only when hunks follow.
        if (hunks.length === 0) throw new PatchSyntaxError(i + 1, "expected an @@ hunk header after the `---`/`+++` file header");
      }
      let oldPath = minus !== undefined ? minus : git.newFile ? null : (git.a ?? null);
      let newPath = plus !== undefined ? plus : git.deletedFile ? null : (git.b ?? null);
      if (git.renameFrom !== undefined || git.renameTo !== undefined) {
        oldPath = git.renameFrom ?? oldPath;
        newPath = git.renameTo ?? newPath;
      }
      out.push(makeFilePatch(oldPath, newPath, hunks, git.line, git.mode));
      continue;
    }
    if (isFileHeader(i)) {
      const line = i + 1;
      const [oldPath, newPath] = stripPrefixes(headerPath(t, i + 1), headerPath(L[i + 1]!.text, i + 2));
      i += 2;
      const hunks = readHunks();
      if (hunks.length === 0 && (oldPath !== null && newPath !== null || looksLikeHunkLine(L, i))) {
        throw new PatchSyntaxError(i + 1, `expected an @@ hunk header after the file header for ${newPath ?? oldPath}`);
      }
      out.push(makeFilePatch(oldPath, newPath, hunks, line));
      continue;
    }
    if (t.startsWith("--- ") && L[i + 1]?.text.startsWith("@@")) {
      throw new PatchSyntaxError(i + 2, "expected a `+++ b/path` line after the `--- a/path` line");
    }
    if (t.startsWith("@@")) {
      throw new PatchSyntaxError(i + 1, "a hunk (@@) with no file header before it: start each file with `--- a/path` and `+++ b/path`");
    }
    i++; // preamble, commit message, `Index:` lines, fences: not part of the diff
  }

  if (out.length === 0) {
    const first = nextNonBlank(L, 0);
    if (first !== undefined) {
      throw new PatchSyntaxError(
        first + 1,
        `no file changes found: expected \`--- a/path\` and \`+++ b/path\` lines followed by @@ hunks, or a \`*** Begin Patch\` envelope; got ${JSON.stringify(clip(L[first]!.text))}`,
      );
    }
  }
  return out;

  function readGitHeader(): GitHeader {
    const line = i + 1;
    const git: GitHeader = { line, newFile: false, deletedFile: false, ...diffGitPaths(L[i]!.text.slice("diff --git ".length), line) };
    for (i++; i < n; i++) {
      const t = L[i]!.text;
      const field = (prefix: string) => (t.startsWith(prefix) ? t.slice(prefix.length) : undefined);
      let v: string | undefined;
      if ((v = field("new file mode ")) !== undefined) {
        git.newFile = true;
        git.mode = parseMode(v);
      } else if (field("deleted file mode ") !== undefined) git.deletedFile = true;
      else if ((v = field("rename from ")) !== undefined) git.renameFrom = unquote(v, i + 1);
      else if ((v = field("rename to ")) !== undefined) git.renameTo = unquote(v, i + 1);
      else if (t.startsWith("copy from ") || t.startsWith("copy to ")) {
        throw new PatchSyntaxError(i + 1, "git copies are not supported: add the new file with its full content instead");
      } else if (t.startsWith("Binary files ") || t.startsWith("GIT binary patch")) {
        throw new PatchSyntaxError(i + 1, "binary patches are not supported: apply_patch edits text files");
      } else if (/^(old mode|new mode|index|similarity index|dissimilarity index) /.test(t)) continue;
      else break;
    }
    return git;
  }
}

function makeFilePatch(oldPath: string | null, newPath: string | null, hunks: Hunk[], line: number, mode?: number): FilePatch {
  if (oldPath === null && newPath === null) throw new PatchSyntaxError(line, "both sides of the file header are /dev/null");
  if (oldPath === null) return { op: "add", path: newPath!, hunks, line, ...(mode !== undefined ? { mode } : {}) };
  if (newPath === null) return { op: "delete", path: oldPath, hunks, line };
  return { op: "update", path: oldPath, ...(newPath !== oldPath ? { moveTo: newPath } : {}), hunks, line };
}

/** The path in a `--- ` / `+++ ` line; null for /dev/null. Drops a diff -u timestamp. */
function headerPath(text: string, lineNo: number): string | null {
  let rest = text.slice(4);
  if (rest.startsWith('"')) rest = unquote(rest, lineNo);
  else rest = rest.split("\t")[0]!.trimEnd();
  if (rest === "/dev/null") return null;
  if (rest === "") throw new PatchSyntaxError(lineNo, "the file header has no path");
  return rest;
}

/** git's `a/` and `b/` prefixes, removed when every real side has its own. */
function stripPrefixes(oldPath: string | null, newPath: string | null): [string | null, string | null] {
  const prefixed = (oldPath === null || oldPath.startsWith("a/")) && (newPath === null || newPath.startsWith("b/"));
  const clean = (p: string | null) => (p === null ? null : (prefixed ? p.slice(2) : p).replace(/^(\.\/)+/, ""));
  return [clean(oldPath), clean(newPath)];
}

/** `diff --git a/x b/y`: used only when there are no `---`/`+++` or rename lines (empty files, mode changes). */
function diffGitPaths(rest: string, lineNo: number): { a?: string; b?: string } {
  let a: string;
  let b: string;
  if (rest.startsWith('"')) {
    const end = closingQuote(rest);
    a = unquote(rest.slice(0, end + 1), lineNo);
    const tail = rest.slice(end + 1).trim();
    b = tail.startsWith('"') ? unquote(tail, lineNo) : tail;
  } else {
    // Names may contain spaces: prefer the split where both halves name the same file.
    const splits = [...rest.matchAll(/ /g)].map((m) => m.index!);
    const same = splits.find((s) => rest.slice(0, s).replace(/^a\//, "") === rest.slice(s + 1).replace(/^b\//, ""));
    const at = same ?? splits[0];
    if (at === undefined) return {};
    a = rest.slice(0, at);
    b = rest.slice(at + 1);
    if (b.startsWith('"')) b = unquote(b, lineNo);
  }
  const [sa, sb] = stripPrefixes(a, b);
  return { a: sa ?? undefined, b: sb ?? undefined };
}

function closingQuote(s: string): number {
  for (let k = 1; k < s.length; k++) {
    if (s[k] === "\\") k++;
    else if (s[k] === '"') return k;
  }
  return s.length - 1;
}

/** git's C-style quoted path ("a/\303\251 \"x\""); unquoted input is returned trimmed. */
function unquote(s: string, lineNo: number): string {
  if (!s.startsWith('"')) return s.trimEnd();
  const end = closingQuote(s);
  if (s[end] !== '"' || end === 0) throw new PatchSyntaxError(lineNo, `unterminated quoted path ${JSON.stringify(clip(s))}`);
  const body = s.slice(1, end);
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '"': 34, "\\": 92 };
  for (let k = 0; k < body.length; k++) {
    const ch = body[k]!;
    if (ch !== "\\") {
      bytes.push(...new TextEncoder().encode(ch));
      continue;
    }
    const nx = body[k + 1] ?? "";
    if (/[0-7]/.test(nx)) {
      const oct = /^[0-7]{1,3}/.exec(body.slice(k + 1))![0];
      bytes.push(parseInt(oct, 8) & 0xff);
      k += oct.length;
    } else if (nx in simple) {
      bytes.push(simple[nx]!);
      k++;
    } else {
      bytes.push(92);
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/**
 * git records only "executable or not" for a file (100755 / 100644); set-uid,
 * sticky and group/other write bits in a patch are never honoured.
 */
function parseMode(v: string): number | undefined {
  const m = /^[0-7]+$/.exec(v.trim());
  if (!m) return undefined;
  return parseInt(m[0], 8) & 0o111 ? 0o755 : 0o644;
}

/** Whether the next non-blank line from `from` is a context, removed or added line (and not a file header). */
function looksLikeHunkLine(L: PatchLine[], from: number): boolean {
  const k = nextNonBlank(L, from);
  if (k === undefined) return false;
  const t = L[k]!.text;
  return /^[ +-]/.test(t) && !(t.startsWith("--- ") && L[k + 1]?.text.startsWith("+++ "));
}

function nextNonBlank(L: PatchLine[], from: number): number | undefined {
  for (let k = from; k < L.length; k++) if (L[k]!.text.trim() !== "") return k;
  return undefined;
}
