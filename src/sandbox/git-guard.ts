// Every git repository in the workspace is read-only inside the sandbox, at
// any depth: a hook or a config key planted in one runs the next time the
// person uses git there (outside bunker, unconfined). Found before each
// command that may write: every `.git` (directory, or a file pointing at the
// git directory), the git directories those files point at, the hooks
// directories and included files their configs name. A `.git` that a command
// creates anyway (`git init sub`) is disarmed after it: its hooks renamed,
// its program-running config keys commented out, and the result says so.
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, renameSync, writeFileSync, constants } from "node:fs";
import { dirname, join, relative } from "node:path";
import { configEntries, runsProgram } from "../perms/git-config.ts";
import { isWithin, resolveFrom } from "../perms/workspace.ts";

/** A `.git` found in the workspace, and which file it is (a new one at an old path is new). */
export interface GitSite {
  path: string;
  kind: "dir" | "file";
  id: string;
}

interface DirMemo {
  ctimeMs: number;
  ino: number;
  subdirs: string[];
  sites: GitSite[];
}

/** Per directory: what it held when last read (re-read when its ctime changes, which no command can fake). */
const memo = new Map<string, DirMemo>();
/** Directories changed this recently are re-read whatever their ctime says (coarse time stamps). */
const FRESH_MS = 2_000;
/** A walk this large stops: the rest is treated as having no repositories (said in the note). */
const MAX_DIRS = 200_000;

/** Every `.git` in the workspace, at any depth (links are not followed; a `.git` directory is not entered). */
export function findGitSites(root: string): GitSite[] {
  const out: GitSite[] = [];
  const stack = [root];
  let dirs = 0;
  const now = Date.now();
  while (stack.length > 0 && dirs++ < MAX_DIRS) {
    const dir = stack.pop()!;
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      memo.delete(dir);
      continue;
    }
    let m = memo.get(dir);
    if (!m || m.ctimeMs !== st.ctimeMs || m.ino !== st.ino || st.ctimeMs > now - FRESH_MS || st.mtimeMs > now - FRESH_MS) {
      m = readDir(dir, st.ctimeMs, st.ino);
      memo.set(dir, m);
    }
    out.push(...m.sites);
    for (const d of m.subdirs) stack.push(d);
  }
  return out;
}

function readDir(dir: string, ctimeMs: number, ino: number): DirMemo {
  const m: DirMemo = { ctimeMs, ino, subdirs: [], sites: [] };
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return m;
  }
  for (const e of entries) {
    const p = `${dir}/${e.name}`;
    if (e.name.toLowerCase() === ".git") {
      try {
        const st = lstatSync(p);
        if (st.isDirectory() || st.isFile()) m.sites.push({ path: p, kind: st.isDirectory() ? "dir" : "file", id: `${st.dev}:${st.ino}` });
      } catch {
        // gone meanwhile
      }
    } else if (e.isDirectory()) {
      m.subdirs.push(p);
    }
  }
  return m;
}

/** The git directory a `.git` site stands for, and its common directory (linked worktrees, submodules). */
export function gitDirsOf(site: GitSite): string[] {
  if (site.kind === "dir") return [site.path];
  const pointer = readSmall(site.path);
  const target = pointer ? /^gitdir:\s*(.+?)\s*$/m.exec(pointer)?.[1] : undefined;
  if (!target) return [];
  const gitDir = resolveFrom(dirname(site.path), target).real;
  const common = readSmall(join(gitDir, "commondir"))?.trim();
  return common ? [gitDir, resolveFrom(gitDir, common).real] : [gitDir];
}

/** What must be read-only for the repositories found; hooks folders and included files named but missing (checked after the command). */
export interface GitGuard {
  readOnly: string[];
  missingHooks: string[];
  missingIncludes: string[];
}

/**
 * Paths inside `root` to keep read-only: every site, the git directories
 * they point at, and for every repository the hooks directory its config
 * (or git's global config, `globalConfig`) names with core.hooksPath, and
 * the files it includes. A hooks directory that does not exist yet is
 * checked after the command (disarmNewRepositories).
 */
export function gitGuard(root: string, sites: GitSite[], globalConfig: string[] = []): GitGuard {
  const readOnly = new Set<string>();
  const missing = new Set<string>();
  const missingIncludes = new Set<string>();
  const globalHooks = globalConfig.flatMap((f) => hooksPaths(readSmall(f) ?? ""));
  for (const site of sites) {
    readOnly.add(site.path);
    const top = dirname(site.path);
    for (const gitDir of gitDirsOf(site)) {
      if (isWithin(root, gitDir)) readOnly.add(gitDir);
      for (const name of ["config", "config.worktree"]) {
        const config = join(gitDir, name);
        const text = readSmall(config) ?? "";
        for (const inc of includePaths(text)) {
          const abs = resolveFrom(gitDir, inc);
          (abs.exists ? readOnly : missingIncludes).add(abs.real);
        }
        for (const hooks of hooksPaths(text)) addHooks(hooks, top);
      }
    }
    for (const hooks of globalHooks) addHooks(hooks, top);
  }
  function addHooks(hooks: string, top: string): void {
    const abs = hooks.startsWith("~/") ? null : resolveFrom(top, hooks);
    if (!abs) return;
    if (abs.exists) readOnly.add(abs.real);
    else if (isWithin(root, abs.real) && abs.real !== root) missing.add(abs.real);
  }
  const inside = (p: string) => isWithin(root, p) && p !== root;
  return { readOnly: [...readOnly].filter(inside).sort(), missingHooks: [...missing].sort(), missingIncludes: [...missingIncludes].filter(inside).sort() };
}

function hooksPaths(configText: string): string[] {
  return [...configEntries(configText)].filter((e) => e.section === "core" && e.key === "hookspath" && e.value !== "").map((e) => e.value);
}

function includePaths(configText: string): string[] {
  return [...configEntries(configText)].filter((e) => (e.section === "include" || e.section === "includeif") && e.key === "path" && e.value !== "" && !e.value.startsWith("~")).map((e) => e.value);
}

/**
 * Repositories the command created (sites not in `before`, by identity),
 * and hooks folders or included files it created where a config names one: their hooks
 * renamed to NAME.bunker-disarmed and their program-running config keys
 * commented out, so the person's next `git` there runs nothing the command
 * planted. Returns one line per thing disarmed.
 */
export function disarmNewRepositories(root: string, before: GitSite[], after: GitSite[], missing: Partial<Omit<GitGuard, "readOnly">> = {}): string[] {
  const known = new Set(before.map((s) => `${s.path}\0${s.id}`));
  // The person's own git directories (a worktree's .git file created under a .git grant points into one).
  const theirs = before.flatMap(gitDirsOf);
  const lines: string[] = [];
  for (const site of after) {
    if (known.has(`${site.path}\0${site.id}`)) continue;
    const done: string[] = [];
    for (const gitDir of gitDirsOf(site)) {
      // Only what the command could have written: inside the workspace, never through a link.
      if (!isWithin(root, gitDir) || theirs.some((d) => isWithin(d, gitDir)) || !isRealDir(root, gitDir)) continue;
      done.push(...disarmHooks(join(gitDir, "hooks")));
      for (const name of ["config", "config.worktree"]) done.push(...disarmConfig(join(gitDir, name)));
    }
    lines.push(`bunker disarmed the git repository the command created at ${relative(root, site.path)}${done.length ? ` (${done.join("; ")})` : " (nothing in it ran programs)"}: the person's git there will not run what the command planted.`);
  }
  for (const hooks of missing.missingHooks ?? []) {
    if (!isRealDir(root, hooks)) continue;
    const done = disarmHooks(hooks);
    if (done.length) lines.push(`bunker disarmed the hooks folder ${relative(root, hooks)} the command created (a git config names it core.hooksPath): ${done.join("; ")}.`);
  }
  for (const inc of missing.missingIncludes ?? []) {
    if (!isRealDir(root, dirname(inc))) continue;
    const done = disarmConfig(inc);
    if (done.length) lines.push(`bunker disarmed ${relative(root, inc)}, which the command created and a git config includes: ${done.join("; ")}.`);
  }
  return lines;
}

/** `dir` is a directory reached from `root` without a link on the way (so a rename there stays inside). */
function isRealDir(root: string, dir: string): boolean {
  const parts = relative(root, dir).split("/");
  let p = root;
  for (const part of parts) {
    p = join(p, part);
    try {
      if (!lstatSync(p).isDirectory()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

function disarmHooks(hooks: string): string[] {
  let st;
  try {
    st = lstatSync(hooks);
  } catch {
    return [];
  }
  if (!st.isDirectory()) {
    renameSync(hooks, `${hooks}.bunker-disarmed`);
    return ["its hooks (not a folder) renamed to hooks.bunker-disarmed"];
  }
  const renamed: string[] = [];
  for (const name of readdirSync(hooks)) {
    if (name.endsWith(".sample") || name.endsWith(".bunker-disarmed")) continue;
    renameSync(join(hooks, name), join(hooks, `${name}.bunker-disarmed`));
    renamed.push(name);
  }
  return renamed.length ? [`hooks renamed to NAME.bunker-disarmed: ${renamed.join(", ")}`] : [];
}

function disarmConfig(config: string): string[] {
  try {
    // A linked config can say anything git will read; the command could not have written its target, but chose it.
    if (lstatSync(config).isSymbolicLink()) {
      renameSync(config, `${config}.bunker-disarmed`);
      return [`its ${config.endsWith("worktree") ? "config.worktree" : "config"} (a link) renamed`];
    }
  } catch {
    return [];
  }
  const text = readSmall(config);
  if (text === null) return [];
  const lines = text.split("\n");
  const keys: string[] = [];
  for (const e of configEntries(text)) {
    if (!runsProgram(e.section, e.key)) continue;
    keys.push(`${e.section}.${e.key}`);
    // A header with the key on the same line (`[core] fsmonitor = x`): the whole line goes.
    lines[e.line] = `# disarmed by bunker: ${lines[e.line]}`;
    for (let i = e.line; lines[i]?.trimEnd().endsWith("\\") && i + 1 < lines.length; i++) lines[i + 1] = `# disarmed by bunker: ${lines[i + 1]}`;
  }
  if (keys.length === 0) return [];
  writeFileSync(config, lines.join("\n"));
  return [`${[...new Set(keys)].join(", ")} commented out in ${config.endsWith("worktree") ? "config.worktree" : "config"}`];
}

/** A regular file's text (up to 1 MB) without following a final link or blocking on a FIFO; null otherwise. */
function readSmall(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > 1 << 20) return null;
    return readFileSync(fd, "utf8");
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
