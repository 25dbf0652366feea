// Reading a file about to be changed: regular files only (a FIFO, socket or
// device is refused at once, never waited on in open()), text only.
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, type Stats } from "node:fs";
import { ToolError } from "../tools/tool.ts";

export interface TextFile {
  text: string;
  bytes: Uint8Array;
  mode: number;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Why `real` is not something bunker writes (a directory, FIFO, socket, device), or null. */
export function kindProblem(real: string, display: string): string | null {
  let st: Stats;
  try {
    st = lstatSync(real);
  } catch {
    return null;
  }
  return describeKind(st, display);
}

function describeKind(st: Stats, display: string): string | null {
  if (st.isFile() || st.isSymbolicLink()) return null;
  if (st.isDirectory()) return `${display} is a directory, not a file.`;
  const what = st.isFIFO() ? "a FIFO (named pipe)" : st.isSocket() ? "a socket" : st.isCharacterDevice() || st.isBlockDevice() ? "a device" : "not a regular file";
  return `${display} is ${what}; bunker only reads and writes regular files.`;
}

/** The decoded text of `real`, or null when it does not exist. Throws a ToolError for anything but a UTF-8 text file. */
export function readText(real: string, display: string): TextFile | null {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the kind is checked on the open file.
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    if (code === "EISDIR") throw new ToolError(`${display} is a directory, not a file.`);
    throw new ToolError(`Cannot read ${display}: ${(err as Error).message}`);
  }
  let bytes: Uint8Array;
  let mode: number;
  try {
    const st = fstatSync(fd);
    const problem = describeKind(st, display);
    if (problem) throw new ToolError(problem);
    mode = st.mode & 0o7777;
    bytes = readFileSync(fd);
  } finally {
    closeSync(fd);
  }
  // Checked before read-before-write: read_file cannot read these, so asking for a read would be a dead end.
  if (bytes.includes(0)) throw new ToolError(`${display} looks like a binary file; only text files can be changed this way.`);
  try {
    return { text: decoder.decode(bytes), bytes, mode };
  } catch {
    throw new ToolError(`${display} is not valid UTF-8 text; only UTF-8 text files can be changed this way.`);
  }
}
