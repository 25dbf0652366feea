// Under --allow-write=.git a command can put a link anywhere in a git directory, and everything that reads or
// writes there follows it: the person's git (a branch's ref file led to a work-tree file, which any later command,
// grant or not, could rewrite to move the branch: red team 12's F10; a loose-object folder led to a work-tree copy,
// F10b), and bunker's own look after the command (a link in place of objects/pack, logs, modules, worktrees or
// sequencer made it remove, rename or read files in whatever folder the link led to, outside the workspace: F21-F24).
// git itself makes no links in a git directory. So each link the command made (or re-aimed) is set aside, first,
// before any other look after the command; links that were there before it (a `repo` checkout's) stay.
import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { isWithin } from "../perms/workspace.ts";
import { setAside } from "./git-guard.ts";

/** Entries looked at in one git directory at most: refs, logs and hooks of a large repository are a few thousand. */
const MAX_ENTRIES = 200_000;

/** Each link in these git directories (not followed) → where it leads; loose-object folders' files are git-objects.ts's. */
export function linksIn(gitDirs: readonly string[]): Map<string, string> {
  const links = new Map<string, string>();
  for (const gitDir of gitDirs) {
    const budget = { left: MAX_ENTRIES };
    walk(gitDir, gitDir, links, budget);
  }
  return links;
}

function walk(gitDir: string, dir: string, links: Map<string, string>, budget: { left: number }): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  // A loose-object folder's files (tens of thousands) are each checked by git-objects.ts, a link among them too;
  // the folder itself (a link in its place) is looked at here.
  const inObjects = dir === join(gitDir, "objects");
  for (const e of entries) {
    if (--budget.left < 0) return;
    const path = join(dir, e.name);
    if (e.isSymbolicLink()) {
      let to = "";
      try {
        to = readlinkSync(path);
      } catch {
        // gone meanwhile
      }
      links.set(path, to);
    } else if (e.isDirectory() && !(inObjects && e.name.length === 2)) walk(gitDir, path, links, budget);
  }
}

/** After the command: each link in the git directories it made or re-aimed, set aside; one line each. */
export function linksAfter(root: string, gitDirs: readonly string[], before: ReadonlyMap<string, string>): string[] {
  const lines: string[] = [];
  const shown = (p: string) => (isWithin(root, p) ? relative(root, p) : p);
  const now = linksIn(gitDirs);
  // Outermost first: a link set aside takes nothing below it along (a walk does not go through links).
  for (const [path, to] of now) {
    if (before.get(path) === to) continue;
    let still = false;
    try {
      still = lstatSync(path).isSymbolicLink();
    } catch {
      // gone meanwhile
    }
    if (!still) continue;
    lines.push(setAside(root, path, `${shown(path)}, a link the command made in the git directory (to ${JSON.stringify(to)}): git never makes one, and your git and bunker would have read and written where it leads`));
  }
  return lines;
}
