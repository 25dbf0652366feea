// --allow-write=.git lets commands commit, branch, rebase, stash and fetch:
// they write history (objects, refs, logs, the index, HEAD, the *_MSG files,
// packed-refs). What git reads for instructions stays read-only all the same
// (red team 7 F7: under the grant a command set core.fsmonitor and wrote
// hooks/pre-commit, and the person's next git ran both): the config and
// config.worktree, the hooks folder, info/ and commondir, in the granted git
// directory and in every worktree's and submodule's git directory inside it.
// The git directory itself is its own mount, so a command cannot rename it
// away and put a git directory of its own making in its place. A folder not
// there yet gets an empty read-only stand-in; a file not there yet that the
// command creates is set aside after it (grantedGitAfter). A rebase,
// cherry-pick or `git am` a command leaves stopped is a plan the person's git
// would carry out outside the sandbox: it is set aside after it (git-stopped.ts).
import type { ObjectsBefore } from "./git-objects.ts";
import { lstatSync } from "node:fs";
import { join, relative } from "node:path";
import { isWithin, realpathLoose } from "../perms/workspace.ts";
import { setAside } from "./git-guard.ts";
import { incompleteLine, upTo, type Walk } from "./bounded.ts";
import { refuseFurther } from "./git-wall.ts";
import { subdirs } from "./repo-configs.ts";
import type { RefsBefore } from "./git-history.ts";
import { stoppedOperations, stoppedOperationsAfter, type StoppedOperations } from "./git-stopped.ts";

/** What git obeys in a git directory: never written by a command, whatever the grant. */
export const GIT_INSTRUCTIONS = ["config", "config.worktree", "commondir", "hooks", "info"] as const;
const FOLDERS = new Set<string>(["hooks", "info"]);
/** How deep submodules' git directories are looked for under modules/ (a submodule's path may have several folders). */
const MODULES_DEPTH = 8;
/**
 * Most git directories kept per grant (a repository with hundreds of submodules is rare): past it the command is not
 * run, and past as many again after a command, bunker runs no more (bounded.ts; they had been dropped without a word).
 */
export const MAX_GIT_DIRS = 500;

export interface GrantedGit {
  /** The granted git directories: each its own writable mount. */
  gitDirs: string[];
  /** What stays read-only in them (a link's target when it lies in `within`). */
  readOnly: string[];
  /** Folders git obeys that are not there: an empty read-only stand-in each. */
  standIns: string[];
  /** Files git obeys that are not there: set aside if a command creates one. */
  absent: string[];
  /** Entries that are links → where each leads: set aside if a command re-aims or replaces one. */
  links: Record<string, string>;
  /** Every git directory found in the granted ones (worktrees', submodules'): one made later is set aside. */
  inner: string[];
  /**
   * Each of those by identity (device:inode): one replaced under the same name is set aside too (the reviewer:
   * `mv .git/modules .git/modules.old` carried the read-only mounts away, and a copy of `sm` put back was armed).
   */
  innerIds?: Record<string, string>;
  /** Each stopped rebase's, cherry-pick's, am's (…) state in each git directory: one the command starts or changes is set aside. */
  stopped?: StoppedOperations;
  /** Each granted repository's refs before the command, and its work tree: what the command committed is looked at after (git-history.ts). */
  history?: (RefsBefore & { worktree: string })[];
  /** Each granted repository's object store before the command: what it wrote there that git trusts is checked after (git-objects.ts). */
  objects?: ObjectsBefore[];
  /** Each link in the granted git directories before the command: one it makes is set aside first after it (git-links.ts). */
  linksBefore?: Map<string, string>;
}

function identity(path: string): string | null {
  try {
    const st = lstatSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

type Kind = "dir" | "file" | "link" | null;

function kindOf(path: string): Kind {
  try {
    const st = lstatSync(path);
    return st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : "file";
  } catch {
    return null;
  }
}

/** The granted git directories and those under them: each worktree's (worktrees/NAME) and each submodule's (modules/PATH…, nested too). */
function innerGitDirs(gitDirs: readonly string[], bound: number): Walk<string> {
  function* inner(gitDir: string): Generator<string> {
    yield gitDir;
    yield* subdirs(join(gitDir, "worktrees"));
    function* modules(dir: string, depth: number): Generator<string> {
      for (const d of subdirs(dir)) {
        if (kindOf(join(d, "HEAD")) !== null) yield* inner(d);
        else if (depth < MODULES_DEPTH) yield* modules(d, depth + 1);
      }
    }
    yield* modules(join(gitDir, "modules"), 0);
  }
  function* all(): Generator<string> {
    const seen = new Set<string>();
    for (const g of gitDirs) {
      if (kindOf(g) !== "dir" || seen.has(g)) continue;
      for (const d of inner(g)) {
        if (seen.has(d)) continue;
        seen.add(d);
        yield d;
      }
    }
  }
  return upTo(all(), bound);
}

/**
 * What stays read-only under a grant of `gitDirs` (the workspace's .git, or
 * the git directories its .git file names). `within`: where a command can
 * write (the workspace, granted folders): a link there (hooks ->
 * ../githooks) keeps its target read-only too.
 */
export function grantedGit(gitDirs: string[], within: string[]): GrantedGit | { refusal: string } {
  const walk = innerGitDirs(gitDirs, MAX_GIT_DIRS);
  if (!walk.complete) return { refusal: incompleteLine("git directories (worktrees' and submodules') in the git directory granted with --allow-write=.git", walk.bound, "bunker keeps what git obeys in each read-only and sets aside any the command makes, so it runs none here. Remove the worktrees and submodule folders no longer needed (git worktree prune; .git/modules), or run bunker without --allow-write=.git") };
  const dirs = walk.items;
  const innerIds = Object.fromEntries(dirs.flatMap((d) => {
    const id = identity(d);
    return id ? [[d, id]] : [];
  }));
  const out: GrantedGit = { gitDirs: gitDirs.filter((g) => kindOf(g) === "dir"), readOnly: [], standIns: [], absent: [], links: {}, inner: dirs, innerIds, stopped: stoppedOperations(dirs) };
  // The person's other linked worktrees' own state (HEAD, ORIG_HEAD and the other pseudo-refs, index, reflogs): read-only
  // whole. A command works in this worktree; one re-aiming another's ORIG_HEAD had the person's `git reset --hard
  // ORIG_HEAD` there bring the command's commit (red team 12's F15). New worktrees can still be added beside them.
  const others: string[] = [];
  for (const g of out.gitDirs) {
    for (const wt of subdirs(join(g, "worktrees"))) if (!gitDirs.includes(wt) && kindOf(wt) === "dir") others.push(wt);
  }
  out.readOnly.push(...others);
  for (const dir of dirs) {
    // Read-only whole already: no mount inside it (bubblewrap could not make a stand-in's mount point there).
    if (others.some((o) => isWithin(o, dir))) continue;
    for (const name of GIT_INSTRUCTIONS) {
      const p = join(dir, name);
      const kind = kindOf(p);
      if (kind === null) (FOLDERS.has(name) ? out.standIns : out.absent).push(p);
      else if (kind !== "link") out.readOnly.push(p);
      else {
        // A link is not mounted over (bubblewrap would follow it); what it leads to is, where a command could write it.
        const { real, exists } = realpathLoose(p);
        if (exists && [...within, ...dirs].some((w) => isWithin(w, real))) out.readOnly.push(real);
        out.links[p] = real;
      }
    }
  }
  return out;
}

/**
 * After the command: each file git obeys that was not there and is there
 * now, and each link that leads elsewhere now or is no longer a link, set
 * aside. One line each.
 */
export function grantedGitAfter(root: string, before: Pick<GrantedGit, "absent" | "links" | "inner" | "gitDirs" | "innerIds" | "stopped">): string[] {
  const shown = (p: string) => (isWithin(root, p) ? relative(root, p) : p);
  const changed = [
    ...before.absent.filter((p) => kindOf(p) !== null),
    ...Object.entries(before.links).filter(([p, real]) => kindOf(p) !== null && (kindOf(p) !== "link" || realpathLoose(p).real !== real)).map(([p]) => p),
  ];
  const lines = changed.map((p) =>
    setAside(root, p, `${shown(p)}, which the command ${p in before.links ? "changed" : "created"} under --allow-write=.git (git obeys it: it can make your next git run a program)`),
  );
  // A submodule's or worktree's git directory the command made (`git submodule update` later reuses one it finds, hooks and config and all).
  const walk = innerGitDirs(before.gitDirs, before.inner.length + MAX_GIT_DIRS);
  const now = walk.items;
  // Past the bound, what the command made beyond it is unchecked: no further command runs (git-wall.ts).
  if (!walk.complete) lines.push(refuseFurther([root], incompleteLine("git directories in the granted git directory after the command", walk.bound, "the ones it made past that were not checked")));
  // New, or the same name on another folder (its read-only mounts were carried away with the one renamed).
  const replaced = (d: string) => !before.gitDirs.includes(d) && before.innerIds?.[d] !== undefined && identity(d) !== before.innerIds[d];
  const made = now.filter((d) => !before.inner.includes(d) || replaced(d));
  for (const d of made.filter((d) => !made.some((o) => o !== d && isWithin(o, d)))) {
    const how = replaced(d) ? "put by the command in place of the one there before" : "the command created";
    lines.push(setAside(root, d, `${shown(d)}, a git directory ${how} under --allow-write=.git (a later git submodule update or worktree would use its config and hooks)`));
  }
  lines.push(...stoppedOperationsAfter(root, now.filter((d) => !made.includes(d)), before.stopped ?? {}));
  return lines;
}
