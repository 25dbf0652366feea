// Writes land where they were shown: a directory is reached by opening each
// component from "/" without following links, and then held open. Every later
// step (temp file, rename, unlink) names the file through the held handle
// (/proc/self/fd/N/name on Linux), so a directory swapped for a link after
// the check cannot redirect it. Elsewhere the path is used after the same
// walk (a check-then-use, the best that platform allows from here).
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync } from "node:fs";
import { join, sep } from "node:path";

const PROC_FD = process.platform === "linux";
const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** A directory that is no longer what was checked: a link now, a file, or gone. */
export class PathChanged extends Error {
  override name = "PathChanged";
}

export class HeldDir {
  private constructor(
    readonly fd: number,
    /** The real path it was opened as. */
    readonly path: string,
  ) {}

  /** A path naming `name` inside this directory, through the handle. */
  at(name: string): string {
    return PROC_FD ? `/proc/self/fd/${this.fd}/${name}` : join(this.path, name);
  }

  /** Device and inode: the identity a recheck compares. */
  identity(): string {
    const st = fstatSync(this.fd);
    return `${st.dev}:${st.ino}`;
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }

  /**
   * Opens the absolute, link-free directory `dir` component by component,
   * refusing any component that is a link or not a directory. With
   * `create`, missing components are made (the same way, through the
   * handle of their parent) and pushed on `created`, outermost first.
   */
  static open(dir: string, opts: { create?: boolean; created?: string[] } = {}): HeldDir {
    const parts = dir.split(sep).filter(Boolean);
    let fd = openSync("/", DIR_FLAGS);
    let here = "/";
    try {
      for (const part of parts) {
        const next = join(here, part);
        const name = PROC_FD ? `/proc/self/fd/${fd}/${part}` : next;
        let child: number;
        try {
          child = openSync(name, DIR_FLAGS);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === "ENOENT" && opts.create) {
            mkdirSync(name, 0o777);
            opts.created?.push(next);
            child = openSync(name, DIR_FLAGS);
          } else throw new PathChanged(describeNonDir(next, code));
        }
        closeSync(fd);
        fd = child;
        here = next;
      }
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return new HeldDir(fd, here);
  }
}

function describeNonDir(path: string, code: string | undefined): string {
  if (code === "ENOENT") return `${path} does not exist`;
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) {
      let target = "";
      try {
        target = ` (to ${readlinkSync(path)})`;
      } catch {
        // unreadable link: name it without a target
      }
      return `${path} is now a symbolic link${target}, not the directory it was`;
    }
    if (!st.isDirectory()) return `${path} is a file, not a directory`;
  } catch {
    // gone meanwhile
  }
  return `${path} cannot be opened (${code ?? "unknown error"})`;
}
