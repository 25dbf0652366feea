// write_file: create a file, or replace a whole file the model has read.
// Parent directories are created. The person sees the diff against the old
// content (or the new content as additions) before anything is written.
import { ChangeSet } from "../change/change-set.ts";
import { dominantEol } from "../text/replace.ts";
import { writeFileSpec } from "./specs.ts";
import { ToolError, type Tool } from "./tool.ts";

export interface WriteFileInput {
  path: string;
  content: string;
}

export const writeFileTool: Tool<WriteFileInput> = {
  ...writeFileSpec,
  summarize: (input) => input.path,

  async run(input, ctx) {
    const change = new ChangeSet(ctx, "write_file");
    const snap = change.snapshot(change.target(input.path), "overwrite");
    const display = snap.path.display;
    const existing = snap.text;
    const after = existing !== null ? keepFileConventions(existing, input.content) : input.content;
    if (existing === after) {
      if (after === input.content) return `${display} already has exactly this content; nothing was written.`;
      // Only the line endings or BOM differ, and write_file keeps those: say so rather than claim the bytes match.
      return `${display} already has this content apart from its CRLF line endings or BOM, which write_file keeps; nothing was written. To change line endings, run a command (for example sed -i 's/\\r$//' ${display}).`;
    }
    change.write(snap, after);
    const [preview] = change.previews();
    const shown = await change.commit([preview!]);
    const lines = after === "" ? 0 : after.split("\n").length - (after.endsWith("\n") ? 1 : 0);
    const content = existing !== null
      ? `Wrote ${display} (+${preview!.added} -${preview!.removed}).`
      : `Created ${display} (${lines} line${lines === 1 ? "" : "s"}).`;
    return { content, isError: false, shown };
  },
};

/** A replaced file keeps its BOM and CRLF line endings when the new content has none of its own. */
function keepFileConventions(old: string, content: string): string {
  let out = content;
  if (dominantEol(old) === "\r\n" && !out.includes("\r\n")) out = out.replace(/\n/g, "\r\n");
  if (old.startsWith("\uFEFF") && !out.startsWith("\uFEFF")) out = "\uFEFF" + out;
  return out;
}
