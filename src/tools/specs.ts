// What the model is told about the tools whose code loads on their first call
// (src/tools/all.ts): name, description and input schema, apart from the code
// that runs them, so a turn that never edits, patches or searches does not
// load the change pipeline, the patch parser or the search code. Each tool's
// module spreads its offer from here: one copy of what the model reads.
import { TODO_TOOL_NAME } from "../agent/todo.ts";
import type { ToolOffer } from "./tool.ts";

/** list_files: levels shown by default, and at most. */
export const DEFAULT_DEPTH = 2;
export const MAX_DEPTH = 10;
/** grep: the most context lines around a match. */
export const MAX_CONTEXT = 10;

export const listFilesSpec: ToolOffer = {
  name: "list_files",
  description:
    "List a directory as an indented tree; directories end in /, symlinks in @. Leaves out .git and gitignored entries.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "Directory (default: workspace root)" },
      depth: { type: "integer", description: `Levels to show (default ${DEFAULT_DEPTH}, max ${MAX_DEPTH})` },
    },
    additionalProperties: false,
  },
};

export const grepSpec: ToolOffer = {
  name: "grep",
  description:
    "Search file contents with a JavaScript regex. Prints file:line:text (context lines file-line-text). Skips gitignored and binary files.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "JavaScript regular expression" },
      path: { type: "string", description: "File or directory (default: workspace root)" },
      glob: { type: "string", description: "Only files matching this glob, e.g. *.ts or src/**/*.{ts,tsx}" },
      ignore_case: { type: "boolean" },
      context: { type: "integer", description: `Lines before and after each match (0-${MAX_CONTEXT})` },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
};

export const globSpec: ToolOffer = {
  name: "glob",
  description:
    "Find files by glob, e.g. **/*.ts or src/*.{js,jsx}; paths relative to path. Newest first. Leaves out gitignored files.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Glob; * stays within a directory, ** crosses directories" },
      path: { type: "string", description: "Directory to search (default: workspace root)" },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
};

export const editFileSpec: ToolOffer = {
  name: "edit_file",
  description:
    "Replace old_string with new_string in a text file. Read the file with read_file first. old_string must match the file " +
    "exactly (whitespace included) and occur once, unless replace_all is true. An empty old_string creates a file that does " +
    "not exist yet. The person approves every edit after seeing the diff.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path, relative to the workspace root." },
      old_string: { type: "string", description: "The exact text to replace (empty to create a new file)." },
      new_string: { type: "string", description: "The replacement text." },
      replace_all: { type: "boolean", description: "Replace every occurrence of old_string (default false)." },
    },
    required: ["path", "old_string", "new_string"],
    additionalProperties: false,
  },
};

export const writeFileSpec: ToolOffer = {
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
};

export const applyPatchSpec: ToolOffer = {
  name: "apply_patch",
  description:
    "Apply a patch to one or more files, all or nothing, after one approval. Accepts a unified diff (--- a/path, +++ b/path, @@ hunks, as git diff writes; /dev/null to create or delete; rename from/to) or a *** Begin Patch … *** End Patch envelope (Add File/Update File/Delete File/Move to). Give each hunk 3 unchanged context lines; @@ line numbers are only hints. dry_run: check and show the diff without writing.",
  inputSchema: {
    type: "object",
    properties: {
      patch: { type: "string", description: "The patch text." },
      dry_run: { type: "boolean", description: "Only check the patch and return the resulting diff." },
    },
    required: ["patch"],
    additionalProperties: false,
  },

};

export const todoSpec: ToolOffer = {
  name: TODO_TOOL_NAME,
  description:
    "Your plan, shown to the user. Use it for tasks of 3+ steps: send the whole list each call (it replaces the old one). " +
    "Mark a step in_progress before starting it (one at a time) and completed right after finishing it; add steps as you find them. " +
    "Do not use it for single quick answers or one-step changes. Max 20 items.",
  inputSchema: {
    type: "object",
    properties: {
      items: {
        type: "array",
        description: "The full list, in order.",
        items: {
          type: "object",
          properties: {
            id: { type: "string", description: 'Short and stable, e.g. "1".' },
            text: { type: "string" },
            status: { type: "string", enum: ["pending", "in_progress", "completed"] },
          },
          required: ["id", "text", "status"],
          additionalProperties: false,
        },
      },
    },
    required: ["items"],
    additionalProperties: false,
  },

};
