// Files that other programs run later without asking: writing them is as
// good as running a command, so a write there asks even under -A or
// --allow-write (and a session-wide "all edits" does not cover it). The list
// is short on purpose; settings add to it with "protect": ["GLOB", …].
import { existsSync, statSync } from "node:fs";
import { homedir } from "../fs/home.ts";
import { delimiter, isAbsolute, join, relative, resolve, sep } from "node:path";
import { gitHooksPath, hooksDir } from "./git-config.ts";
import { pathEntries, pathShadowMatcher } from "./path-shadow.ts";
import { startupMatcher } from "./startup-files.ts";
import { VENV_PTH_WHY, venvMatcher } from "./venv.ts";
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
  /** A relative glob matched from the top of every repository inside the roots too (a folder holding `.git`), not only from the root. */
  top?: boolean;
  /** It runs in CI, not on this machine (`top` rules are CI's too): the scripts it names are not followed (named-scripts.ts). */
  ci?: boolean;
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
  // lefthook runs every file in .lefthook/<hook>/ (its source_dir) and .lefthook-local/<hook>/ as that hook's scripts.
  { glob: "**/.lefthook{,-local}/**", why: "runs on git commit once lefthook is installed (lefthook's scripts)" },
  { glob: "**/.pre-commit-config.{yaml,yml}", why: "runs on git commit once pre-commit is installed (pre-commit hooks)" },
  // Package managers' own settings can name code they load before every script: hidden where package.json's scripts are not.
  { glob: "**/.npmrc", why: "npm obeys it on every npm run (node-options can preload code, script-shell picks the shell)" },
  { glob: "**/bunfig.toml", why: "bun obeys it on every bun run and bun test (preload runs code first)" },
  { glob: "**/.yarnrc{,.yml}", why: "yarn obeys it on every yarn command (yarnPath runs that file as yarn)" },
  // CI pipeline files, matched from the workspace root and from the top of every repository inside it (a submodule,
  // a vendored repo: red team 8 F13): each runs with that repository's CI secrets on its next push (red team 7 F5).
  { glob: ".github/workflows/**", why: "runs in CI when pushed (GitHub Actions)", top: true },
  // A local action a workflow calls (`uses: ./.github/actions/setup`) runs as that workflow's step.
  { glob: ".github/actions/**", why: "runs in CI when pushed (a GitHub Actions workflow calls it)", top: true },
  { glob: "{.forgejo,.gitea}/workflows/**", why: "runs in CI when pushed (Forgejo/Gitea Actions)", top: true },
  { glob: ".gitlab-ci.{yml,yaml}", why: "runs in CI when pushed (GitLab CI)", top: true },
  { glob: ".circleci/**", why: "runs in CI when pushed (CircleCI)", top: true },
  { glob: "{azure-pipelines,.azure-pipelines/*}.{yml,yaml}", why: "runs in CI when pushed (Azure Pipelines)", top: true },
  { glob: "bitbucket-pipelines.yml", why: "runs in CI when pushed (Bitbucket Pipelines)", top: true },
  { glob: ".buildkite/**", why: "runs in CI when pushed (Buildkite)", top: true },
  { glob: "{.drone,.woodpecker}.{yml,yaml}", why: "runs in CI when pushed (Drone/Woodpecker)", top: true },
  { glob: ".woodpecker/**", why: "runs in CI when pushed (Woodpecker)", top: true },
  { glob: ".travis.yml", why: "runs in CI when pushed (Travis CI)", top: true },
  { glob: "**/Jenkinsfile", why: "runs in CI when pushed (Jenkins)", ci: true },
  // VS Code obeys a trusted folder's settings (git.path, terminal.integrated.*) and runs a workspace file's folderOpen tasks.
  { glob: "**/.vscode/settings.json", why: "VS Code obeys it when you open the folder (it can name programs VS Code runs)" },
  { glob: "**/*.code-workspace", why: "runs when you open it in VS Code (its tasks and settings)" },
  // lint-staged looks in every folder for each of its names, package.yaml and package.yml among them (red team 13's F04).
  { glob: "**/{.lintstagedrc,.lintstagedrc.*,lint-staged.config.*,package.yaml,package.yml}", why: "runs on git commit through the commit hook (lint-staged)" },
  // husky v4 reads its hooks from these as well as package.json's "husky" key (red team 13's F06).
  { glob: "**/{.huskyrc,.huskyrc.*,husky.config.*}", why: "runs on git commit (husky v4's hooks)" },
  // A Python installer's project config can point the next install at a folder or index of the model's packages,
  // as a venv's pip.conf can (reviewer's R13-06, red team 13's F01).
  { glob: "**/{uv.toml,pdm.toml,poetry.toml}", why: "uv, pdm or poetry obeys it at every install here: it can point the install at another index or a folder of the model's packages" },
  // commitlint loads its config as code at every commit (husky's commit-msg hook: red team 13's F05).
  { glob: "**/{.commitlintrc,.commitlintrc.*,commitlint.config.*}", why: "runs on git commit through the commit-msg hook (commitlint loads it)" },
  // A toolchain pin or launcher setting a version manager or launcher reads from the folder to pick what it runs
  // (red team 8 F9/F19): the next `cargo --version` or `mvn -v` runs it, before any project code. (Gradle's wrapper
  // and gradle.properties are not here: opening the project runs its build.gradle anyway, like package.json's scripts.)
  { glob: "**/rust-toolchain{,.toml}", why: "rustup obeys it in this folder (a toolchain path runs that folder's cargo and rustc)" },
  { glob: "**/.mvn/**", why: "Maven obeys it at every mvn and ./mvnw (JVM options, extensions, the wrapper's download)" },
  { glob: "**/.tool-versions", why: "asdf and mise obey it in this folder (a path: version runs that folder's programs)" },
  { glob: "**/global.json", why: "dotnet obeys it in this folder (sdk.paths picks the SDK it runs)" },
  { glob: "**/.bazeliskrc", why: "bazelisk obeys it in this folder (it picks the bazel it downloads and runs)" },
  { glob: "**/{.pnpmfile.cjs,pnpm-workspace.yaml}", why: "pnpm runs or obeys it on every pnpm install (the pnpmfile's hooks, its settings)" },
  // mise runs `_.source`, `{{exec()}}` and tasks, and puts `_.path` first on PATH, at every prompt once trusted by path (F6).
  { glob: "**/{.,}mise{,.*}.toml", why: "mise obeys it at every prompt in this folder (env scripts, exec templates, PATH)" },
  { glob: "**/{.mise,.config/mise}/**", why: "mise obeys it at every prompt in this folder (env scripts, exec templates, PATH)" },
  { glob: "**/.config/mise{,.*}.toml", why: "mise obeys it at every prompt in this folder (env scripts, exec templates, PATH)" },
  { glob: "**/{.devcontainer.json,.devcontainer/**}", why: "VS Code and the devcontainer CLI run its initializeCommand on this machine when you open the folder" },
  { glob: "**/{.Rprofile,.irbrc,.pryrc,.octaverc}", why: "R, irb, pry or Octave runs it at every start in this folder" },
  // Read from the folder a debugger or interpreter starts in (red team 10's F14): `!` in a .pdbrc runs Python at the next breakpoint().
  { glob: "**/{.pdbrc,.ghci,.ocamlinit,.iex.exs,.perldb}", why: "pdb, GHCi, OCaml, IEx or perl -d runs it when it starts in this folder (pdb at every breakpoint)" },
  // JetBrains IDEs run a trusted project's file watchers (watcherTasks.xml) when it opens. Not workspace.xml (startup
  // tasks): the IDE itself rewrites it while a command runs, and bunker would set the person's own save aside (R10-15).
  { glob: "**/.idea/watcherTasks.xml", why: "your JetBrains IDE runs its file watchers when it opens the project" },
  { glob: "**/.cargo/config{,.toml}", why: "cargo obeys it at every cargo command in this folder (rustc-wrapper, runner and linker run programs)" },
  { glob: "**/{.zed/settings.json,.helix/languages.toml}", why: "your editor obeys it when you open the folder (it can name the programs it starts)" },
  // Other coding agents' project settings (F15): hooks and MCP servers they start, outside any sandbox.
  { glob: "**/.claude/settings{,.local}.json", why: "Claude Code runs its hooks and obeys its settings when it starts here" },
  { glob: "**/{.mcp.json,.vscode/mcp.json,.cursor/mcp.json,.cursor/hooks.json,.roo/mcp.json,.kiro/settings/mcp.json}", why: "your coding agents and editors start the MCP servers it names" },
  { glob: "**/{.gemini/settings.json,.codex/config.toml,opencode.json,opencode.jsonc}", why: "a coding agent obeys it when it starts here (MCP servers, hooks, commands it runs)" },
  { glob: "**/.continue/**", why: "Continue obeys it when your editor opens the folder (MCP servers and commands it runs)" },
  // git-lfs reads lfs.url / lfs.pushurl / remote.NAME.lfsurl from the work tree's .lfsconfig: a command's one would send
  // the repository's LFS files to its host at your next git push, past the sandbox's network rules (red team 13's note).
  { glob: "**/.lfsconfig", why: "git-lfs obeys it at your git push, pull and checkout (lfs.url can send the repository's LFS files to another host)" },
  { glob: "**/.aider.conf.{yml,yaml}", why: "aider obeys it when it starts here (lint-cmd and test-cmd run after its edits)" },
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

/** What the walk of the roots asks (git-guard.ts's LaterMatch, without its key): runsLaterMatcher's answer and the two below. */
export interface LaterQuestions {
  match: (real: string) => string | null;
  /**
   * Whether a file that runs later runs on this machine as a script or a config that names what it runs (a hook, a
   * runs-later rule's file that is not CI's, a venv's .pth): the files it names by a literal path run later too.
   */
  names: (real: string) => boolean;
  /** A matcher of the programs in `dirs` (absolute, put first on PATH by an .envrc or a mise config) that shadow one on the person's PATH. */
  pathShadows: (dirs: readonly string[]) => (real: string) => string | null;
}

/** runsLaterMatcher with the walk's two other questions (same arguments). */
export function laterQuestions(roots: string | readonly string[], extra: readonly RunsLaterRule[] = [], path = process.env.PATH ?? "", person: Person = {}): LaterQuestions {
  const { match, names, pathShadows } = withKey(roots, extra, path, person);
  return { match, names, pathShadows };
}

function personOf(person: Person): { env: Record<string, string | undefined>; home: string } {
  const env = person.env ?? process.env;
  return { env, home: person.home ?? (env.HOME || homedir()) };
}

function withKey(roots: string | readonly string[], extra: readonly RunsLaterRule[], bunkerPath: string, person: Person): LaterQuestions & { startupKey: string; path: string } {
  const all = typeof roots === "string" ? [roots] : [...roots];
  const rules = [...RUNS_LATER, ...extra].map((rule) => ({ glob: new Bun.Glob(rule.glob), absolute: isAbsolute(rule.glob), why: rule.why, needles: needles(rule.glob), top: rule.top === true, ci: rule.top === true || rule.ci === true }));
  const tops = repositoryTops();
  const every = rules.flatMap((r) => r.needles);
  const anyNeedle = every.includes("") ? null : new RegExp(every.map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|"));
  const { env, home } = personOf(person);
  const hooksDirs = all.flatMap((root) => {
    const hooks = gitHooksPath(root, env, home);
    const dir = hooks === null ? null : hooksDir(root, hooks, home);
    return hooks !== null && dir ? [{ dir, hooks }] : [];
  });
  // Innermost first: a granted folder inside another is its own root.
  const byDepth = [...all].sort((a, b) => b.length - a.length);
  const startup = startupMatcher(env, home, all);
  // The PATH of the person's next terminal: bunker's, with what their shell startup files add to it.
  const { before, after } = startup.path;
  const path = before.length + after.length === 0 ? bunkerPath : [...before, ...(bunkerPath === "" ? [] : [bunkerPath]), ...after].join(delimiter);
  const shadows = pathShadowMatcher(all, path, home);
  const venv = venvMatcher(path, home);
  // Why, and whether the file runs on this machine naming what it runs (a hook, a config; not CI's, not a program).
  const find = (real: string): { why: string; names: boolean } | null => {
    const root = byDepth.find((r) => isWithin(r, real));
    if (root === real) return null;
    const lowerReal = real.toLowerCase();
    // Every name a rule's path must hold, tested at once: most files (a node_modules) hold none of them.
    if (anyNeedle === null || anyNeedle.test(lowerReal)) {
      // Outside every root: each folder of the path could be where direnv or husky looks.
      const rels = (root ? [relative(root, real)] : real.split(sep).map((_, i, parts) => parts.slice(i).join(sep)).filter((r) => r && !isAbsolute(r))).map(named);
      // From the top of each repository inside the root too, for the CI rules (only for paths that name a CI folder or file).
      const fromTops = root ? tops(root, rels[0]!.rel).map(named) : [];
      const forTop = fromTops.length ? [...rels, ...fromTops] : rels;
      const absolute = [{ rel: real, lower: lowerReal }];
      for (const rule of rules) {
        for (const { rel, lower } of rule.absolute ? absolute : rule.top ? forTop : rels) {
          if (!rule.needles.some((n) => lower.includes(n))) continue;
          if (rule.glob.match(rel) || (lower !== rel && rule.glob.match(lower))) return { why: rule.why, names: !rule.ci };
        }
      }
    }
    const hooks = hooksDirs.find((h) => isWithin(h.dir, real));
    if (hooks) return { why: `runs as a git hook (core.hooksPath is ${hooks.hooks})`, names: true };
    // A folder on PATH now before a venv that may be activated later: a command's new program there is never left.
    const why = startup.match(real) ?? shadows(real) ?? venv(real);
    // A venv's .pth runs its import lines at every start of its python: a script they open by name runs then too.
    return why ? { why, names: why === VENV_PTH_WHY && real.endsWith(".pth") } : null;
  };
  const match = (real: string): string | null => find(real)?.why ?? null;
  const names = (real: string): boolean => find(real)?.names === true;
  const pathShadows = (dirs: readonly string[]) => pathShadowMatcher(all, [...dirs, path].join(delimiter), home);
  return { match, names, pathShadows, startupKey: startup.key, path };
}

/**
 * runsLaterMatcher with a key that changes when its answer may (the git wall's walk keeps what it found per folder
 * under it): settings, hooks folders, where the person's startup files lead, and the PATH folders whose programs a
 * file in the roots may shadow (installing one changes its folder's mtime).
 */
export function laterMatch(roots: string[], protect: readonly RunsLaterRule[], path: string, person: Person = {}): LaterQuestions & { key: string } {
  const { match, names, pathShadows, startupKey, path: full } = withKey(roots, protect, path, person);
  const { env, home } = personOf(person);
  // A relative entry is read from the workspace, as path-shadow.ts reads it (not from bunker's own folder).
  const programs = pathEntries(full, home).map((d) => {
    const dir = resolve(roots[0]!, d || ".");
    return `${d}\0${roots.some((r) => isWithin(r, realpathLoose(dir).real)) ? "" : mtimeOf(dir)}`;
  });
  return { key: `${protect.map((r) => r.glob).join("\0")}\0${roots.map((r) => `${r}\0${gitHooksPath(r, env, home) ?? ""}`).join("\0")}\0${programs.join("\0")}\0${startupKey}`, match, names, pathShadows };
}

/** A folder's mtime, or -1 when it is not there (not asked for a folder inside a writable root: the walk itself sees it change). */
function mtimeOf(dir: string): number {
  try {
    return statSync(dir).mtimeMs;
  } catch {
    return -1;
  }
}

/** A path and its lower case (case-insensitive file systems, macOS and Windows, treat `.ENVRC` as `.envrc`). */
const named = (rel: string) => ({ rel, lower: rel.toLowerCase() });

/** Names CI reads its pipeline from (the `top` rules): only a path holding one is matched from a repository's top. */
const CI_NAMES = /(^|\/)(\.github\/(workflows|actions)|\.forgejo|\.gitea|\.gitlab-ci\.|\.circleci|\.?azure-pipelines|bitbucket-pipelines|\.buildkite|\.drone\.|\.woodpecker|\.travis\.)/i;

/**
 * A path's names relative to each folder between `root` and it that holds a `.git` (a repository's top, whose CI
 * runs its own pipeline files). Whether a folder holds one is looked up once per matcher (one per command).
 */
function repositoryTops(): (root: string, rel: string) => string[] {
  const isTop = new Map<string, boolean>();
  return (root, rel) => {
    if (!CI_NAMES.test(rel)) return [];
    const parts = rel.split(sep);
    const out: string[] = [];
    for (let i = 1; i < parts.length; i++) {
      const dir = join(root, ...parts.slice(0, i));
      let top = isTop.get(dir);
      if (top === undefined) isTop.set(dir, (top = existsSync(join(dir, ".git"))));
      if (top) out.push(parts.slice(i).join(sep));
    }
    return out;
  };
}

/**
 * Texts one of which any path a glob matches must contain (each alternative's longest literal name, lower case):
 * most paths are ruled out without running the glob. [""] when a needle cannot be told (escapes, nested braces).
 */
function needles(glob: string): string[] {
  if (glob.includes("\\")) return [""];
  // One brace group at a time becomes its alternatives (`{.irbrc,.pryrc}`: either name), classes stand for anything.
  const group = /\{([^{}]*)\}/.exec(glob);
  if (group) {
    const alts = group[1]!.split(",").flatMap((alt) => needles(glob.slice(0, group.index) + alt + glob.slice(group.index + group[0].length)));
    return alts.includes("") ? [""] : [...new Set(alts)];
  }
  const plain = glob.replace(/\[[^\]]*\]/g, "*");
  // A stray brace must not become text the path has to hold.
  if (/[{}[\]]/.test(plain)) return [""];
  // Split at "/" too: `**/` may stand for nothing (`**/.envrc` matches `.envrc`).
  return [plain.split(/[*?/]/).reduce((a, b) => (b.length > a.length ? b : a), "").toLowerCase()];
}
