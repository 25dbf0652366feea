// The dry run: FilePatch[] × current contents → new contents, or a report of
// every hunk that could not be placed. Pure: file contents come in through a
// callback and nothing is written.
//
// Placement: a hunk's context and removed lines are found by the one matcher
// (text/match.ts), at its line levels in order. The `@@` line number is only a
// hint: of several exact matches the one nearest it wins (two equally near is
// an error); a tolerant level must find exactly one place. Hunks must come in
// file order without overlapping.
import { LINE_LEVELS, LineIndex, matchLines, type Level } from "../text/match.ts";
import { describeHunk, notFoundMessage, type Problem } from "./report.ts";
import { dominantEol, hasFinalNewline, joinText, splitText } from "./text.ts";
import type { FilePatch, Hunk } from "./types.ts";

/** Current content of a path, or null when nothing is there. */
export type ReadFile = (path: string) => string | null;

export interface FileChange {
  /** The path written (or deleted, when `after` is null). */
  path: string;
  /** Set for a rename: the path the content came from (deleted). */
  from?: string;
  /** Content before the patch (of `from` for a rename); null when created. */
  before: string | null;
  /** Content after the patch; null when deleted. */
  after: string | null;
  /** Permission bits for a created file, when the patch gives them. */
  mode?: number;
}

export type DryRun =
  | { ok: true; changes: FileChange[]; notes: string[] }
  | { ok: false; problems: Problem[] };

export function applyPatches(patches: readonly FilePatch[], read: ReadFile): DryRun {
  const original = new Map<string, string | null>();
  const orig = (p: string): string | null => {
    if (!original.has(p)) original.set(p, read(p));
    return original.get(p)!;
  };
  const view = new Map<string, string | null>();
  const current = (p: string): string | null => (view.has(p) ? view.get(p)! : orig(p));
  const movedFrom = new Map<string, string>();
  const modes = new Map<string, number>();
  const problems: Problem[] = [];
  const notes: string[] = [];

  for (const fp of patches) {
    const now = current(fp.path);
    if (fp.op === "add") {
      if (now !== null) {
        problems.push({
          path: fp.path,
          message: `${fp.path} already exists, but the patch creates it (\`--- /dev/null\` or \`*** Add File\`). Patch its current content instead (\`--- a/${fp.path}\` / \`*** Update File\`), or delete it first.`,
        });
        continue;
      }
      const r = applyHunks(fp.path, "", fp.hunks);
      if (!r.ok) problems.push(...r.problems);
      else {
        view.set(fp.path, r.text);
        if (fp.mode !== undefined) modes.set(fp.path, fp.mode);
      }
      continue;
    }
    if (now === null) {
      const verb = fp.op === "delete" ? "deletes" : "changes";
      problems.push({
        path: fp.path,
        message: `${fp.path} does not exist, but the patch ${verb} it. Check the path (list the directory), or to create a new file use \`--- /dev/null\` / \`+++ b/${fp.path}\` (or \`*** Add File: ${fp.path}\`).`,
      });
      continue;
    }
    const r = fp.hunks.length > 0 ? applyHunks(fp.path, now, fp.hunks) : { ok: true as const, text: now, notes: [] };
    if (!r.ok) {
      problems.push(...r.problems);
      continue;
    }
    notes.push(...r.notes);
    if (fp.op === "delete") {
      // Without hunks (envelope `*** Delete File`, an empty git deletion) there is nothing to check.
      if (fp.hunks.length > 0 && r.text !== "") {
        const left = splitText(r.text).lines.length;
        problems.push({
          path: fp.path,
          message: `${fp.path}: the patch deletes the file, but its hunks remove only part of it (${left} line${left === 1 ? "" : "s"} would be left). Remove every line, or use \`*** Delete File: ${fp.path}\`.`,
        });
        continue;
      }
      view.set(fp.path, null);
      continue;
    }
    if (fp.moveTo !== undefined && fp.moveTo !== fp.path) {
      if (current(fp.moveTo) !== null) {
        problems.push({
          path: fp.moveTo,
          message: `${fp.moveTo} already exists, so ${fp.path} cannot be renamed to it. Pick another name, or delete ${fp.moveTo} first.`,
        });
        continue;
      }
      view.set(fp.path, null);
      view.set(fp.moveTo, r.text);
      movedFrom.set(fp.moveTo, movedFrom.get(fp.path) ?? fp.path);
      movedFrom.delete(fp.path);
      continue;
    }
    view.set(fp.path, r.text);
  }
  if (problems.length > 0) return { ok: false, problems };

  // A moved file whose source is gone and whose target is new is one rename.
  const renames = new Map<string, string>();
  for (const [to, from] of movedFrom) {
    if (view.get(from) === null && orig(from) !== null && orig(to) === null && view.get(to) !== null) renames.set(to, from);
  }
  const renamedSources = new Set(renames.values());
  const changes: FileChange[] = [];
  for (const [path, after] of view) {
    if (renamedSources.has(path)) continue;
    const from = renames.get(path);
    const before = from !== undefined ? orig(from) : orig(path);
    if (from === undefined && before === after) continue;
    const mode = modes.get(path);
    changes.push({ path, ...(from !== undefined ? { from } : {}), before, after, ...(mode !== undefined ? { mode } : {}) });
  }
  return { ok: true, changes, notes };
}

export type HunksResult = { ok: true; text: string; notes: string[] } | { ok: false; problems: Problem[] };

interface Placed {
  hunk: Hunk;
  at: number;
  oldLen: number;
}

/** Places every hunk on `content` (in order, without overlap) and builds the new text. */
export function applyHunks(path: string, content: string, hunks: readonly Hunk[]): HunksResult {
  const ft = splitText(content);
  const N = ft.lines.length;
  const matcher = new LineIndex(ft.lines);
  const problems: Problem[] = [];
  const notes: string[] = [];
  const placed: Placed[] = [];
  let cursor = 0;
  let delta = 0;

  hunks.forEach((h, k) => {
    const where = describeHunk(path, k, hunks.length, h);
    const fail = (message: string) => problems.push({ path, hunk: k + 1, message: `${where}: ${message}` });
    const old = h.lines.filter((l) => l.op !== "+").map((l) => l.text);
    const atEof = h.atEof || h.oldNoNewline || h.newNoNewline;

    // Envelope `@@ text` lines narrow the search to what follows them.
    let from = cursor;
    let anchorAt: number | undefined;
    for (const a of h.anchors) {
      const found = matcher.findLine(a, anchorAt === undefined ? from : anchorAt + 1);
      if (!found) {
        fail(`could not find the line ${JSON.stringify(a)} named after @@ (searched from line ${from + 1}).`);
        return;
      }
      anchorAt = found.at;
    }
    if (anchorAt !== undefined) from = anchorAt;

    let hint: number | undefined = anchorAt;
    if (h.oldStart !== undefined) hint = Math.max(0, (old.length > 0 ? h.oldStart - 1 : h.oldStart) + delta);

    let at: number;
    if (old.length === 0) {
      if (atEof) at = N;
      else if (N === 0) at = 0;
      else if (anchorAt !== undefined) at = anchorAt + 1;
      else {
        fail(
          "the hunk only adds lines and has no context lines, so there is no way to check where they go. Include the 2-3 unchanged lines above and below the addition.",
        );
        return;
      }
      if (at < cursor) {
        fail("the hunk's lines would go before the previous hunk; hunks must be in file order and must not overlap.");
        return;
      }
    } else {
      const last = N - old.length;
      const match = matchLines(matcher, old, { from, last, eligible: atEof ? (p) => p === last : undefined });
      let found: { at: number; level: Level } | undefined;
      if (match.kind === "ambiguous") {
        const lines = match.at.slice(0, 5).map((p) => p + 1).join(", ") + (match.at.length > 5 ? ", …" : "");
        fail(
          `the hunk's lines are not in the file exactly, and ${match.level.says} they occur in ${match.at.length} places (lines ${lines}). Copy the context lines exactly from the file, with enough of them to match one place.`,
        );
        return;
      }
      if (match.kind === "found") {
        const pick = nearest(match.at, hint);
        if (pick.tie) {
          const cands = match.at;
          const places = pick.tie.map((p) => p + 1).join(" and ");
          fail(
            hint === undefined
              ? `the hunk's lines occur in ${cands.length} places (lines ${cands.slice(0, 5).map((p) => p + 1).join(", ")}${cands.length > 5 ? ", …" : ""}), and nothing says which one is meant. Add more context lines (or an @@ line) so it matches one place.`
              : `the hunk's lines occur equally near line ${hint + 1}, at lines ${places}. Add more context lines so it matches one place.`,
          );
          return;
        }
        found = { at: pick.at, level: match.level };
      }
      if (!found) {
        // Tell apart "not there" from "there, but out of order" and "there, but not at the end".
        for (const lv of LINE_LEVELS) {
          const anywhere = matcher.find(old, lv, 0, last);
          if (from > 0 && anywhere.some((p) => p < from)) {
            const prev = placed[placed.length - 1];
            fail(
              `its lines are at line ${anywhere[0]! + 1}, which is ${prev ? `before the end of the previous hunk (line ${prev.at + prev.oldLen})` : `before the @@ line it follows (line ${from + 1})`}. Hunks must be in file order and must not overlap: merge overlapping hunks into one.`,
            );
            return;
          }
          if (atEof && anywhere.length > 0) {
            fail(
              `its lines are at line ${anywhere[0]! + 1}, but the hunk ${h.atEof ? "is marked `*** End of File`" : "says `\\ No newline at end of file`"}, so they must be the last lines of the file (it has ${N}).`,
            );
            return;
          }
        }
        // A patch sent twice: its result is already there.
        const result = h.lines.filter((l) => l.op !== "-").map((l) => l.text);
        for (const lv of LINE_LEVELS) {
          const done = result.length > 0 ? matcher.find(result, lv, 0, N - result.length) : [];
          if (done.length > 0) {
            fail(
              `its lines are not in the file, but its result (context and added lines) is, at line ${done[0]! + 1}: this change seems to be applied already. Re-read the file before patching it again.`,
            );
            return;
          }
        }
        fail(notFoundMessage(path, h, old, matcher, hint ?? from));
        return;
      }
      at = found.at;
      if (found.level.name !== "exact") notes.push(`${where}: matched ${found.level.says}.`);
      if (h.oldStart !== undefined && h.oldStart !== at + 1) notes.push(`${where}: placed at line ${at + 1} (the header said ${h.oldStart}).`);
    }
    if (h.oldStart !== undefined && old.length > 0) delta = at - (h.oldStart - 1);
    placed.push({ hunk: h, at, oldLen: old.length });
    cursor = at + old.length;
  });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, text: build(ft, placed), notes };
}

/** The candidate nearest the hint; with no hint there must be exactly one. */
function nearest(cands: number[], hint: number | undefined): { at: number; tie?: undefined } | { at?: undefined; tie: number[] } {
  if (cands.length === 1) return { at: cands[0]! };
  if (hint === undefined) return { tie: cands };
  let best = Infinity;
  let ties: number[] = [];
  for (const p of cands) {
    const d = Math.abs(p - hint);
    if (d < best) {
      best = d;
      ties = [p];
    } else if (d === best) ties.push(p);
  }
  return ties.length === 1 ? { at: ties[0]! } : { tie: ties };
}

function build(ft: ReturnType<typeof splitText>, placed: Placed[]): string {
  const N = ft.lines.length;
  const added = placed.flatMap((p) => p.hunk.lines.filter((l) => l.op === "+"));
  // New lines take the file's usual ending; in an empty file, the ending the patch's lines carried.
  const eol = dominantEol(ft) ?? (added.length > 0 && added.every((l) => l.cr) ? "\r\n" : "\n");
  const lines: string[] = [];
  const eols: string[] = [];
  let j = 0;
  const copyTo = (end: number) => {
    for (; j < end; j++) {
      lines.push(ft.lines[j]!);
      eols.push(ft.eols[j]!);
    }
  };
  for (const p of placed) {
    copyTo(p.at);
    for (const l of p.hunk.lines) {
      if (l.op === " ") {
        lines.push(ft.lines[j]!);
        eols.push(ft.eols[j]!);
        j++;
      } else if (l.op === "-") j++;
      else {
        lines.push(l.text);
        eols.push(eol);
      }
    }
  }
  copyTo(N);

  // The final newline changes only when a hunk at the end of the file says so.
  let finalNewline = hasFinalNewline(ft);
  const last = placed[placed.length - 1];
  if (last && last.at + last.oldLen === N) {
    if (last.hunk.newNoNewline) finalNewline = false;
    else if (last.hunk.oldNoNewline) finalNewline = true;
  }
  for (let k = 0; k < eols.length - 1; k++) if (eols[k] === "") eols[k] = eol;
  if (eols.length > 0) eols[eols.length - 1] = finalNewline ? eols[eols.length - 1] || eol : "";
  return joinText({ lines, eols, bom: ft.bom });
}
