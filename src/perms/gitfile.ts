// The two small files that send git elsewhere, read exactly as git reads
// them (setup.c): a `.git` file must start with "gitdir: " (one space), and
// the path is the rest of the file with only its trailing CR and LF removed;
// a `commondir` file is its text with trailing CR and LF removed. Spaces are
// part of the path: trimming them (as a regex's \s* did) made bunker check a
// decoy `x` while git used `x  ` (red team 3). Every reader of these files
// goes through here, so bunker and git always agree on where a repository is.
// And every read of a file a command may have made in a repository goes
// through readRegular: a FIFO there (an index, a config) must not stop bunker.
import { readRegularSync } from "../fs/file-kind.ts";

/**
 * A regular file's bytes (up to `maxBytes`), opened without following a final link when `noFollow`, and
 * without blocking on a FIFO; null for anything else (missing, a FIFO, a folder, too large, unreadable).
 */
export function readRegular(path: string, maxBytes: number, noFollow = false): Buffer | null {
  try {
    return readRegularSync(path, path, { max: maxBytes, follow: !noFollow })?.bytes ?? null;
  } catch {
    return null;
  }
}

/** How much of a small git file (a config, a .git file, a commondir) is read. */
export const SMALL_FILE = 1 << 20;

/** A small git file's text (readRegular), or null. */
export function readSmallText(path: string, noFollow = false): string | null {
  return readRegular(path, SMALL_FILE, noFollow)?.toString("utf8") ?? null;
}

/** The path a `.git` file names, as git reads it; null when git would not take it as a gitfile. */
export function gitfileTarget(text: string | null | undefined): string | null {
  if (!text?.startsWith("gitdir: ")) return null;
  const path = withoutLineEnd(text.slice("gitdir: ".length));
  return path === "" ? null : path;
}

/** The path a `commondir` file names, as git reads it; null when it names none. */
export function commondirTarget(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  const path = withoutLineEnd(text);
  return path === "" ? null : path;
}

function withoutLineEnd(s: string): string {
  // git reads the file as a C string: it ends at the first NUL.
  const nul = s.indexOf("\0");
  if (nul !== -1) s = s.slice(0, nul);
  let end = s.length;
  while (end > 0 && (s[end - 1] === "\n" || s[end - 1] === "\r")) end--;
  return s.slice(0, end);
}
