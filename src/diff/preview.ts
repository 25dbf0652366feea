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
    lines.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
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
