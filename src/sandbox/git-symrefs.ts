// A symbolic ref that leads outside refs/ (`ref: FEATURE_TIP`, `ref: MY_HEAD`) is
// never one git makes: git's own symbolic refs are HEAD and refs/remotes/*/HEAD,
// each naming a ref under refs/. Under --allow-write=.git a command can make
// one, and then move the file it names, which no look at refs/ sees: a branch
// that stays on its commit while the command rewrites .git/FEATURE_TIP, so the
// person's `git checkout feature` writes a hook (red team 11's F12); an
// ORIG_HEAD that names .git/MY_HEAD, past the check of where ORIG_HEAD points
// (F10). After each such command, every ref, HEAD and pseudo-ref (in the git
// directory and each linked worktree's) that is symbolic to a place outside
// refs/ is made to name the commit it leads to now, as a plain ref, before the
// look at what moved (git-history.ts) judges it; one that leads nowhere is
// removed. Said in one line each.
import { idAtStart, refTarget } from "./git-ids.ts";
import { lstatSync } from "node:fs";
import { removeEntry, replaceFile } from "../fs/no-follow.ts";
import { folderNames } from "../perms/run-entry.ts";
import { join, relative } from "node:path";
import { readRegularSync } from "../fs/file-kind.ts";
import { PSEUDO_REFS } from "./git-stamps.ts";

function readText(path: string): string | null {
  try {
    return readRegularSync(path, path, { max: 4096 })?.bytes.toString("utf8") ?? null;
  } catch {
    return null;
  }
}

/** The folders whose HEAD and pseudo-refs a person's git reads: the git directory, and each linked worktree's. */
function headFolders(gitDir: string): string[] {
  return [gitDir, ...folderNames(join(gitDir, "worktrees")).map((w) => join(gitDir, "worktrees", w))];
}

/**
 * Every loose ref file under refs/ (files only; a link is left to the git wall). Walked whole: a bound on the files
 * read was the command's to reach, by padding refs/ (reviewer's R12-21); each is a read of a few bytes.
 */
function refFiles(dir: string, out: string[]): void {
  for (const n of folderNames(dir)) {
    const p = join(dir, n);
    let st;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) refFiles(p, out);
    else if (st.isFile()) out.push(p);
  }
}

/** Where `text` (a ref file's) points when it is symbolic to a place outside refs/, else null. */
export function outsideTarget(text: string): string | null {
  const target = refTarget(text);
  return target === null || target.startsWith("refs/") ? null : target;
}

/** The commit a target outside refs/ names now: its file in the git directory (or the common one), followed once more. */
function resolveOutside(gitDir: string, target: string): string | null {
  if (target.includes("..") || target.startsWith("/")) return null;
  const text = readText(join(gitDir, target));
  return text === null ? null : idAtStart(text);
}

/** After a command under --allow-write=.git: symbolic refs leading outside refs/ made plain (or removed), one line each. */
export function symrefsAfter(gitDir: string, root: string): string[] {
  const lines: string[] = [];
  const files: string[] = [];
  for (const d of headFolders(gitDir)) for (const name of ["HEAD", ...PSEUDO_REFS]) files.push(join(d, name));
  refFiles(join(gitDir, "refs"), files);
  for (const file of files) {
    const text = readText(file);
    const target = text === null ? null : outsideTarget(text);
    if (target === null) continue;
    const shown = relative(root, file) || file;
    const id = resolveOutside(gitDir, target);
    try {
      // Never through a link the command left at the name or on the way (no-follow.ts).
      if (id) replaceFile(file, `${id}\n`);
      else removeEntry(file);
    } catch (e) {
      lines.push(`bunker could not undo ${shown}, which the command made to name .git/${target} (${(e as Error).message}): check it before using git here`);
      continue;
    }
    lines.push(id
      ? `bunker made ${shown} name the commit it led to (${id.slice(0, 12)}) instead of the file .git/${target}, which the command made it name: git never makes such a ref, and a later change to that file would move it unseen`
      : `bunker removed ${shown}, which the command made to name the file .git/${target}: git never makes such a ref`);
  }
  return lines;
}
