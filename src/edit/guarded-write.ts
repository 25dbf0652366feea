// The disk side of edit_file and write_file: read-before-write (the model must
// have read the current content this session), text-only decoding, and the
// final atomic write, which refuses if the file changed while the person was
// looking at the diff.
import { readFileSync, statSync } from "node:fs";
import { dirname, relative } from "node:path";
import { contentHash, type SessionState } from "../agent/session-state.ts";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { writeProblem } from "../fs/writable.ts";
import type { ResolvedPath } from "../perms/workspace.ts";
import { ToolError } from "../tools/tool.ts";

export interface ExistingFile {
  /** Decoded content; a BOM is kept as the first character. */
  text: string;
  hash: string;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Reads a file about to be changed, enforcing read-before-write. */
export function readForWrite(session: SessionState, path: ResolvedPath, verb: string): ExistingFile {
  let bytes: Uint8Array;
  try {
    if (statSync(path.real).isDirectory()) throw new ToolError(`${path.display} is a directory, not a file.`);
    bytes = readFileSync(path.real);
  } catch (err) {
    if (err instanceof ToolError) throw err;
    throw new ToolError(`Cannot read ${path.display}: ${(err as Error).message}`);
  }
  // Checked before read-before-write: read_file cannot read these, so asking for a read would be a dead end.
  if (bytes.includes(0)) throw new ToolError(`${path.display} looks like a binary file; only text files can be changed this way.`);
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new ToolError(`${path.display} is not valid UTF-8 text; only UTF-8 text files can be changed this way.`);
  }
  const problem = writeProblem(path.real, path.display);
  if (problem) throw new ToolError(problem);
  const hash = contentHash(bytes);
  const seen = session.readHashes.get(path.real);
  if (seen === undefined) {
    // After -c/-r the conversation shows earlier reads, but the file may have changed since: say why they do not count.
    const since = session.continued ? " (reads from before this session was continued do not count: the file may have changed since)" : "";
    throw new ToolError(`You have not read ${path.display} in this session${since}. Read it with read_file first, then ${verb} it.`);
  }
  if (seen !== hash) {
    throw new ToolError(`${path.display} has changed on disk since you last read it. Read it again with read_file, then ${verb} it.`);
  }
  return { text, hash };
}

/**
 * For a file about to be created: the nearest existing ancestor must be a
 * directory (asking the person about `notes.txt/x` would be pointless).
 */
export function checkCreatable(root: string, path: ResolvedPath): void {
  for (let dir = dirname(path.real); ; dir = dirname(dir)) {
    let isDir: boolean;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      if (dirname(dir) === dir) return;
      continue;
    }
    if (!isDir) {
      throw new ToolError(`Cannot create ${path.display}: ${relative(root, dir) || dir} is a file, not a directory.`);
    }
    const problem = writeProblem(path.real, path.display);
    if (problem) throw new ToolError(problem);
    return;
  }
}

/**
 * Writes `content` atomically, unless the file changed since `before` was read
 * (the person may have taken a while to answer), then records the new content
 * as read so the next edit needs no re-read.
 */
export function commitWrite(session: SessionState, path: ResolvedPath, before: ExistingFile | null, content: string): void {
  let current: string | null;
  try {
    current = contentHash(readFileSync(path.real));
  } catch {
    current = null;
  }
  if (before === null && current !== null) {
    throw new ToolError(`${path.display} was created by something else while waiting for approval; nothing was written. Read it with read_file and try again.`);
  }
  if (before !== null && current !== before.hash) {
    throw new ToolError(`${path.display} changed on disk while waiting for approval; nothing was written. Read it again with read_file and redo the change.`);
  }
  const bytes = new TextEncoder().encode(content);
  try {
    writeFileAtomic(path.real, bytes, { mkdirs: before === null });
  } catch (err) {
    throw new ToolError(`Could not write ${path.display}: ${(err as Error).message}. Nothing was changed.`);
  }
  session.recordRead(path.real, bytes);
}
