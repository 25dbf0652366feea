// write_file: create a file, or replace a whole file the model has read.
// Parent directories are created. The person sees the diff against the old
// content (or the new content as additions) before anything is written.
import { makeFilePreview } from "../diff/preview.ts";
import { checkCreatable, commitWrite, readForWrite } from "../edit/guarded-write.ts";
import { dominantEol } from "../text/replace.ts";
import { ToolError, type Tool } from "./tool.ts";

export interface WriteFileInput {
  path: string;
  content: string;
}

export const writeFileTool: Tool<WriteFileInput> = {
  name: "write_file",
  description:
    "Write a whole text file: create it (parent directories too) or replace it. Replacing an existing file needs it read with " +
    "read_file first; prefer edit_file for changes to part of a file. The person approves every write after seeing the diff.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path, relative to the workspace root." },
      content: { type: "string", description: "The complete new content of the file." },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  summarize: (input) => input.path,

  async run(input, ctx) {
    const path = ctx.perms.resolve(input.path);
    ctx.perms.precheckWrite(path);

    const existing = path.exists ? readForWrite(ctx.session, path, "overwrite") : null;
    if (!existing) checkCreatable(ctx.root, path);
    const after = existing ? keepFileConventions(existing.text, input.content) : input.content;
    if (existing && existing.text === after) {
      if (after === input.content) return `${path.display} already has exactly this content; nothing was written.`;
      // Only the line endings or BOM differ, and write_file keeps those: say so rather than claim the bytes match.
      return `${path.display} already has this content apart from its CRLF line endings or BOM, which write_file keeps; nothing was written. To change line endings, run a command (for example sed -i 's/\\r$//' ${path.display}).`;
    }

    const preview = makeFilePreview(path.display, existing?.text ?? null, after);
    await ctx.perms.authorize({ kind: "write", target: path.real, tool: "write_file", files: [preview] });
    if (ctx.signal.aborted) throw new ToolError("Interrupted by the user; nothing was written.");
    commitWrite(ctx.session, path, existing, after);
    const lines = after === "" ? 0 : after.split("\n").length - (after.endsWith("\n") ? 1 : 0);
    return existing
      ? `Wrote ${path.display} (+${preview.added} -${preview.removed}).`
      : `Created ${path.display} (${lines} line${lines === 1 ? "" : "s"}).`;
  },
};

/** A replaced file keeps its BOM and CRLF line endings when the new content has none of its own. */
function keepFileConventions(old: string, content: string): string {
  let out = content;
  if (dominantEol(old) === "\r\n" && !out.includes("\r\n")) out = out.replace(/\n/g, "\r\n");
  if (old.startsWith("\uFEFF") && !out.startsWith("\uFEFF")) out = "\uFEFF" + out;
  return out;
}
