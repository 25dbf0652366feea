// The git blob id of a file in the working tree, hashed by bunker itself
// (`blob <size>\0` then the bytes, as `git hash-object --no-filters` does).
// Not one batch call to git: git reads such a list a line at a time and drops
// a trailing CR, so one file named `pad\r` failed the whole call and every
// answer was lost (red team 13's F03). A file that cannot be hashed has no id;
// each caller takes the safe side for it.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

export type ObjectHash = "sha1" | "sha256";

/** The hash a repository's ids are made with, told by an id's length. */
export function hashOfId(id: string): ObjectHash {
  return id.length === 64 ? "sha256" : "sha1";
}

const CHUNK = 1024 * 1024;

/** A budget of bytes to read, shared by the files of one look: a command cannot make bunker read without end. */
export interface HashBudget {
  bytes: number;
}

/**
 * The blob id of the regular file at `path` (not through a link), or null when it is none, cannot be read, or is
 * larger than what is left of `budget` (then the budget is spent: nothing after it is hashed either).
 */
export function blobIdOf(path: string, hash: ObjectHash, budget: HashBudget): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    if (st.size > budget.bytes) {
      budget.bytes = 0;
      return null;
    }
    budget.bytes -= st.size;
    const hasher = new Bun.CryptoHasher(hash).update(`blob ${st.size}\0`);
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, st.size)));
    let left = st.size;
    while (left > 0) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, left), null);
      // Shorter than its size said (cut while read): not the file git would hash.
      if (n === 0) return null;
      hasher.update(buf.subarray(0, n));
      left -= n;
    }
    // Longer than its size said (written to while read): the same.
    if (readSync(fd, buf, 0, 1, null) !== 0) return null;
    return hasher.digest("hex");
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
