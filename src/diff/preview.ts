// Builds the uncoloured unified diff and +/- counts shown before a write.
// Always computed from the real before and after contents, never from the
// model's own description of its change.
import type { FileChangePreview } from "../perms/types.ts";

export function makeFilePreview(
  display: string,
  before: string | null,
  after: string | null,
  kind?: FileChangePreview["kind"],
): FileChangePreview {
  const CONTEXT = 3;
  // Diff only the changed region: a one-line edit of a 50 MB file costs what the line costs. The
  // region grows when the diff inside it puts a change too near its edge for full context.
  const oldName = before === null ? "/dev/null" : `a/${display}`;
  const newName = after === null ? "/dev/null" : `b/${display}`;
  // Required here, not imported: the diff package builds its tables when loaded, and a turn that writes nothing never needs it.
  const { structuredPatch } = require("./package.ts") as typeof import("./package.ts");
  let patch: ReturnType<typeof structuredPatch>;
  for (let slack = CONTEXT; ; slack *= 4) {
    const region = changedRegion(before ?? "", after ?? "", slack);
    patch = structuredPatch(oldName, newName, region.before, region.after, undefined, undefined, { context: CONTEXT });
    for (const h of patch.hunks) {
      h.oldStart += region.lineOffset;
      h.newStart += region.lineOffset;
    }
    if (region.whole || contextComplete(patch.hunks, region, CONTEXT)) break;
  }
  let added = 0;
  let removed = 0;
  const lines: string[] = [`--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`];
  for (const h of patch.hunks) {
    // An empty range starts at the line before it, as unified diffs write it (-0,0).
    const oldStart = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart;
    const newStart = h.newLines === 0 ? h.newStart - 1 : h.newStart;
    lines.push(`@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@`);
    for (const l of h.lines) {
      if (l.startsWith("+")) added++;
      else if (l.startsWith("-")) removed++;
      lines.push(l);
    }
  }
  return {
    display,
    diff: lines.join("\n"),
    added,
    removed,
    kind: kind ?? (before === null ? "create" : after === null ? "delete" : "modify"),
  };
}

/**
 * The part of `before` and `after` that differs, widened to whole lines and
 * `context` lines either side, and how many lines come before it. Outside
 * the region both texts are identical, so its diff is the whole diff.
 */
export function changedRegion(before: string, after: string, context: number): Region {
  const shorter = Math.min(before.length, after.length);
  let p = 0;
  while (p < shorter && before.charCodeAt(p) === after.charCodeAt(p)) p++;
  if (p === before.length && p === after.length) return { before, after, lineOffset: 0, atStart: true, atEnd: true, whole: true };
  // The start of the line that differs: everything before it is common, in whole lines.
  const lineStart = p === 0 ? 0 : before.lastIndexOf("\n", p - 1) + 1;
  // The common tail, never reaching back into those common lines.
  let s = 0;
  const maxTail = shorter - lineStart;
  while (s < maxTail && before.charCodeAt(before.length - 1 - s) === after.charCodeAt(after.length - 1 - s)) s++;
  const shift = after.length - before.length;
  let endA = before.length - s;
  // End both regions just after the same newline of the common tail (so both end on a line boundary), then `context` lines more.
  for (let k = 0; k <= context && endA < before.length; k++) {
    if (k === 0 && endA > lineStart && before.charCodeAt(endA - 1) === 10 && after.charCodeAt(endA + shift - 1) === 10) continue;
    const nl = before.indexOf("\n", endA);
    endA = nl === -1 ? before.length : nl + 1;
  }
  // `context` lines of the common head, and (above) of the common tail.
  let start = lineStart;
  for (let k = 0; k < context && start > 0; k++) start = before.lastIndexOf("\n", start - 2) + 1;
  let lineOffset = 0;
  for (let i = before.indexOf("\n"); i !== -1 && i < start; i = before.indexOf("\n", i + 1)) lineOffset++;
  const atStart = start === 0;
  const atEnd = endA === before.length;
  return { before: before.slice(start, endA), after: after.slice(start, endA + shift), lineOffset, atStart, atEnd, whole: atStart && atEnd };
}

interface Region {
  before: string;
  after: string;
  /** Lines of the file before the region. */
  lineOffset: number;
  atStart: boolean;
  atEnd: boolean;
  /** The region is the whole file. */
  whole: boolean;
}

type Hunk = ReturnType<typeof import("diff").structuredPatch>["hunks"][number];

/** Every hunk has its full context, or reaches the file's own start or end. */
function contextComplete(hunks: Hunk[], region: Region, context: number): boolean {
  const first = hunks[0];
  const last = hunks.at(-1);
  if (!first || !last) return true;
  const leading = first.lines.findIndex((l) => !l.startsWith(" "));
  if (!region.atStart && leading < context) return false;
  const body = last.lines.filter((l) => !l.startsWith("\\"));
  let trailing = 0;
  for (let i = body.length - 1; i >= 0 && body[i]!.startsWith(" "); i--) trailing++;
  return region.atEnd || trailing >= context;
}
