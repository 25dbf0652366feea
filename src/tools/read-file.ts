// read_file: a text file as numbered lines (cat -n style), a window at a
// time. Records what the model saw, for read-before-write. An image file
// (PNG, JPEG, GIF, WebP) comes back as an image block (tools/image.ts).
import { closeSync } from "node:fs";
import { basename } from "node:path";
import { isWithin } from "../perms/workspace.ts";
import { MAX_WORKSPACE_FILE_BYTES, openRegularSync, readOpenedBytes } from "../fs/file-kind.ts";
import { utf8Length, utf8Text } from "../text/utf8.ts";
import { count, cutLine, MAX_OUTPUT_BYTES, partResult } from "./bound.ts";
import { prepareImage, sniffImage } from "./image.ts";
import { notFoundError } from "./not-found.ts";
import { ToolError, type Tool } from "./tool.ts";
import { readAllowed } from "./walk.ts";

export interface ReadFileInput {
  path: string;
  offset?: number;
  limit?: number;
}

export const DEFAULT_LINE_LIMIT = 2_000;
/** Larger files are refused: grep finds the lines worth reading. */
export const MAX_FILE_BYTES = MAX_WORKSPACE_FILE_BYTES;
/** A NUL byte in this many leading bytes marks a binary file. */
export const BINARY_SNIFF_BYTES = 8192;

export const readFileTool: Tool<ReadFileInput> = {
  name: "read_file",
  description:
    "Read a text file as numbered lines. Shows up to 2000 lines or ~20 KB; the output says which offset to pass for the rest. A PNG, JPEG, GIF or WebP image is shown to you as an image.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "Relative to the workspace root, or absolute" },
      offset: { type: "integer", description: "First line to show, 1-based (default 1)" },
      limit: { type: "integer", description: "Most lines to show (default 2000)" },
    },
    required: ["path"],
    additionalProperties: false,
  },
  summarize: (input) => (input.offset ? `${input.path}:${input.offset}` : input.path),

  async run(input, ctx) {
    const offset = input.offset ?? 1;
    const limit = input.limit ?? DEFAULT_LINE_LIMIT;
    if (offset < 1) throw new ToolError(`offset must be 1 or more (lines are numbered from 1), got ${offset}`);
    if (limit < 1) throw new ToolError(`limit must be 1 or more, got ${limit}`);

    const path = await ctx.perms.resolveRead(input.path, "read_file");
    if (!path.exists) throw notFoundError(ctx.root, path, readAllowed(ctx.perms));
    const bytes = readWholeFile(path.real, path.display);
    const image = sniffImage(bytes);
    if (image) {
      const prepared = await prepareImage(bytes, image, path.display);
      return { content: prepared.summary, isError: false, images: [prepared] };
    }
    if (isBinary(bytes)) {
      throw new ToolError(`${path.display} is a binary file (${bytes.length} bytes); read_file shows text only`);
    }
    ctx.session.recordRead(path.real, bytes);
    if (bytes.length === 0) return `(${path.display} is empty)`;
    const { text, shown } = formatLines(asGitShowsIt(ctx.root, path.real, utf8Text(bytes)), offset, limit);
    return partResult(text, shown);
  },
};

/**
 * A repository's (or the person's) git config as commands are shown it, credentials withheld (repo-configs.ts).
 * Looked at only where such a file can be: named as a repository's config is, or outside the workspace (a granted
 * read, where the person's own config is); required there, so a read-only turn loads none of it (jit.ts).
 */
function asGitShowsIt(root: string, real: string, text: string): string {
  const name = basename(real);
  if (isWithin(root, real) && name !== "config" && name !== "config.worktree" && !name.includes("gitconfig")) return text;
  return (require("../sandbox/repo-configs.ts") as typeof import("../sandbox/repo-configs.ts")).configAsShown(real, text).text;
}

/** Reads a regular file in full, with clear errors for everything else (a small file without the Buffer global: readOpenedBytes). */
export function readWholeFile(real: string, display: string): Uint8Array {
  let opened;
  try {
    // Never blocks: a named pipe, a socket or a device is refused, not waited on.
    opened = openRegularSync(real, display);
  } catch (err) {
    throw new ToolError((err as Error).message);
  }
  const { fd, st } = opened;
  try {
    if (st.size > MAX_FILE_BYTES) {
      throw new ToolError(
        `${display} is ${(st.size / 1048576).toFixed(0)} MiB, too large to read (limit ${MAX_FILE_BYTES / 1048576} MiB); use grep to find the lines you need`,
      );
    }
    return readOpenedBytes(fd, st, display, { max: MAX_FILE_BYTES }).bytes;
  } catch (err) {
    if (err instanceof ToolError) throw err;
    throw new ToolError((err as Error).message);
  } finally {
    closeSync(fd);
  }
}

export function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) !== -1;
}

/**
 * Lines offset..offset+limit-1, numbered, each cut at MAX_LINE_CHARS, and
 * stopped early at the output byte budget; a last line says how to go on.
 */
export function formatLines(text: string, offset: number, limit: number): { text: string; shown?: string } {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop(); // the newline that ends the last line
  const total = lines.length;
  if (offset > total) {
    throw new ToolError(`offset ${offset} is past the end: the file has ${total} line${total === 1 ? "" : "s"}`);
  }
  const last = Math.min(total, offset + limit - 1);
  const width = String(last).length;
  const out: string[] = [];
  let bytes = 0;
  let shownLast = offset - 1;
  for (let n = offset; n <= last; n++) {
    const line = `${String(n).padStart(width)}\t${cutLine(stripCR(lines[n - 1]!))}`;
    const size = utf8Length(line) + 1;
    if (out.length > 0 && bytes + size > MAX_OUTPUT_BYTES) break;
    out.push(line);
    bytes += size;
    shownLast = n;
  }
  if (shownLast < total || offset > 1) {
    const atLimit = shownLast < last;
    if (shownLast < total) out.push(`[showing lines ${offset}-${shownLast} of ${total} (${atLimit ? "output limit reached" : "line limit reached"}); to read on, use offset=${shownLast + 1}]`);
    // The person's line: which part the model read ("first 2,000 lines of 9,001", "lines 10-20 of 300").
    const part = offset === 1 ? `first ${count(shownLast)} line${shownLast === 1 ? "" : "s"}` : `lines ${count(offset)}-${count(shownLast)}`;
    return { text: out.join("\n"), shown: `${part} of ${count(total)}${atLimit ? " (the output limit, about 20 KB)" : ""}` };
  }
  return { text: out.join("\n") };
}

function stripCR(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
