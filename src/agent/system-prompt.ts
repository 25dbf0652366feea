// The system prompt: short and specific. Sent (and cached) on every request.
import { existsSync } from "node:fs";
import { FileKindError, readRegularSync } from "../fs/file-kind.ts";
import { dirname, join } from "node:path";
import { resolvePath } from "../perms/workspace.ts";

const MAX_PROJECT_NOTES = 16_000;

const BASE = `You are bunker, a coding agent working in the user's project through tools.
- Investigate with read_file, list_files, grep and glob before changing code; never guess file contents.
- Change files with edit_file (small exact replacements), write_file (new files) or apply_patch (unified diffs, several files at once). The person approves every change; if they refuse, follow what they said instead of retrying.
- You can only reach the workspace. A tool error says why and how the person can grant more; report it rather than working around it.
- For tasks of three or more steps, keep a plan with the todo tool: write the steps first, mark one in_progress before starting it and completed right after finishing it. Skip it for quick questions and one-step changes. When a <reminder> asks you to update your todos, do so before going on.
- Be concise. When done, say what you changed and how you checked it.`;

export interface SystemPromptOptions {
  /** Whether the policy lets a real path be read unasked (the project notes are read before anyone can be asked). */
  canRead: (real: string) => boolean;
  now?: Date;
  /** Told when a notes file is skipped, and why. */
  warn?: (message: string) => void;
}

export function buildSystemPrompt(root: string, opts: SystemPromptOptions): string {
  const now = opts.now ?? new Date();
  const lines = [
    BASE,
    "",
    `Workspace root: ${root}`,
    `Platform: ${process.platform} (${process.arch})`,
    `Date: ${now.toISOString().slice(0, 10)}`,
    `Git repository: ${gitRepository(root)}`,
  ];
  const notes = projectNotes(root, opts);
  if (notes) lines.push("", `Project instructions from ${notes.name}:`, notes.text);
  return lines.join("\n");
}

/** "yes", "yes (the workspace is inside it, at …)" or "no": a workspace may be a folder of a larger repository. */
function gitRepository(root: string): string {
  for (let dir = root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir === root ? "yes" : `yes (the workspace is a folder of the repository at ${dir})`;
    if (dirname(dir) === dir) return "no";
  }
}

/**
 * AGENTS.md, or CLAUDE.md when there is none, from the workspace root. Through
 * the workspace resolver and the policy like any read: a cloned repository's
 * AGENTS.md that links to ~/.ssh/id_rsa must not carry the key to the API.
 */
function projectNotes(root: string, opts: SystemPromptOptions): { name: string; text: string } | null {
  for (const name of ["AGENTS.md", "CLAUDE.md"]) {
    const path = resolvePath(root, name);
    if (!path.exists) continue;
    if (!opts.canRead(path.real)) {
      const hint = path.inside ? "a deny rule covers it" : `it is outside the workspace; --allow-read=${path.real} would grant it`;
      opts.warn?.(`${name} was not read: it leads to ${path.real}, and ${hint}.`);
      continue;
    }
    let read;
    try {
      // Only its head is read (4 bytes a character at most): a 2 GB sparse AGENTS.md costs 64 KB, not 2 GB, at every start.
      read = readRegularSync(path.real, name, { max: MAX_PROJECT_NOTES * 4, cut: true });
    } catch (err) {
      if (!(err instanceof FileKindError)) throw err;
      opts.warn?.(`${err.message}; going on without it.`);
      continue;
    }
    if (!read) continue;
    let text = read.bytes.toString("utf8");
    if (read.cut || text.length > MAX_PROJECT_NOTES) text = text.slice(0, MAX_PROJECT_NOTES) + "\n[… cut: file is longer]";
    return { name, text: text.trim() };
  }
  return null;
}
