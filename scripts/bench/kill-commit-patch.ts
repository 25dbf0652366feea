// The workspace and the 20-file patch of the kill test: 16 updates, two adds
// (one in a new directory), a delete and a move with an edit.
const UPDATED = Array.from({ length: 16 }, (_, i) => `src/f${String(i + 1).padStart(2, "0")}.txt`);

function body(name: string, version: string): string {
  // ~8 KB each, so a kill can land mid-write of a temp file too.
  return Array.from({ length: 200 }, (_, i) => `${name} line ${i} ${i === 100 ? version : "same"} ${"x".repeat(24)}\n`).join("");
}

/** The workspace before the patch. */
export function beforeTree(): Record<string, string> {
  const t: Record<string, string> = {};
  for (const f of UPDATED) t[f] = body(f, "old");
  t["gone.txt"] = body("gone.txt", "old");
  t["old/moved.txt"] = body("moved.txt", "old");
  return t;
}

/** The workspace after it. */
export function afterTree(): Record<string, string> {
  const t: Record<string, string> = {};
  for (const f of UPDATED) t[f] = body(f, "new");
  t["added.txt"] = "added\n";
  t["fresh/dir/added2.txt"] = "added too\n";
  t["new/moved.txt"] = body("moved.txt", "new");
  return t;
}

export function killPatch(): string {
  const lines = ["*** Begin Patch"];
  for (const f of UPDATED) lines.push(`*** Update File: ${f}`, "@@", ` ${f} line 99 same ${"x".repeat(24)}`, `-${f} line 100 old ${"x".repeat(24)}`, `+${f} line 100 new ${"x".repeat(24)}`, ` ${f} line 101 same ${"x".repeat(24)}`);
  lines.push("*** Add File: added.txt", "+added", "*** Add File: fresh/dir/added2.txt", "+added too", "*** Delete File: gone.txt");
  lines.push("*** Update File: old/moved.txt", "*** Move to: new/moved.txt", "@@", ` moved.txt line 99 same ${"x".repeat(24)}`, `-moved.txt line 100 old ${"x".repeat(24)}`, `+moved.txt line 100 new ${"x".repeat(24)}`, ` moved.txt line 101 same ${"x".repeat(24)}`);
  lines.push("*** End Patch");
  return lines.join("\n") + "\n";
}
