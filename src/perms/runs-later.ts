// Files that other programs run later without asking: writing them is as
// good as running a command, so a write there asks even under -A or
// --allow-write (and a session-wide "all edits" does not cover it). The list
// is short on purpose; settings add to it with "protect": ["GLOB", …].
import { isAbsolute, relative, resolve } from "node:path";
import { gitHooksPath } from "./git-config.ts";
import { isWithin } from "./workspace.ts";

export interface RunsLaterRule {
  /** A glob relative to the workspace, or an absolute one. */
  glob: string;
  /** What runs it, shown in the prompt and the no-prompt refusal. */
  why: string;
}

export const RUNS_LATER: readonly RunsLaterRule[] = [
  { glob: "**/.envrc", why: "direnv runs it when you enter the folder" },
  { glob: "**/.vscode/tasks.json", why: "runs when you open the folder (VS Code tasks)" },
  { glob: "**/.husky/**", why: "runs on git commit (husky hooks)" },
  { glob: ".github/workflows/**", why: "runs in CI when pushed (GitHub Actions)" },
];

/** Why writing `real` (inside `root`) means running code later, or null. */
export function runsLaterReason(root: string, real: string, extra: readonly RunsLaterRule[] = []): string | null {
  if (!isWithin(root, real) || real === root) return null;
  const rel = relative(root, real);
  // Case-insensitive file systems (macOS, Windows) treat `.ENVRC` as `.envrc`.
  const names = [rel, rel.toLowerCase()];
  for (const rule of [...RUNS_LATER, ...extra]) {
    if (isAbsolute(rule.glob) ? new Bun.Glob(rule.glob).match(real) : names.some((n) => new Bun.Glob(rule.glob).match(n))) return rule.why;
  }
  const hooks = gitHooksPath(root);
  if (hooks && isWithin(resolve(root, hooks), real)) return `git runs it as a hook (core.hooksPath is ${hooks})`;
  return null;
}

/** A settings "protect" entry as a rule: a wildcard-free path covers itself and everything below it. */
export function protectRule(entry: string, file: string): RunsLaterRule {
  const glob = /[*?[{]/.test(entry) ? entry : `${entry.replace(/\/+$/, "")}{,/**}`;
  return { glob, why: `listed under "protect" in ${file}` };
}
