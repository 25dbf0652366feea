// The durable-write pieces shared by writeFileAtomic and the multi-file
// transaction: a side file next to its target, written and flushed before
// anything is renamed, and the directory flushed after.
import { closeSync, fchmodSync, fchownSync, fsync, fsyncSync, openSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * A fresh hidden name next to `path`. `keep` caps how much of the file's name
 * is kept, so a long (but legal) name plus the suffix stays under 255 bytes.
 */
export function sideName(path: string, ext: "tmp" | "bak", keep?: number): string {
  return join(dirname(path), `.${basename(path).slice(0, keep)}.bunker-${process.pid}-${Math.random().toString(36).slice(2, 10)}.${ext}`);
}

/**
 * Creates `tmp` (it must not exist) holding `data`, flushed to disk. With
 * `exactMode` the mode is set as given; otherwise open() applies the umask.
 * On failure the temp file is removed and the error rethrown.
 */
/** `owner`: the replaced file's owner and group, kept where allowed (a shared group, or root editing someone's file). */
export function writeTempFile(tmp: string, data: string | Uint8Array, mode: number, exactMode: boolean, owner?: { uid: number; gid: number }): void {
  const fd = openSync(tmp, "wx", mode);
  let written = false;
  try {
    if (owner) {
      try {
        fchownSync(fd, owner.uid, owner.gid);
      } catch {
        // Not ours to give away (not root, not in that group): the new file gets our ids.
      }
    }
    // open() applies the umask (0o664 would become 0o644): keep the mode exactly.
    // After fchown, which may clear the setgid bit.
    if (exactMode) fchmodSync(fd, mode);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    written = true;
  } finally {
    closeSync(fd);
    if (!written) safeUnlink(tmp);
  }
}

export function safeUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** Persist renames in `dir`; best effort (not every platform allows opening a directory). */
/**
 * The same on Bun's thread pool: the promise settles once the folder is on disk (or the flush is not
 * supported here). The caller goes on meanwhile, and awaits it before it counts on the entry.
 */
export function syncDirLater(dir: string): Promise<void> {
  let fd: number;
  try {
    fd = openSync(dir, "r");
  } catch {
    return Promise.resolve(); // not supported here
  }
  return new Promise((resolve) => fsync(fd, () => {
    closeSync(fd);
    resolve();
  }));
}

export function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // not supported here
  }
}
