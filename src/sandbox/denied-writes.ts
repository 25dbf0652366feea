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
  const rules = deny.globs.map((glob) => ({ glob, why: `${DENIED_WRITE_WHY} (${glob})`, ci: true }));
  // A denied path that is not there yet (prod.yml, deploy/): one a command makes there is set aside after it, as a
  // glob's new match is; one that is there is mounted read-only (red team 11's F03b).
  for (const p of deny.paths) {
    const literal = p.replace(/[*?[\]{}!\\]/g, (c) => `\\${c}`);
    rules.push({ glob: literal, why: `${DENIED_WRITE_WHY} (${p})`, ci: true }, { glob: `${literal}/**`, why: `${DENIED_WRITE_WHY} (${p})`, ci: true });
  }
  return rules;
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

/** Most files one deny-write glob keeps read-only one by one: past it, its fixed folder is read-only whole (bubblewrap takes about 3 000 mounts at most, slowly). */
export const MAX_FILE_MOUNTS = 200;

/**
 * The read-only mounts for the deny-write globs, given the wall's (`wallReadOnly`, each file it matched among them):
 * each `DIR/**` folder whole, and the fixed folder of a glob that matches more than `max` files (the README says so);
 * the wall's paths inside those folders left out (the folder's mount holds them). Refused when such a glob's fixed
 * folder is a writable root itself (`**\/*.sql` matching thousands of files): which rule to narrow.
 */
export function deniedWriteMounts(deny: PathRules, roots: readonly string[], wallReadOnly: readonly string[], max = MAX_FILE_MOUNTS): { folders: string[]; wall: string[] } | { refused: string } {
  const folders = deniedWriteFolders(deny, roots);
  const inFolder = (p: string) => folders.some((f) => isWithin(f, p) && f !== p);
  for (const glob of deny.globs) {
    const g = new Bun.Glob(glob);
    const matched = wallReadOnly.filter((p) => !inFolder(p) && g.match(p)).length;
    if (matched <= max) continue;
    const base = globBase(glob);
    if (!roots.some((r) => isWithin(r, base) && r !== base)) {
      return { refused: `the deny-write rule ${glob} matches more than ${max} files, too many to keep read-only one by one, and its fixed part is a whole writable folder. Narrow the rule to the folder that holds them (like migrations/** instead of **/*.sql), or deny that folder as a path (--deny-write=PATH, read-only whole)` };
    }
    if (!folders.includes(base)) folders.push(base);
  }
  return { folders, wall: wallReadOnly.filter((p) => !inFolder(p)) };
}

/**
 * The deny-write rule that covers `path` whole, or null (red team 11's F07): a denied path at or above it
 * (`--deny-write=~/notes` over `--allow-write=~/notes/sub`, or the same path), a `DIR/**` glob whose folder holds it
 * or is it, or, for a file, any glob that matches it. A deny wins over a grant: such a write grant is shown read-only,
 * and a workspace so covered is read-only whole.
 */
export function deniedWholeBy(deny: PathRules, path: string): string | null {
  const p = deny.paths.find((d) => isWithin(d, path));
  if (p) return p;
  for (const glob of deny.globs) {
    if (glob.endsWith(`${sep}**`) && !WILDCARD.test(glob.slice(0, -3)) && isWithin(globBase(glob), path)) return glob;
  }
  let file = false;
  try {
    file = !lstatSync(path).isDirectory();
  } catch {
    // Not there: a file the grant names, made later, is matched as one.
    file = true;
  }
  return file ? (deny.globs.find((g) => new Bun.Glob(g).match(path)) ?? null) : null;
}

/** The denied paths strictly inside one of the writable `roots` (the workspace, each granted folder): each its own read-only mount, where it is there. */
export function deniedPathsInside(deny: PathRules, roots: readonly string[]): string[] {
  return deny.paths.filter((p) => roots.some((r) => isWithin(r, p) && r !== p));
}

