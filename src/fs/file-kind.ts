// What kind of file a path is, and opening one for reading only when it is a
// regular file, without ever blocking: open() on a named pipe waits for a
// writer, and a read of /dev/zero never ends. Opened with O_NONBLOCK (a FIFO
// opens at once), O_NOFOLLOW (a path resolved a moment ago that became a link
// is refused, not followed), then checked with fstat on what was opened.
//
// Every host-side read of a file a command or the model could have made (the
// workspace's .mcp.json and settings, AGENTS.md, a file being changed or taken
// back, git's small files) goes through readRegularSync: the one decision on
// what bunker reads, and how much of it.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { formatSize } from "../text/size.ts";

export type FileKind = "file" | "directory" | "symlink" | "pipe" | "socket" | "device";

export function fileKind(st: Stats): FileKind {
  if (st.isFile()) return "file";
  if (st.isDirectory()) return "directory";
  if (st.isSymbolicLink()) return "symlink";
  if (st.isFIFO()) return "pipe";
  if (st.isSocket()) return "socket";
  return "device";
}

export const KIND_WORDS: Record<FileKind, string> = {
  file: "a regular file",
  directory: "a directory",
  symlink: "a symbolic link",
  pipe: "a named pipe (FIFO)",
  socket: "a socket",
  device: "a device",
};

/** `display` is not a regular file: a sentence the model can act on. */
export function notRegularMessage(display: string, kind: FileKind, verb: "reads" | "searches" | "lists" | "writes" = "reads"): string {
  if (kind === "directory") return `${display} is a directory, not a file; use list_files to see what is in it`;
  return `${display} is ${KIND_WORDS[kind]}, not a regular file; bunker ${verb} regular files only (opening it could wait forever or never end)`;
}

/** Flags for reading: never blocks in open(), never follows a last-moment link. */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/** The same, following a final link: what it leads to is still opened without blocking and checked on the descriptor. */
const FOLLOW_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

export class FileKindError extends Error {
  override name = "FileKindError";
  /** The system's error code when one stopped the read (EMFILE, EACCES…): a caller may tell a passing one from the file's fault. */
  constructor(message: string, readonly code?: string) {
    super(message);
  }
}

/** The most bunker reads of a workspace file the model reads, changes or takes back (64 MiB). */
export const MAX_WORKSPACE_FILE_BYTES = 64 * 1024 * 1024;

/** How much of a file is read, and whether a final link is followed. */
export interface ReadLimit {
  /** The most bytes read: a larger file is refused without reading any of it, unless `cut`. */
  max: number;
  /** A larger file gives its first `max` bytes (and `cut: true`) instead of being refused. */
  cut?: boolean;
  /** Follow a final symbolic link (default: refuse it). What it leads to is checked the same way. */
  follow?: boolean;
}

export interface RegularBytes {
  bytes: Buffer;
  st: Stats;
  /** Only the first `max` bytes were read. */
  cut: boolean;
}

/**
 * The bytes of the regular file at `path` (up to `limit.max`), or null when nothing is there. Opened without
 * blocking (a FIFO opens at once), checked on the opened descriptor (a FIFO, socket, device or folder is refused
 * before a byte is read), and never read past the limit (a sparse 2 GB file, or one a command keeps growing, costs
 * at most `max`). Throws a FileKindError that names `display` and says what is wrong and that bunker did not read it.
 */
export function readRegularSync(path: string, display: string, limit: ReadLimit): RegularBytes | null {
  // Looked at before it is opened: opening some devices does something (red team 8 F7: `.mcp.json -> /dev/watchdog`
  // armed the watchdog, which reboots the machine). The descriptor is checked again below (a swap in between).
  let pre: Stats | undefined;
  try {
    // Nothing there (the usual case for a settings file or .mcp.json): null at once, without an error made and
    // thrown twice (here and by open(), 0.05-0.1 ms a missing file on a headless turn's start).
    pre = limit.follow ? statSync(path, { throwIfNoEntry: false }) : lstatSync(path, { throwIfNoEntry: false });
    if (pre === undefined) return null;
  } catch {
    // Not reachable: open() says why.
  }
  if (pre && !pre.isSymbolicLink()) {
    const kind = fileKind(pre);
    if (kind !== "file") throw new FileKindError(notReadMessage(display, kind));
  }
  let fd: number;
  try {
    fd = openSync(path, limit.follow ? FOLLOW_FLAGS : READ_FLAGS);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "ENOENT" || e.code === "ENOTDIR") return null;
    if (e.code === "ELOOP") throw new FileKindError(`${display} is a symbolic link; bunker did not follow it or read it`);
    if (e.code === "ENXIO") throw new FileKindError(notReadMessage(display, "socket"));
    throw new FileKindError(`bunker cannot read ${display}: ${e.message}`, e.code);
  }
  try {
    const st = fstatSync(fd);
    const kind = fileKind(st);
    if (kind !== "file") throw new FileKindError(notReadMessage(display, kind));
    if (st.size > limit.max && !limit.cut) {
      throw new FileKindError(`${display} is ${formatSize(st.size)}, more than the ${formatSize(limit.max)} bunker reads of it; bunker did not read it`);
    }
    return readOpened(fd, st, display, limit);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads an open regular file from where it is to its end, never past `limit.max`: its size is a hint, not a
 * promise (it may grow or shrink while read). Over the limit: refused, or with `cut` its first `max` bytes.
 */
export function readOpened(fd: number, st: Stats, display: string, limit: ReadLimit): RegularBytes {
  return readOpenedInto(fd, st, display, limit, (n) => Buffer.allocUnsafe(n));
}

/** Files up to this size are read into a plain Uint8Array by readOpenedBytes (larger ones into a Buffer: not zeroed first). */
const PLAIN_BYTES_MAX = 64 * 1024;

/**
 * readOpened's bytes as a Uint8Array, for a reader that needs no Buffer (read_file): a small file is read without
 * setting up the `Buffer` global, which costs a read-only headless turn about 0.2 ms (jit.ts). JavaScriptCore sets a
 * global up when it links a function that names it, taken branch or not: only `unzeroed` names Buffer here.
 */
export function readOpenedBytes(fd: number, st: Stats, display: string, limit: ReadLimit): { bytes: Uint8Array; st: Stats; cut: boolean } {
  return readOpenedInto(fd, st, display, limit, (n) => (n <= PLAIN_BYTES_MAX ? new Uint8Array(n) : unzeroed(n)));
}

/** A Buffer of `n` bytes, not zeroed first (they are read over). */
function unzeroed(n: number): Uint8Array {
  return Buffer.allocUnsafe(n);
}

function readOpenedInto<B extends Uint8Array>(fd: number, st: Stats, display: string, limit: ReadLimit, alloc: (n: number) => B): { bytes: B; st: Stats; cut: boolean } {
  try {
    let buf = alloc(Math.min(limit.max, Math.max(st.size, 4096)));
    let used = 0;
    for (;;) {
      if (used === buf.length) {
        if (buf.length >= limit.max) break;
        const bigger = alloc(Math.min(limit.max, buf.length * 2));
        bigger.set(buf.subarray(0, used));
        buf = bigger;
      }
      const n = readSync(fd, buf, used, buf.length - used, null);
      if (n === 0) break;
      used += n;
    }
    let cut = false;
    if (used === limit.max && readSync(fd, new Uint8Array(1), 0, 1, null) > 0) {
      if (!limit.cut) throw new FileKindError(`${display} grew past the ${formatSize(limit.max)} bunker reads of it while being read; bunker did not read it`);
      cut = true;
    }
    return { bytes: buf.subarray(0, used) as B, st, cut };
  } catch (err) {
    if (err instanceof FileKindError) throw err;
    throw new FileKindError(`bunker cannot read ${display}: ${(err as Error).message}`, (err as NodeJS.ErrnoException).code);
  }
}

/** `display` is not a regular file, so it was not read: a sentence for the person. */
export function notReadMessage(display: string, kind: FileKind): string {
  if (kind === "directory") return `${display} is a directory, not a file; bunker did not read it`;
  return `${display} is ${KIND_WORDS[kind]}, not a regular file; bunker did not read it`;
}

function openError(display: string, err: NodeJS.ErrnoException): FileKindError {
  // ELOOP: the last component is a link now (it was resolved as not one); ENXIO: a socket.
  if (err.code === "ELOOP") return new FileKindError(`${display} changed into a symbolic link while being opened; try again`);
  if (err.code === "ENXIO") return new FileKindError(notRegularMessage(display, "socket"));
  return new FileKindError(`cannot open ${display}: ${err.message}`);
}

/** A descriptor of the regular file at `path` and its stats, or a FileKindError saying what it is instead. */
export function openRegularSync(path: string, display: string): { fd: number; st: Stats } {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (err) {
    throw openError(display, err as NodeJS.ErrnoException);
  }
  const st = fstatSync(fd);
  const kind = fileKind(st);
  if (kind !== "file") {
    closeSync(fd);
    throw new FileKindError(notRegularMessage(display, kind));
  }
  return { fd, st };
}

/** The same, without blocking the event loop: for reading many files at once (grep). */
export async function openRegular(path: string, display: string): Promise<{ handle: FileHandle; st: Stats }> {
  let handle: FileHandle;
  try {
    // Loaded on grep's first file, not at start-up: importing node:fs/promises cost 0.3 ms of every run.
    const { open } = process.getBuiltinModule("node:fs/promises") as typeof import("node:fs/promises");
    handle = await open(path, READ_FLAGS);
  } catch (err) {
    throw openError(display, err as NodeJS.ErrnoException);
  }
  const st = await handle.stat();
  const kind = fileKind(st);
  if (kind !== "file") {
    await handle.close();
    throw new FileKindError(notRegularMessage(display, kind));
  }
  return { handle, st };
}
