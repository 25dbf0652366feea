// A deny-read rule over a file git holds (red team 11's F04). The sandbox
// masks the file in the working tree, but git's object store has the same
// bytes whenever the file is or was committed, staged or stashed (a .env
// committed once, then untracked: the usual accident), and `git show
// HEAD~1:config/secrets.env` or `git log -p` reads them, judged read-only and
// run unasked. The object store is the channel, so it is what is hidden: when
// git (on the host, hardened as git-history.ts runs it) finds a denied path in
// the index or anywhere in history (every ref, every reflog entry: stashes,
// amended and reset-away commits), that repository's objects are hidden from
// commands and MCP servers for the session, and the person is told why at
// start. Asked once, at start, and only when a deny-read rule exists.
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { PathRules } from "../perms/policy.ts";
import { isWithin } from "../perms/workspace.ts";
import { shellQuote } from "../shell/quote.ts";
import { globBase } from "./denied-files.ts";
import { hostGit } from "./git-history.ts";
import { enclosingGitDirs, linkedGitDirs } from "./spec.ts";

/** A repository whose history commands could read: its git directory, the folder its paths are relative to, its object stores. */
export interface Repository {
  gitDir: string;
  top: string;
  objects: string[];
}

export interface HiddenHistory {
  /** Object stores to hide from commands and MCP servers. */
  objects: string[];
  /** What the person is told at start (one line per repository). */
  lines: string[];
}

/**
 * The repositories a command sees history of: the workspace's own (a .git folder, or the one a .git file names)
 * and the one it is a folder of. Each with its object stores (the common directory's `objects`, and the
 * alternates it borrows from).
 */
export function repositoriesSeen(root: string, home: string): Repository[] {
  const out: Repository[] = [];
  const add = (gitDirs: string[], top: string) => {
    // Not a repository git would read (an empty .git folder left behind): no history to hide.
    if (gitDirs.length === 0 || !isGitDir(gitDirs[0]!)) return;
    const common = gitDirs[gitDirs.length - 1]!;
    const objects = join(common, "objects");
    out.push({ gitDir: gitDirs[0]!, top, objects: [objects, ...alternates(objects)] });
  };
  const own = linkedGitDirs(root);
  add(own.length > 0 ? own : [join(root, ".git")], root);
  // The repository the workspace is a folder of: its top is the folder above that holds its .git.
  const enclosing = enclosingGitDirs(root, home);
  let top = dirname(root);
  while (enclosing.length > 0 && !existsSync(join(top, ".git")) && dirname(top) !== top) top = dirname(top);
  add(enclosing, top);
  return out;
}

function isGitDir(p: string): boolean {
  try {
    return readFileSync(join(p, "HEAD"), "utf8").length > 0;
  } catch {
    return false;
  }
}

/** The object stores `objects/info/alternates` names (each line a path, relative to `objects`). */
function alternates(objects: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(objects, "info", "alternates"), "utf8");
  } catch {
    return [];
  }
  return text.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#")).map((l) => (isAbsolute(l) ? l : resolve(objects, l)));
}

/**
 * git's pathspecs for the rules inside `top` (`:(top,literal)config/secrets.env`, `:(top,glob)config/**`), or null when
 * one cannot be said that way (a glob with braces, or whose fixed part lies above the repository): then every path
 * history holds is matched here instead.
 */
export function pathspecs(deny: PathRules, top: string): string[] | null {
  const out: string[] = [];
  for (const p of deny.paths) {
    if (isWithin(p, top)) return [":/"];
    if (isWithin(top, p)) out.push(`:(top,literal)${relative(top, p)}`);
  }
  for (const g of deny.globs) {
    const base = globBase(g);
    if (!isWithin(top, base) && !isWithin(base, top)) continue;
    const rest = g.startsWith(`${top}/`) ? g.slice(top.length + 1) : null;
    if (rest === null || /(^|[^\\])[{}]/.test(rest)) return null;
    // `DIR/**` is the folder whole: a literal pathspec, which git prunes the walk by (a glob it matches path by path).
    const folder = rest.endsWith("/**") ? rest.slice(0, -3) : null;
    out.push(folder !== null && !/(^|[^\\])[*?[\]]/.test(folder) ? `:(top,literal)${folder.replace(/\\(.)/g, "$1")}` : `:(top,glob)${rest}`);
  }
  return out;
}

/** Whether a path git names (relative to `top`) is one the rules deny. */
function denied(deny: PathRules, top: string): (rel: string) => boolean {
  const globs = deny.globs.map((g) => new Bun.Glob(g));
  return (rel) => {
    const abs = join(top, rel);
    return deny.paths.some((p) => isWithin(p, abs)) || globs.some((g) => g.match(abs));
  };
}

/** Where git holds a denied path: its first name, and whether in the index or in history (a commit, stash or reflog entry). */
export function heldByGit(repo: Repository, deny: PathRules): { path: string; where: "index" | "history" } | "unknown" | null {
  const specs = pathspecs(deny, repo.top);
  if (specs !== null && specs.length === 0) return null;
  const names = (out: string | null) => (out === null ? null : out.split("\0").map((n) => n.replace(/^\n+/, "")).filter((n) => n !== ""));
  const match = specs === null ? denied(deny, repo.top) : () => true;
  const index = names(hostGit(repo.gitDir, ["ls-files", "-z", "--cached", "--", ...(specs ?? [])], repo.top));
  if (index === null) return "unknown";
  const staged = index.find(match);
  if (staged !== undefined) return { path: staged, where: "index" };
  // Every ref and every reflog entry (stash@{n}, HEAD@{n}), every parent of a merge (a stash's untracked files are its third).
  const walk = ["log", "--all", "--reflog", "--full-history", "--no-renames", "--no-textconv", "--no-ext-diff", "--format=", "--name-only", "-z", "--diff-merges=first-parent"];
  const history = names(hostGit(repo.gitDir, specs === null ? walk : [...walk, "--", ...specs], repo.top));
  if (history === null) return "unknown";
  const committed = history.find(match);
  return committed === undefined ? null : { path: committed, where: "history" };
}

/** What to hide, and what to say, for the repositories `root` shows commands. */
export function hiddenHistory(root: string, deny: PathRules, home: string): HiddenHistory {
  const out: HiddenHistory = { objects: [], lines: [] };
  if (deny.paths.length === 0 && deny.globs.length === 0) return out;
  for (const repo of repositoriesSeen(root, home)) {
    const held = heldByGit(repo, deny);
    if (held === null) continue;
    out.objects.push(...repo.objects);
    const rel = relative(root, repo.top);
    const where = rel === "" ? "this repository" : `the repository at ${shellQuote(rel)}`;
    out.lines.push(
      held === "unknown"
        ? `bunker could not ask git whether ${where} holds a file your deny-read rules cover, so commands and MCP servers do not see its objects this session: git cannot read its commits in them. Run git yourself there.`
        : `${shellQuote(held.path)} is ${held.where === "index" ? "in the git index" : "in git history (a commit, a stash or a reflog entry)"} of ${where}, and a deny-read rule covers it: the mask on the file cannot hide what git keeps, so commands and MCP servers do not see its objects this session (git show, log, diff and status fail in them). Run git yourself; to give commands git back, remove the file from history (git filter-repo --invert-paths --path ${shellQuote(held.path)}, and drop the stash or reflog entries that hold it) or drop the rule.`,
    );
  }
  return out;
}

/** After a failed command that ran git while objects were hidden: why, for the model, so it asks rather than retries. */
export function hiddenHistoryNote(command: string, exitCode: number | null, hidden: readonly string[]): string | null {
  if (exitCode === 0 || hidden.length === 0 || !/\bgit\b/.test(command)) return null;
  return "note: this repository's git objects are hidden from commands this session, because its history or index holds a file a deny-read rule covers (the person was told at start), so git cannot read commits, trees or file contents here. Do not retry or work around it; ask the person to run the git command themselves if it is needed.";
}
