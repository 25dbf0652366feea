// list_files: a directory as an indented tree. `.git` and gitignored entries
// are left out (counted in a note); symbolic links are shown, never entered.
import { statSync } from "node:fs";
import { count, MAX_OUTPUT_BYTES, partResult } from "./bound.ts";
import { notFoundError } from "./not-found.ts";
import { fileKind, notRegularMessage } from "../fs/file-kind.ts";
import { DEFAULT_DEPTH, listFilesSpec, MAX_DEPTH } from "./specs.ts";
import { ToolError, type Tool } from "./tool.ts";
import { readAllowed, walk, walkFilter } from "./walk.ts";

export interface ListFilesInput {
  path?: string;
  depth?: number;
}

export { DEFAULT_DEPTH, MAX_DEPTH };
export const MAX_ENTRIES = 500;

export const listFilesTool: Tool<ListFilesInput> = {
  ...listFilesSpec,
  summarize: (input) => input.path ?? ".",

  async run(input, ctx) {
    const depth = input.depth ?? DEFAULT_DEPTH;
    if (depth < 1) throw new ToolError(`depth must be 1 or more, got ${depth}`);
    const maxDepth = Math.min(depth, MAX_DEPTH);
    const dir = await ctx.perms.resolveRead(input.path ?? ".", "list_files");
    if (!dir.exists) throw notFoundError(ctx.root, dir, readAllowed(ctx.perms));
    const st = statSync(dir.real);
    if (!st.isDirectory()) throw new ToolError(st.isFile() ? `${dir.display} is a file, not a directory; use read_file to read it` : notRegularMessage(dir.display, fileKind(st), "lists"));

    const lines: string[] = [dir.display.endsWith("/") ? dir.display : `${dir.display}/`];
    let bytes = lines[0]!.length + 1;
    let ignored = 0;
    let stopped = false;
    for (const entry of walk({
      start: dir.real,
      root: ctx.root,
      maxDepth,
      allowed: walkFilter(ctx.perms, dir.real),
      signal: ctx.signal,
      onIgnored: () => ignored++,
    })) {
      const suffix = entry.kind === "dir" ? "/" : entry.kind === "symlink" ? "@" : "";
      const line = `${"  ".repeat(entry.depth)}${entry.name}${suffix}`;
      if (lines.length - 1 >= MAX_ENTRIES || bytes + line.length + 1 > MAX_OUTPUT_BYTES) {
        stopped = true;
        break;
      }
      lines.push(line);
      bytes += Buffer.byteLength(line) + 1;
    }
    if (lines.length === 1) lines.push("  (empty)");
    const entries = lines.length - 1;
    const notes: string[] = [];
    if (stopped) notes.push(`stopped at ${lines.length - 1} entries; list a subdirectory or use a smaller depth to see the rest`);
    if (depth > MAX_DEPTH) notes.push(`depth capped at ${MAX_DEPTH}`);
    if (ignored > 0) notes.push(`${ignored} gitignored entr${ignored === 1 ? "y" : "ies"} not shown`);
    if (notes.length > 0) lines.push(`[${notes.join("; ")}]`);
    return partResult(lines.join("\n"), stopped ? `first ${count(entries)} entries; the listing stopped there` : undefined);
  },
};
