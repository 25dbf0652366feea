// edit_file: replace one exact piece of text in a file (or create a missing
// file with an empty old_string). The person sees the real diff before
// anything is written; a refused or failed edit touches nothing.
import { ChangeSet } from "../change/change-set.ts";
import { applyEdit } from "../text/replace.ts";
import { editFileSpec } from "./specs.ts";
import { ToolError, type Tool } from "./tool.ts";
import { suggestNearNames } from "./not-found.ts";
import { readAllowed } from "./walk.ts";

export interface EditFileInput {
  path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

export const editFileTool: Tool<EditFileInput> = {
  ...editFileSpec,
  summarize: (input) => input.path,

  async run(input, ctx) {
    if (input.old_string === input.new_string) {
      throw new ToolError("old_string and new_string are the same, so the edit would change nothing.");
    }
    const change = new ChangeSet(ctx, "edit_file");
    const snap = change.snapshot(change.target(input.path), "edit");
    const display = snap.path.display;
    let what: string;
    if (snap.text === null) {
      if (input.old_string !== "") {
        // A typo of an existing name is likelier than a new file with old text in it: name it first.
        const near = suggestNearNames(ctx.root, snap.path.real, readAllowed(ctx.perms));
        const meant = near.length > 0 ? ` Did you mean: ${near.join(", ")}?` : "";
        throw new ToolError(`${display} does not exist.${meant} To create it, call edit_file with an empty old_string, or use write_file.`);
      }
      change.write(snap, input.new_string);
      what = `Created ${display}`;
    } else {
      const edit = applyEdit(snap.text, input.old_string, input.new_string, { replaceAll: input.replace_all === true, display });
      if (!edit.ok) throw new ToolError(edit.error);
      change.write(snap, edit.content);
      const n = edit.replacements;
      what =
        `Edited ${display}: replaced ${n} occurrence${n === 1 ? "" : "s"} (first at line ${edit.line})` +
        (edit.level.name === "exact" ? "" : `, matched ${edit.level.says}`);
    }
    const [preview] = change.previews();
    const shown = await change.commit([preview!]);
    return { content: `${what} (+${preview!.added} -${preview!.removed}).`, isError: false, shown };
  },
};
