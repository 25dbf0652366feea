// glob: files whose path matches a glob (Bun.Glob), newest first. Walks with
// the shared ignore-aware walk; a symbolic link is listed only when the file
// it leads to may be read, and is never followed into a directory.
import { lstatSync, statSync } from "node:fs";
import { count, MAX_OUTPUT_BYTES, partResult } from "./bound.ts";
import { notFoundError } from "./not-found.ts";
import { fileKind, notRegularMessage } from "../fs/file-kind.ts";
import { globSpec } from "./specs.ts";
import { ToolError, type Tool } from "./tool.ts";
import { displayPath, linkTarget, readAllowed, walk, walkFilter } from "./walk.ts";

export interface GlobInput {
  pattern: string;
  path?: string;
}

export const MAX_RESULTS = 500;
/** Matches collected (and stat'ed for sorting) before the walk stops. */
const MAX_COLLECTED = 50_000;

export const globTool: Tool<GlobInput> = {
  ...globSpec,
  summarize: (input) => (input.path ? `${input.pattern} in ${input.path}` : input.pattern),

  async run(input, ctx) {
    const pattern = input.pattern.startsWith("./") ? input.pattern.slice(2) : input.pattern;
    if (pattern.trim() === "") throw new ToolError("pattern is empty; try **/* for every file");
    const dir = await ctx.perms.resolveRead(input.path ?? ".", "glob");
    const allowed = readAllowed(ctx.perms);
    if (!dir.exists) throw notFoundError(ctx.root, dir, allowed);
    const st = statSync(dir.real);
    if (!st.isDirectory()) throw new ToolError(st.isFile() ? `${dir.display} is a file, not a directory; pass its directory as path` : notRegularMessage(dir.display, fileKind(st), "searches"));
    const glob = new Bun.Glob(pattern);

    const found: { path: string; mtime: number }[] = [];
    let complete = true;
    for (const entry of walk({ start: dir.real, root: ctx.root, allowed: walkFilter(ctx.perms, dir.real), signal: ctx.signal })) {
      if (entry.kind === "dir" || !glob.match(entry.rel)) continue;
      let mtime: number;
      try {
        if (entry.kind === "symlink") {
          const target = linkTarget(entry.abs, allowed);
          if (target?.kind !== "file") continue; // leads outside, nowhere, or to a directory
          mtime = statSync(target.real).mtimeMs;
        } else {
          mtime = lstatSync(entry.abs).mtimeMs;
        }
      } catch {
        continue; // gone since the walk
      }
      found.push({ path: displayPath(dir.display, entry.rel), mtime });
      if (found.length >= MAX_COLLECTED) {
        complete = false;
        break;
      }
    }
    if (ctx.signal.aborted) throw new ToolError("glob was interrupted");
    if (found.length === 0) return `No files match ${input.pattern} in ${dir.display}`;

    found.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : 1));
    const lines: string[] = [];
    let bytes = 0;
    for (const f of found) {
      if (lines.length >= MAX_RESULTS || bytes + f.path.length + 1 > MAX_OUTPUT_BYTES) break;
      lines.push(f.path);
      bytes += Buffer.byteLength(f.path) + 1;
    }
    if (lines.length < found.length || !complete) {
      const total = complete ? `${found.length}` : `more than ${found.length}`;
      const shown = lines.length;
      lines.push(`[showing the ${shown} newest of ${total} matches; use a narrower pattern or path to see others]`);
      return partResult(lines.join("\n"), `the ${count(shown)} newest of ${complete ? "" : "more than "}${count(found.length)} files`);
    }
    return lines.join("\n");
  },
};
