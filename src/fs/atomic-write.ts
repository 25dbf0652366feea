// Every write bunker makes goes through here: a temp file in the same
// directory, flushed to disk, then renamed over the target. A process killed
// at any moment leaves the old content or the new, never a mix or nothing.
import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export interface AtomicWriteOptions {
  /** File mode for the result; defaults to the existing file's mode, else 0o644. */
  mode?: number;
  /** Create missing parent directories. */
  mkdirs?: boolean;
}

export function writeFileAtomic(path: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  if (opts.mkdirs) mkdirSync(dir, { recursive: true });
  let mode = opts.mode;
  // A new file gets 0o644 less the umask; a kept or asked-for mode is set exactly.
  let exact = mode !== undefined;
  if (mode === undefined) {
    try {
      mode = statSync(path).mode & 0o7777;
      exact = true;
    } catch {
      mode = 0o644;
    }
  }
  // The temp name keeps at most 60 characters of the file's name: a long
  // (but legal) name plus the suffix must not exceed the 255-byte name limit.
  const tmp = join(dir, `.${basename(path).slice(0, 60)}.bunker-${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`);
  const fd = openSync(tmp, "wx", mode);
  try {
    // open() applies the umask (0o664 would become 0o644): keep the mode exactly.
    if (exact) fchmodSync(fd, mode);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    safeUnlink(tmp);
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    safeUnlink(tmp);
    throw err;
  }
  syncDir(dir);
}

function safeUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** Persist the rename itself; best effort (not every platform allows opening a directory). */
function syncDir(dir: string): void {
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
