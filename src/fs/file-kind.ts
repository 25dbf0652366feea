// What kind of file a path is, and opening one for reading only when it is a
// regular file, without ever blocking: open() on a named pipe waits for a
// writer, and a read of /dev/zero never ends. Opened with O_NONBLOCK (a FIFO
// opens at once), O_NOFOLLOW (a path resolved a moment ago that became a link
// is refused, not followed), then checked with fstat on what was opened.
import { closeSync, constants, fstatSync, openSync, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";

export type FileKind = "file" | "directory" | "symlink" | "pipe" | "socket" | "device";

export function fileKind(st: Stats): FileKind {
  if (st.isFile()) return "file";
  if (st.isDirectory()) return "directory";
  if (st.isSymbolicLink()) return "symlink";
  if (st.isFIFO()) return "pipe";
  if (st.isSocket()) return "socket";
  return "device";
}

const KIND_WORDS: Record<FileKind, string> = {
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

export class FileKindError extends Error {
  override name = "FileKindError";
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
