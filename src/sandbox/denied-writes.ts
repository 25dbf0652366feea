// Deny-write GLOBS at the sandbox's wall (red team 11's F03). A deny-write
// path is a read-only mount; a glob (`write:migrations/**`, --deny-write='infra/**')
// was only the judge's text, and a command wrote its files. Here each glob is
// held as the git wall holds the files other tools run later: every existing
// match read-only before the command, every new or changed match set aside
// after it (git-wall.ts), and a `DIR/**` glob's folder read-only whole, so
// nothing new can be made in it either.
import { lstatSync } from "node:fs";
import { sep } from "node:path";
import type { PathRules } from "../perms/policy.ts";
import type { RunsLaterRule } from "../perms/runs-later.ts";
import { isWithin } from "../perms/workspace.ts";
import { globBase } from "./denied-files.ts";

/** An unescaped wildcard (globBase's test). */
const WILDCARD = /(^|[^\\])[*?[\]{}]/;

/** What the person is told a set-aside file was kept from. */
export const DENIED_WRITE_WHY = "a deny-write rule covers it";

/** The deny-write globs as rules for the git wall's walk: matched where they point (absolute), not followed for names they hold. */
export function deniedWriteRules(deny: PathRules): RunsLaterRule[] {
  return deny.globs.map((glob) => ({ glob, why: `${DENIED_WRITE_WHY} (${glob})`, ci: true }));
}

/**
 * The folders a `DIR/**` glob covers whole, inside one of the writable `roots` (not a root itself): mounted
 * read-only, so a command can neither change what is in them nor make anything new there.
 */
export function deniedWriteFolders(deny: PathRules, roots: readonly string[]): string[] {
  const out: string[] = [];
  for (const glob of deny.globs) {
    if (!glob.endsWith(`${sep}**`)) continue;
    const base = globBase(glob);
    // Only a glob that is its folder and `**` (not `DIR/**/*.sql`, which leaves other files writable).
    if (WILDCARD.test(glob.slice(0, -3)) || base === sep) continue;
    if (!roots.some((r) => isWithin(r, base) && r !== base) || out.includes(base)) continue;
    try {
      if (lstatSync(base).isDirectory()) out.push(base);
    } catch {
      // Not there yet: what a command makes there is set aside after it (the wall's walk).
    }
  }
  return out;
}
