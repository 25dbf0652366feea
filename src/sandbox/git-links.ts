// Under --allow-write=.git a command can put a link anywhere in a git directory, and everything that reads or
// writes there follows it: the person's git (a branch's ref file led to a work-tree file, which any later command,
// grant or not, could rewrite to move the branch: red team 12's F10; a loose-object folder led to a work-tree copy,
// F10b), and bunker's own look after the command (a link in place of objects/pack, logs, modules, worktrees or
// sequencer made it remove, rename or read files in whatever folder the link led to, outside the workspace: F21-F24).
// git itself makes no links in a git directory. So each link the command made (or re-aimed) is set aside, first,
// before any other look after the command; links that were there before it (a `repo` checkout's) stay.
import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { isWithin } from "../perms/workspace.ts";
import { setAside } from "./git-guard.ts";

/**
 * Each link in these git directories (not followed) → where it leads. Walked whole, with no bound: one past which it
 * stopped was the command's to reach with 200,001 empty files, and a link it then made stayed (reviewer's R12-08).
 * Only loose-object folders (objects/XX, a repository's or a submodule's) are not walked: their files, tens of
 * thousands, are each checked by git-objects.ts, a link among them too; the folder itself is looked at here. Nor
 * are Git LFS's and git-annex's object stores (below).
 */
export function linksIn(gitDirs: readonly string[]): Map<string, string> {
  const links = new Map<string, string>();
  for (const gitDir of gitDirs) walk(gitDir, links);
  return links;
}

function walk(dir: string, links: Map<string, string>): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  const inObjects = basename(dir) === "objects";
  // Git LFS's and git-annex's stores (one file per object, hundreds of thousands: 330 ms a command, reviewer's R12-22)
  // are not walked: git itself reads nothing there, and what their tools read is a file the command could as well
  // have written in place (their content is not checked after a command either: see docs/security.md, Commands and the sandbox).
  const contentStore = basename(dir) === "lfs" || basename(dir) === "annex";
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isSymbolicLink()) {
      let to = "";
      try {
        to = readlinkSync(path);
      } catch {
        // gone meanwhile
      }
      links.set(path, to);
    } else if (e.isDirectory() && !(inObjects && isLooseFolderName(e.name)) && !(contentStore && e.name === "objects")) walk(path, links);
  }
}

function isLooseFolderName(name: string): boolean {
  if (name.length !== 2) return false;
  for (let i = 0; i < 2; i++) {
    const c = name.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
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
