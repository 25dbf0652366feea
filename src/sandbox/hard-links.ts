// A file git obeys (a config, a hook) with a second name (a hard link) is as
// writable as that name (red team 6's F12l: `git init sub && ln
// sub/.git/config notes.txt`, then a later command appends core.fsmonitor to
// notes.txt). The read-only mount of a git directory covers its own names
// only. A link into a mounted folder cannot be made from inside the sandbox
// (link() across mounts is EXDEV), so a second name exists only when it was
// made with the repository (the command that created it: broken here when it
// is disarmed) or before bunker (the person's own: such a file is checked
// again after every command, and disarmed when it changed).
import { closeSync, constants, fchmodSync, fstatSync, ftruncateSync, futimesSync, lstatSync, openSync, readdirSync, readSync, renameSync, rmSync, writeSync } from "node:fs";
import { join, relative } from "node:path";

/** Folders in a git directory not looked into for second names: git's object store runs nothing (and is large). */
const NOT_RUN = new Set(["objects"]);

/**
 * Every regular file in `dir` (a git directory, its object store left out) that has another name: replaced by a
 * copy of its own, so writing the other name no longer changes it. Their paths from `dir`.
 */
export function ownCopies(dir: string): string[] {
  const done: string[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (!(d === dir && NOT_RUN.has(e.name))) walk(p);
      } else if (e.isFile() && ownCopy(p)) done.push(relative(dir, p));
    }
  };
  walk(dir);
  return done;
}

/** Largest file ownCopy copies by default: git's configs and hooks are small; a larger one with a second name is set aside with its repository. */
export const OWN_COPY_MAX = 16 * 1024 * 1024;
const CHUNK = 64 * 1024;
const ZEROS = Buffer.alloc(CHUNK);

/**
 * `path` replaced by a copy of its own when it is a regular file with another name (true then). Throws when that
 * fails, and for a file larger than `maxBytes` (red team 8 F5: `truncate -s 1T` and a second name had bunker write
 * it all). Nothing here follows a link: the file is opened without following one, and the copy is a new file under a
 * name no one can guess, made only if nothing is there (red team 7 F10: a command that planted a link at
 * `config.bunker-copy-PID`, for every PID, had bunker write its copy, and the mode, into ~/.bashrc). Holes stay holes
 * (a run of zeros is not written), and the modification time is kept (build tools compare it).
 */
export function ownCopy(path: string, maxBytes = OWN_COPY_MAX): boolean {
  let from: number;
  try {
    from = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOOP") return false; // a link, not a second name
    throw err;
  }
  let to: number | undefined;
  let copy: string | undefined;
  try {
    const st = fstatSync(from);
    if (!st.isFile() || st.nlink < 2) return false;
    if (st.size > maxBytes) throw new Error(`${path} has another name and is ${st.size} bytes, more than the ${maxBytes} bunker copies`);
    copy = `${path}.bunker-copy-${Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString("hex")}`;
    to = openSync(copy, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    const buf = Buffer.allocUnsafe(CHUNK);
    let at = 0;
    // Read up to the size seen (a file growing meanwhile is not followed past it).
    for (let n; at < st.size && (n = readSync(from, buf, 0, Math.min(CHUNK, st.size - at), at)) > 0; at += n) {
      if (ZEROS.compare(buf, 0, n, 0, n) === 0) continue; // a hole (or zeros): left unwritten
      for (let off = 0; off < n; ) off += writeSync(to, buf, off, n - off, at + off);
    }
    ftruncateSync(to, at);
    fchmodSync(to, st.mode & 0o7777);
    futimesSync(to, st.atime, st.mtime);
    closeSync(to);
    to = undefined;
    renameSync(copy, path);
    copy = undefined;
    return true;
  } finally {
    closeSync(from);
    if (to !== undefined) closeSync(to);
    if (copy !== undefined) rmSync(copy, { force: true });
  }
}

/** Of `paths`, the regular files with another name, each with its identity and last change (a write through any name moves it). */
export function linkedFiles(paths: Iterable<string>): Map<string, string> {
  const found = new Map<string, string>();
  for (const p of paths) {
    try {
      const st = lstatSync(p);
      if (st.isFile() && st.nlink > 1) found.set(p, `${st.dev}:${st.ino}:${st.ctimeMs}`);
    } catch {
      // Gone: nothing to watch.
    }
  }
  return found;
}

/** The files of `before` (linkedFiles) that changed since: written through another name, or replaced. */
export function changedSince(before: Map<string, string>): string[] {
  const now = linkedFiles(before.keys());
  return [...before.keys()].filter((p) => {
    if (now.get(p) === before.get(p)) return false;
    try {
      return lstatSync(p).isFile();
    } catch {
      return false;
    }
  });
}
