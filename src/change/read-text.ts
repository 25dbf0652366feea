// Reading a file about to be changed: regular files only (a FIFO, socket or
// device is refused at once, never waited on in open()), text only, and no
// larger than read_file reads (a sparse 2 GB file is refused, not read).
import { lstatSync, type Stats } from "node:fs";
import { fileKind, FileKindError, KIND_WORDS, MAX_WORKSPACE_FILE_BYTES, readRegularSync } from "../fs/file-kind.ts";
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
  const kind = fileKind(st);
  if (kind === "file" || kind === "symlink") return null;
  if (kind === "directory") return `${display} is a directory, not a file.`;
  return `${display} is ${KIND_WORDS[kind]}; bunker only reads and writes regular files.`;
}

/** The decoded text of `real`, or null when it does not exist. Throws a ToolError for anything but a UTF-8 text file. */
export function readText(real: string, display: string): TextFile | null {
  let read;
  try {
    read = readRegularSync(real, display, { max: MAX_WORKSPACE_FILE_BYTES });
  } catch (err) {
    if (err instanceof FileKindError) throw new ToolError(err.message);
    throw err;
  }
  if (read === null) return null;
  const { bytes, st } = read;
  // Checked before read-before-write: read_file cannot read these, so asking for a read would be a dead end.
  if (bytes.includes(0)) throw new ToolError(`${display} looks like a binary file; only text files can be changed this way.`);
  try {
    return { text: decoder.decode(bytes), bytes, mode: st.mode & 0o7777 };
  } catch {
    throw new ToolError(`${display} is not valid UTF-8 text; only UTF-8 text files can be changed this way.`);
  }
}

