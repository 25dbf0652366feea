// bunker's own writes on the host into folders a sandboxed command could write: what the git guard puts back,
// rewrites, removes or sets aside after a command, in the git directory (--allow-write=.git) or the workspace. The
// command may have left a link anywhere there: at the file's own name, at a name beside it that bunker writes
// first, or in place of a folder on the way. A write by path follows it out (red team 12's F19: a reflog rewritten
// through a link left at its temporary name replaced the person's ~/.bashrc). So each of these reaches the folder
// from / without following a link (HeldDir, which refuses one), makes the new file under a random name that must
// not exist (O_EXCL: never through a link), and renames through the held folder: a link at the name itself is
// replaced or moved, never written through. A folder that is a link now is an error the caller reports.
import { fsyncSync, lstatSync, renameSync, rmSync } from "node:fs";
import { basename, dirname } from "node:path";
import { safeUnlink, writeTempFile } from "./durable.ts";
import { HeldDir } from "./held-dir.ts";

function withFolder<T>(path: string, use: (dir: HeldDir, name: string) => T): T {
  const dir = HeldDir.open(dirname(path));
  try {
    return use(dir, basename(path));
  } finally {
    dir.close();
  }
}

/** Replaces the file at `path` with `data` (durably); `mode` defaults to the old file's when it was a plain file. */
export function replaceFile(path: string, data: string | Uint8Array, mode?: number): void {
  withFolder(path, (dir, name) => {
    let keep = mode;
    if (keep === undefined) {
      try {
        const st = lstatSync(dir.at(name));
        keep = st.isFile() ? st.mode & 0o7777 : 0o644;
      } catch {
        keep = 0o644;
      }
    }
    const tmp = dir.at(`.${name.slice(0, 60)}.bunker-${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`);
    writeTempFile(tmp, data, keep, true);
    try {
      renameSync(tmp, dir.at(name));
    } catch (err) {
      safeUnlink(tmp);
      throw err;
    }
    fsyncSync(dir.fd);
  });
}

/** Removes the entry at `path`: a file, a link (not what it leads to) or, with `recursive`, a folder. */
export function removeEntry(path: string, opts: { recursive?: boolean } = {}): void {
  withFolder(path, (dir, name) => rmSync(dir.at(name), { force: true, recursive: opts.recursive ?? false }));
}

/** Renames the entry at `from` (whatever it is; a link is moved, not followed) to `to`, in the same folder or another. */
export function renameEntry(from: string, to: string): void {
  withFolder(from, (src, fromName) => {
    if (dirname(to) === dirname(from)) return renameSync(src.at(fromName), src.at(basename(to)));
    withFolder(to, (dst, toName) => renameSync(src.at(fromName), dst.at(toName)));
  });
}
