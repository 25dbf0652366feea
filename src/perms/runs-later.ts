// Files that other programs run later without asking: writing them is as
// good as running a command, so a write there asks even under -A or
// --allow-write (and a session-wide "all edits" does not cover it). The list
// is short on purpose; settings add to it with "protect": ["GLOB", …].
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, isAbsolute, relative, resolve, sep } from "node:path";
import { gitHooksPath } from "./git-config.ts";
import { pathEntries, pathShadowMatcher } from "./path-shadow.ts";
import { startupMatcher } from "./startup-files.ts";
import { venvMatcher } from "./venv.ts";
import { isWithin, realpathLoose } from "./workspace.ts";

/** Whose shells and tools run the files later: their environment and home (bunker's own by default). */
export interface Person {
  env?: Record<string, string | undefined>;
  home?: string;
}

export interface RunsLaterRule {
  /** A glob relative to the workspace, or an absolute one. */
  glob: string;
  /** What runs it, shown in the prompt and the no-prompt refusal. */
  why: string;
}

export const RUNS_LATER: readonly RunsLaterRule[] = [
  { glob: "**/.envrc", why: "direnv runs it when you enter the folder" },
  // bunker's own settings at any depth: a session started in that folder (a monorepo package) takes its rules (red team 7 F9).
  { glob: "**/.bunker/**", why: "bunker obeys it: a session started in that folder takes its rules from it" },
  { glob: "**/.vscode/tasks.json", why: "runs when you open the folder (VS Code tasks)" },
  { glob: "**/.husky/**", why: "runs on git commit (husky hooks)" },
  // lefthook reads lefthook.yml, .lefthook.yml, their -local variants (and .yaml/.json/.toml), or .config/lefthook.yml.
  { glob: "**/{,.}lefthook{,-local}.{yml,yaml,json,jsonc,toml}", why: "runs on git commit once lefthook is installed (lefthook hooks)" },
  { glob: "**/.config/lefthook{,-local}.{yml,yaml,json,jsonc,toml}", why: "runs on git commit once lefthook is installed (lefthook hooks)" },
  { glob: "**/.pre-commit-config.{yaml,yml}", why: "runs on git commit once pre-commit is installed (pre-commit hooks)" },
  // Package managers' own settings can name code they load before every script: hidden where package.json's scripts are not.
  { glob: "**/.npmrc", why: "npm obeys it on every npm run (node-options can preload code, script-shell picks the shell)" },
  { glob: "**/bunfig.toml", why: "bun obeys it on every bun run and bun test (preload runs code first)" },
  { glob: "**/.yarnrc{,.yml}", why: "yarn obeys it on every yarn command (yarnPath runs that file as yarn)" },
  { glob: ".github/workflows/**", why: "runs in CI when pushed (GitHub Actions)" },
  // Every CI's pipeline file runs with the project's CI secrets and deploy keys on the next push (red team 7 F5).
  { glob: "{.forgejo,.gitea}/workflows/**", why: "runs in CI when pushed (Forgejo/Gitea Actions)" },
  { glob: ".gitlab-ci.{yml,yaml}", why: "runs in CI when pushed (GitLab CI)" },
  { glob: ".circleci/**", why: "runs in CI when pushed (CircleCI)" },
  { glob: "{azure-pipelines,.azure-pipelines/*}.{yml,yaml}", why: "runs in CI when pushed (Azure Pipelines)" },
  { glob: "bitbucket-pipelines.yml", why: "runs in CI when pushed (Bitbucket Pipelines)" },
  { glob: ".buildkite/**", why: "runs in CI when pushed (Buildkite)" },
  { glob: "{.drone,.woodpecker}.{yml,yaml}", why: "runs in CI when pushed (Drone/Woodpecker)" },
  { glob: ".woodpecker/**", why: "runs in CI when pushed (Woodpecker)" },
  { glob: ".travis.yml", why: "runs in CI when pushed (Travis CI)" },
  { glob: "**/Jenkinsfile", why: "runs in CI when pushed (Jenkins)" },
  // VS Code obeys a trusted folder's settings (git.path, terminal.integrated.*) and runs a workspace file's folderOpen tasks.
  { glob: "**/.vscode/settings.json", why: "VS Code obeys it when you open the folder (it can name programs VS Code runs)" },
  { glob: "**/*.code-workspace", why: "runs when you open it in VS Code (its tasks and settings)" },
  { glob: "**/{.lintstagedrc,.lintstagedrc.*,lint-staged.config.*}", why: "runs on git commit through the commit hook (lint-staged)" },
];

/**
 * Why writing `real` means running code later, or null. `roots`: the
 * workspace (first) and any other writable roots (granted write paths); a
 * relative glob is matched from the innermost root holding `real`, and from
 * every folder of a path outside them all.
 */
export function runsLaterReason(roots: string | readonly string[], real: string, extra: readonly RunsLaterRule[] = [], path = process.env.PATH ?? "", person: Person = {}): string | null {
  return runsLaterMatcher(roots, extra, path, person)(real);
}

/**
 * The same question for many paths: the globs compiled and the hooks folders
 * read once (the sandbox asks it of every file in every writable root).
 * `path`: the person's PATH (bunker's own at start), whose folders inside
 * the roots hold files that run later by name (path-shadow.ts). `person`:
 * whose startup files (startup-files.ts) and whose `~` in PATH.
 */
export function runsLaterMatcher(roots: string | readonly string[], extra: readonly RunsLaterRule[] = [], path = process.env.PATH ?? "", person: Person = {}): (real: string) => string | null {
  return withKey(roots, extra, path, person).match;
}

function personOf(person: Person): { env: Record<string, string | undefined>; home: string } {
  const env = person.env ?? process.env;
  return { env, home: person.home ?? (env.HOME || homedir()) };
}

function withKey(roots: string | readonly string[], extra: readonly RunsLaterRule[], bunkerPath: string, person: Person): { match: (real: string) => string | null; startupKey: string; path: string } {
  const all = typeof roots === "string" ? [roots] : [...roots];
  const rules = [...RUNS_LATER, ...extra].map((rule) => ({ glob: new Bun.Glob(rule.glob), absolute: isAbsolute(rule.glob), why: rule.why, needle: needle(rule.glob) }));
  const hooksDirs = all.flatMap((root) => {
    const hooks = gitHooksPath(root);
    return hooks ? [{ dir: resolve(root, hooks), hooks }] : [];
  });
  // Innermost first: a granted folder inside another is its own root.
  const byDepth = [...all].sort((a, b) => b.length - a.length);
  const { env, home } = personOf(person);
  const startup = startupMatcher(env, home);
  // The PATH of the person's next terminal: bunker's, with what their shell startup files add to it.
  const { before, after } = startup.path;
  const path = before.length + after.length === 0 ? bunkerPath : [...before, ...(bunkerPath === "" ? [] : [bunkerPath]), ...after].join(delimiter);
  const shadows = pathShadowMatcher(all, path, home);
  const venv = venvMatcher(path, home);
  const match = (real: string): string | null => {
    const root = byDepth.find((r) => isWithin(r, real));
    if (root === real) return null;
    // Outside every root: each folder of the path could be where direnv or husky looks.
    const rels = root ? [relative(root, real)] : real.split(sep).map((_, i, parts) => parts.slice(i).join(sep)).filter((r) => r && !isAbsolute(r));
    for (const rule of rules) {
      for (const rel of rule.absolute ? [real] : rels) {
        // Case-insensitive file systems (macOS, Windows) treat `.ENVRC` as `.envrc`.
        const lower = rel.toLowerCase();
        if (!lower.includes(rule.needle)) continue;
        if (rule.glob.match(rel) || (lower !== rel && rule.glob.match(lower))) return rule.why;
      }
    }
    const hooks = hooksDirs.find((h) => isWithin(h.dir, real));
    if (hooks) return `git runs it as a hook (core.hooksPath is ${hooks.hooks})`;
    // A folder on PATH now before a venv that may be activated later: a command's new program there is never left.
    return startup.match(real) ?? shadows(real) ?? venv(real);
  };
  return { match, startupKey: startup.key, path };
}

/**
 * runsLaterMatcher with a key that changes when its answer may (the git wall's walk keeps what it found per folder
 * under it): settings, hooks folders, where the person's startup files lead, and the PATH folders whose programs a
 * file in the roots may shadow (installing one changes its folder's mtime).
 */
export function laterMatch(roots: string[], protect: readonly RunsLaterRule[], path: string, person: Person = {}): { key: string; match: (real: string) => string | null } {
  const { match, startupKey, path: full } = withKey(roots, protect, path, person);
  // A relative entry is read from the workspace, as path-shadow.ts reads it (not from bunker's own folder).
  const programs = pathEntries(full, personOf(person).home).map((d) => {
    const dir = resolve(roots[0]!, d || ".");
    return `${d}\0${roots.some((r) => isWithin(r, realpathLoose(dir).real)) ? "" : mtimeOf(dir)}`;
  });
  return { key: `${protect.map((r) => r.glob).join("\0")}\0${roots.map((r) => `${r}\0${gitHooksPath(r) ?? ""}`).join("\0")}\0${programs.join("\0")}\0${startupKey}`, match };
}

/** A folder's mtime, or -1 when it is not there (not asked for a folder inside a writable root: the walk itself sees it change). */
function mtimeOf(dir: string): number {
  try {
    return statSync(dir).mtimeMs;
  } catch {
    return -1;
  }
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
