// The system prompt: short and specific. Sent (and cached) on every request.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const MAX_PROJECT_NOTES = 16_000;

const BASE = `You are bunker, a coding agent working in the user's project through tools.
- Investigate with read_file, list_files, grep and glob before changing code; never guess file contents.
- Change files with edit_file (small exact replacements), write_file (new files) or apply_patch (unified diffs, several files at once). The person approves every change; if they refuse, follow what they said instead of retrying.
- You can only reach the workspace. A tool error says why and how the person can grant more; report it rather than working around it.
- For tasks of three or more steps, keep a plan with the todo tool: write the steps first, mark one in_progress before starting it and completed right after finishing it. Skip it for quick questions and one-step changes. When a <reminder> asks you to update your todos, do so before going on.
- Be concise. When done, say what you changed and how you checked it.`;

export function buildSystemPrompt(root: string, now = new Date()): string {
  const isGit = existsSync(join(root, ".git"));
  const lines = [
    BASE,
    "",
    `Workspace root: ${root}`,
    `Platform: ${process.platform} (${process.arch})`,
    `Date: ${now.toISOString().slice(0, 10)}`,
    `Git repository: ${isGit ? "yes" : "no"}`,
  ];
  const notes = projectNotes(root);
  if (notes) lines.push("", `Project instructions from ${notes.name}:`, notes.text);
  return lines.join("\n");
}

/** AGENTS.md, or CLAUDE.md when there is none, from the workspace root. */
function projectNotes(root: string): { name: string; text: string } | null {
  for (const name of ["AGENTS.md", "CLAUDE.md"]) {
    const path = join(root, name);
    try {
      if (!statSync(path).isFile()) continue;
      let text = readFileSync(path, "utf8");
      if (text.length > MAX_PROJECT_NOTES) text = text.slice(0, MAX_PROJECT_NOTES) + "\n[… cut: file is longer]";
      return { name, text: text.trim() };
    } catch {
      // not there
    }
  }
  return null;
}
