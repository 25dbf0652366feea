// Builds the uncoloured unified diff and +/- counts shown before a write.
// Always computed from the real before and after contents, never from the
// model's own description of its change.
import { structuredPatch } from "diff";
import type { FileChangePreview } from "../perms/types.ts";

export function makeFilePreview(
  display: string,
  before: string | null,
  after: string | null,
  kind?: FileChangePreview["kind"],
): FileChangePreview {
  const patch = structuredPatch(
    before === null ? "/dev/null" : `a/${display}`,
    after === null ? "/dev/null" : `b/${display}`,
    before ?? "",
    after ?? "",
    undefined,
    undefined,
    { context: 3 },
  );
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
