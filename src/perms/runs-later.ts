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
  return runsLaterMatcher(root, extra)(real);
}

/**
 * The same question for many paths: the globs compiled and the hooks folder
 * read once (the sandbox asks it of every file in the workspace).
 */
export function runsLaterMatcher(root: string, extra: readonly RunsLaterRule[] = []): (real: string) => string | null {
  const rules = [...RUNS_LATER, ...extra].map((rule) => ({ glob: new Bun.Glob(rule.glob), absolute: isAbsolute(rule.glob), why: rule.why, needle: needle(rule.glob) }));
  const hooks = gitHooksPath(root);
  const hooksDir = hooks ? resolve(root, hooks) : null;
  return (real) => {
    if (!isWithin(root, real) || real === root) return null;
    const rel = relative(root, real);
    // Case-insensitive file systems (macOS, Windows) treat `.ENVRC` as `.envrc`.
    const lower = rel.toLowerCase();
    const names = lower === rel ? [rel] : [rel, lower];
    for (const rule of rules) {
      if (!(rule.absolute ? real.toLowerCase() : lower).includes(rule.needle)) continue;
      if (rule.absolute ? rule.glob.match(real) : names.some((n) => rule.glob.match(n))) return rule.why;
    }
    if (hooksDir && isWithin(hooksDir, real)) return `git runs it as a hook (core.hooksPath is ${hooks})`;
    return null;
  };
}

/**
 * Text any path a glob matches must contain (its longest literal name, lower
 * case): most paths are ruled out without running the glob. "" when the glob
 * has alternatives or classes, whose literals may not all be needed.
 */
function needle(glob: string): string {
  if (/[[{\\]/.test(glob)) return "";
  // Split at "/" too: `**/` may stand for nothing (`**/.envrc` matches `.envrc`).
  return glob.split(/[*?/]/).reduce((a, b) => (b.length > a.length ? b : a), "").toLowerCase();
}

/** A settings "protect" entry as a rule: a wildcard-free path covers itself and everything below it. */
export function protectRule(entry: string, file: string): RunsLaterRule {
  const glob = /[*?[{]/.test(entry) ? entry : `${entry.replace(/\/+$/, "")}{,/**}`;
  return { glob, why: `listed under "protect" in ${file}` };
}
