// What host git would read a repository's refs or its index from, as one
// digest of the raw bytes: when it is the same after a command as before,
// git would say the same, and bunker spawns no git to look (git-history.ts
// spawned four per command under --allow-write=.git). A digest of the bytes
// rather than a parse of them: bunker never reads refs differently from git,
// it only sees that nothing git reads changed. Anything it cannot take whole
// (a link, which git may follow; a FIFO; too many files or bytes) gives no
// stamp, and git is asked as before.
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { readRegularSync } from "../fs/file-kind.ts";

/**
 * Files in a git directory that name commits a person's git follows, with no ref to `git for-each-ref`:
 * `git reset --hard ORIG_HEAD`, `git am --abort` (ORIG_HEAD, once abort-safety is HEAD), `git merge FETCH_HEAD`, the
 * commit that concludes a merge or cherry-pick, `git diff AUTO_MERGE`. git-history.ts judges them like refs.
 */
export const PSEUDO_REFS = ["ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "AUTO_MERGE", "rebase-apply/abort-safety", "sequencer/abort-safety"] as const;

/** More than this many files or bytes: no stamp (git is asked). A repository with 5,000 loose refs packs them. */
const MAX_FILES = 5_000;
const MAX_BYTES = 64 * 1024 * 1024;

class Unstampable extends Error {}

interface Budget {
  files: number;
  bytes: number;
}

function addFile(h: Bun.CryptoHasher, path: string, budget: Budget): void {
  if (++budget.files > MAX_FILES) throw new Unstampable();
  let got;
  try {
    got = readRegularSync(path, path, { max: MAX_BYTES - budget.bytes });
  } catch {
    // A link (git may follow it), a FIFO, a device, too big: no stamp.
    throw new Unstampable();
  }
  // The name and the length go in too: moving bytes from one file to the next changes the digest.
  h.update(`${path}\0${got ? got.bytes.length : -1}\0`);
  if (got) {
    budget.bytes += got.bytes.length;
    h.update(got.bytes);
  }
}

function addTree(h: Bun.CryptoHasher, dir: string, budget: Budget): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return void h.update(`${dir}\0absent\0`);
    throw new Unstampable();
  }
  h.update(`${dir}\0dir\0`);
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, e.name);
    if (e.isDirectory()) addTree(h, path, budget);
    else addFile(h, path, budget);
  }
}

function stamp(fill: (h: Bun.CryptoHasher, budget: Budget) => void): string | null {
  const h = new Bun.CryptoHasher("sha256");
  try {
    fill(h, { files: 0, bytes: 0 });
  } catch (e) {
    if (e instanceof Unstampable) return null;
    throw e;
  }
  return h.digest("hex");
}

/** The git directory and its common directory (a linked worktree's `commondir` names it). */
function gitDirs(gitDir: string): string[] {
  let got;
  try {
    got = readRegularSync(join(gitDir, "commondir"), "commondir", { max: 4096 });
  } catch {
    throw new Unstampable();
  }
  const name = got?.bytes.toString("utf8").trim();
  return name ? [gitDir, resolve(gitDir, name)] : [gitDir];
}

/**
 * What `git for-each-ref` and HEAD read in `gitDir`: HEAD, the loose refs, packed-refs, a reftable, the pseudo-refs
 * (PSEUDO_REFS), in it and in its common directory, and the config (which says which of them git uses); null when it cannot be taken whole.
 */
export function refsStamp(gitDir: string): string | null {
  return stamp((h, budget) => {
    for (const d of gitDirs(gitDir)) {
      for (const f of ["HEAD", "packed-refs", "config", "config.worktree", "commondir", ...PSEUDO_REFS]) addFile(h, join(d, f), budget);
      addTree(h, join(d, "refs"), budget);
      addTree(h, join(d, "reftable"), budget);
    }
  });
}

/**
 * What `git ls-files -v` reads in `gitDir`: the index and a split index's shared part (its name is the digest git
 * checks it against, but the bytes go in all the same), and the config (its own and its common directory's); null when it cannot be taken whole.
 */
export function indexStamp(gitDir: string): string | null {
  return stamp((h, budget) => {
    addFile(h, join(gitDir, "index"), budget);
    for (const d of gitDirs(gitDir)) for (const f of ["config", "config.worktree"]) addFile(h, join(d, f), budget);
    let shared: string[] = [];
    try {
      shared = readdirSync(gitDir).filter((n) => n.startsWith("sharedindex.")).sort();
    } catch {
      throw new Unstampable();
    }
    for (const n of shared) addFile(h, join(gitDir, n), budget);
  });
}
