// Which path grant covers a resolved path: a path named by a flag (or a
// wildcard-free rules entry) covers itself and everything below it, component
// by component; a rules-file glob matches the absolute path.
import type { PathRules } from "./policy.ts";
import { isWithin } from "./workspace.ts";

/**
 * "flag" or "rules" for the grant that covers `real`, or null. `deny` matters
 * for bare flags: a bare --deny-write means everywhere, while a bare
 * --allow-write means the workspace only (decided by the caller).
 */
export function matchesPathRules(rules: PathRules | undefined, real: string, deny: boolean): "flag" | "rules" | null {
  if (!rules) return null;
  if (rules.workspace && deny) return "flag";
  // Loops, not .some: see jit.ts.
  for (const p of rules.paths) if (isWithin(p, real)) return "flag";
  for (const g of rules.globs) if (new Bun.Glob(g).match(real)) return "rules";
  return null;
}
