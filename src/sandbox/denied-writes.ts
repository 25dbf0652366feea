// Deny-write GLOBS at the sandbox's wall (red team 11's F03). A deny-write
// path is a read-only mount; a glob (`write:migrations/**`, --deny-write='infra/**')
// was only the judge's text, and a command wrote its files. Here each glob is
// held as the git wall holds the files other tools run later: every existing
// match read-only before the command, every new or changed match set aside
// after it (git-wall.ts), and a `DIR/**` glob's folder read-only whole, so
// nothing new can be made in it either.
import { lstatSync, readFileSync, renameSync, writeFileSync } from "node:fs";
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
 * each `DIR/**` folder whole, and the fixed folder of a glob that matches more than `max` files (docs/security.md says so);
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

/**
 * Of the paths kept read-only (`readOnly`: the wall's matches, denied paths and folders), those a deny-write rule
 * holds: a denied path or what is in it, a `DIR/**` folder, a glob's match (as the wall matches: its lower-case name
 * too). The folders on the way to each are pinned (red team 12's F04), so no command can move the file out of its
 * rule's reach and write it there.
 */
export function deniedWriteHeld(deny: PathRules, roots: readonly string[], readOnly: readonly string[]): string[] {
  if (deny.paths.length === 0 && deny.globs.length === 0) return [];
  const globs = deny.globs.map((g) => new Bun.Glob(g));
  const folders = deniedWriteFolders(deny, roots);
  return [...new Set(readOnly)].filter(
    (p) => roots.some((r) => isWithin(r, p) && r !== p) &&
      (deny.paths.some((d) => isWithin(d, p)) || folders.includes(p) || globs.some((g) => g.match(p) || g.match(p.toLowerCase()))),
  );
}

/** A deny-write file's copy kept for putting it back: each file at most, and all of them at most, per session. */
export const KEPT_FILE_BYTES = 1024 * 1024;
export const KEPT_TOTAL_BYTES = 16 * 1024 * 1024;

interface HeldFile {
  id: string;
  mode: number;
  bytes: Buffer | null;
}

/** The copies kept, by path: read again only when the file changed (the person's own edit between commands). */
const keptCopies = new Map<string, HeldFile>();

function identity(st: import("node:fs").Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

/**
 * The deny-write files as they are before a command (`paths`: those deniedWriteHeld found; folders are skipped), and
 * after it what became of them: one gone or changed is said (red team 12's F04: nothing was), and put back from the
 * copy kept when it was small enough (KEPT_FILE_BYTES, KEPT_TOTAL_BYTES in all); a changed one is set aside first. The
 * sandbox keeps them read-only and their folders pinned: this is the check that it held.
 */
export function deniedWritesBefore(paths: readonly string[]): { after(show: (p: string) => string): string[] } {
  const before = new Map<string, HeldFile>();
  let total = [...keptCopies.values()].reduce((n, h) => n + (h.bytes?.length ?? 0), 0);
  for (const p of paths) {
    let st;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    const id = identity(st);
    let held = keptCopies.get(p);
    if (!held || held.id !== id) {
      total -= held?.bytes?.length ?? 0;
      let bytes: Buffer | null = null;
      if (st.size <= KEPT_FILE_BYTES && total + st.size <= KEPT_TOTAL_BYTES) {
        try {
          bytes = readFileSync(p);
          total += bytes.length;
        } catch {
          bytes = null;
        }
      }
      held = { id, mode: st.mode & 0o7777, bytes };
      keptCopies.set(p, held);
    }
    before.set(p, held);
  }
  return {
    after(show) {
      const lines: string[] = [];
      for (const [p, held] of before) {
        let st;
        try {
          st = lstatSync(p);
        } catch {
          st = null;
        }
        if (st && st.isFile() && identity(st) === held.id) continue;
        const name = show(p);
        if (st) {
          // Changed in place (or something else there now): set aside, then the person's copy put back.
          try {
            renameSync(p, `${p}.bunker-set-aside`);
          } catch {
            lines.push(`${name}, which a deny-write rule covers, was changed by the command, and bunker could not set it aside: look at it before using it`);
            continue;
          }
        }
        if (held.bytes) {
          try {
            writeFileSync(p, held.bytes, { flag: "wx", mode: held.mode });
            lines.push(`${name}, which a deny-write rule covers, was ${st ? "changed" : "removed"} by the command: bunker put back your copy${st ? ` (the command's is ${name}.bunker-set-aside)` : ""}`);
            continue;
          } catch {
            // its folder gone: said below
          }
        }
        lines.push(`${name}, which a deny-write rule covers, was ${st ? `changed by the command (set aside as ${name}.bunker-set-aside)` : "removed by the command"}, and bunker kept no copy it could put back${held.bytes ? "" : ` (over ${KEPT_FILE_BYTES / 1024 / 1024} MB)`}`);
      }
      return lines;
    },
  };
}
