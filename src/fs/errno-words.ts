// File-system failures named as what they are, with the fix: a read-only
// mount is not a read-only file, a full disk is not "disk I/O error", and a
// damaged database says to move it aside. One place for these words.
import { statfsSync } from "node:fs";

/** Words for a failed write to `path`, from its errno (or the disk's free space when the error hides it); null when nothing better is known. */
export function fsProblem(err: unknown, path: string): string | null {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === "EROFS") return `${path} is on a read-only file system (mounted read-only), so nothing there can be changed. Remount it read-write, or work in a copy elsewhere.`;
  // SQLite reports a full disk as "disk I/O error" (or "database or disk is full"): look at the disk.
  const vague = code === "EIO" || /disk I\/O error|SQLITE_IOERR|SQLITE_FULL|disk is full/i.test(String((err as Error)?.message ?? ""));
  if (code === "ENOSPC" || (vague && diskFull(path))) return `the disk holding ${path} is full (no space left on device). Free some space, then try again.`;
  if (code === "EDQUOT") return `the disk quota for ${path} is used up. Free some space, then try again.`;
  return null;
}

/** Whether the file system holding `path` has no free blocks left for us. */
export function diskFull(path: string): boolean {
  try {
    const st = statfsSync(path);
    return st.bavail === 0 || st.bavail * st.bsize < 64 * 1024;
  } catch {
    return false;
  }
}

/** SQLite's words for a file that is not a (whole) database. */
export function isDamagedDatabase(err: unknown): boolean {
  return /file is not a database|database disk image is malformed|file is encrypted|SQLITE_CORRUPT|SQLITE_NOTADB/i.test(String((err as Error)?.message ?? err));
}
