// The system prompt: short and specific. Sent (and cached) on every request.
import { gitRootOf, loadInstructions, type InstructionsFile, type InstructionsOptions } from "./instructions.ts";

const BASE = `You are bunker, a coding agent working in the user's project through tools.
- Investigate with read_file, list_files, grep and glob before changing code; never guess file contents.
- Change files with edit_file (small exact replacements), write_file (new files) or apply_patch (unified diffs, several files at once). The person approves every change; if they refuse, follow what they said instead of retrying.
- You can only reach the workspace. A tool error says why and how the person can grant more; report it rather than working around it.
- For tasks of three or more steps, keep a plan with the todo tool: write the steps first, mark one in_progress before starting it and completed right after finishing it. Skip it for quick questions and one-step changes. When a <reminder> asks you to update your todos, do so before going on.
- Be concise. When done, say what you changed and how you checked it.`;

export interface SystemPromptOptions extends InstructionsOptions {
  now?: Date;
  /** Told which instruction files went in (to list them at start). */
  read?: (files: InstructionsFile[]) => void;
}

export function buildSystemPrompt(root: string, opts: SystemPromptOptions): string {
  const now = opts.now ?? new Date();
  const gitRoot = gitRootOf(root);
  const lines = [
    BASE,
    "",
    `Workspace root: ${root}`,
    `Platform: ${process.platform} (${process.arch})`,
    `Date: ${now.toISOString().slice(0, 10)}`,
    `Git repository: ${gitRoot === undefined ? "no" : gitRoot === root ? "yes" : `yes (the workspace is a folder of the repository at ${gitRoot})`}`,
  ];
  const files = loadInstructions(root, { ...opts, gitRoot });
  opts.read?.(files);
  for (const f of files) lines.push("", `Project instructions from ${f.shown}:`, f.text);
  return lines.join("\n");
}
