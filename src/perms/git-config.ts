// A repository's own config can make read-only git commands run programs:
// diff.external, a textconv or filter driver, a pager, gpg for signatures,
// or an include that could say any of these. A workspace unpacked from an
// archive brings its .git/config along, so before `git diff` runs unasked,
// that file is read and any such key makes the command ask instead.
import { lstatSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { homedir, xdgConfigHome } from "../fs/home.ts";
import { GIT_PROGRAM_SETTINGS } from "./run/git-settings.ts";
import { commondirTarget, gitfileTarget, readRegular, readSmallText } from "./gitfile.ts";

/**
 * Section (subsection stripped, lower case) → keys that name a program to
 * run, or load what could ("*" = any key): the judge's table of settings git
 * runs (run/git-settings.ts, but for aliases, which only run when named),
 * and what else makes a read-only git command reach further.
 */
// Built on first use, not at start-up: reading a config is rare, and loading this module is not.
let runsPrograms: Record<string, Set<string> | "*"> | undefined;
const runsProgramsTable = (): Record<string, Set<string> | "*"> => (runsPrograms ??= (() => {
  const table: Record<string, Set<string> | "*"> = {};
  const add = (section: string, key: string) => {
    const had = table[section];
    if (had === "*") return;
    if (key === "*") table[section] = "*";
    else (table[section] = had ?? new Set()).add(key);
  };
  for (const row of GIT_PROGRAM_SETTINGS) {
    if (row.runs === "git") continue;
    for (const name of row.names) {
      const parts = name.split(".");
      add(parts[0]!, parts[parts.length - 1]!);
    }
  }
  // diff.submodule: diffs of nested repositories, run under their own config; a signature shown runs gpg.
  add("diff", "submodule");
  add("log", "showsignature");
  add("include", "*");
  add("includeif", "*");
  return table;
})());

/** A remote's URL git fetches from itself (no `ext::`, `fd::` or other transport helper named in it). */
const plainUrl = (value: string) => !value.includes("::") && !value.startsWith("-") && (/^(https?|ssh|git|file):\/\//i.test(value) || !value.includes("://"));

/**
 * Keys a config file created or changed by a command may keep: known to run
 * nothing, whatever their value (the rest, included files and aliases too,
 * are commented out: a list of what runs programs is never complete).
 * Section (subsection stripped) → keys, or a test of key and value.
 */
const KEEPS: Record<string, ReadonlySet<string> | ((key: string, value: string) => boolean)> = {
  core: new Set(["repositoryformatversion", "filemode", "bare", "logallrefupdates", "ignorecase", "precomposeunicode", "symlinks", "autocrlf", "eol", "safecrlf", "quotepath", "sharedrepository", "compression", "loosecompression", "bigfilethreshold", "checkstat", "trustctime", "splitindex", "untrackedcache", "protecthfs", "protectntfs", "abbrev", "whitespace", "preloadindex", "longpaths", "multipackindex", "commitgraph", "sparsecheckout", "sparsecheckoutcone", "fsync", "fsyncmethod"]),
  remote: (key, value) => ["fetch", "push", "tagopt", "prune", "prunetags", "mirror", "skipdefaultupdate", "skipfetchall", "promisor", "partialclonefilter"].includes(key) || ((key === "url" || key === "pushurl") && plainUrl(value)),
  submodule: (key, value) => key === "active" || (key === "url" && plainUrl(value)),
  branch: new Set(["remote", "merge", "rebase", "pushremote", "description"]),
  user: new Set(["name", "email"]),
  init: new Set(["defaultbranch"]),
  extensions: new Set(["objectformat", "worktreeconfig", "refstorage", "preciousobjects", "partialclone"]),
  pull: new Set(["rebase", "ff"]),
  gc: new Set(["auto", "autodetach", "autopacklimit"]),
  index: new Set(["version", "threads"]),
  i18n: new Set(["commitencoding", "logoutputencoding"]),
  color: (key) => key !== "pager",
  advice: () => true,
};

/** Whether a config written by a command may keep `section.key = value` (KEEPS). */
export function keepsConfigKey(section: string, key: string, value: string): boolean {
  const keep = KEEPS[section];
  return typeof keep === "function" ? keep(key, value) : keep?.has(key) === true;
}

/** A setting that runs a program (`filter.clean`), or something git reads that bunker cannot; and in which nested repository ("" for the outer one). */
interface ConfigHit {
  key?: string;
  unreadable?: string;
  where: string;
}

/**
 * The first setting that would run a program in the repository around `root`
 * (`diff.external`), or in a repository nested in it as a gitlink (an
 * embedded repository or a submodule: `git status` and `git diff` look inside
 * those, under their own config). Null if none.
 */
export function gitConfigRunsPrograms(root: string): ConfigHit | null {
  const repo = findRepo(root);
  return repo ? repoRunsPrograms(repo, "", 0) : null;
}

/** Why git in `dir` may run a program its config names, in words, or null. */
export function gitConfigProblemIn(dir: string): string | null {
  const hit = gitConfigRunsPrograms(dir);
  if (!hit) return null;
  if (hit.unreadable) return hit.where ? `git looks inside the nested repository ${hit.where}, whose ${hit.unreadable} bunker cannot read` : `bunker cannot read this repository's ${hit.unreadable}`;
  if (!hit.where) return `this repository's git config sets ${hit.key}, which runs a program`;
  return `the nested repository ${hit.where} (git looks inside it) has a git config that sets ${hit.key}, which runs a program`;
}

const MAX_NESTING = 4;

function repoRunsPrograms(repo: Repo, where: string, depth: number): ConfigHit | null {
  for (const file of configFilesOf(repo.gitDir)) {
    const text = readSmallText(file);
    if (text === null) {
      // There but not read (a FIFO, over 1 MB): what git would make of it is not known.
      if (present(file)) return { unreadable: basename(file), where };
      continue;
    }
    const key = riskyKey(text);
    if (key) return { key, where };
  }
  const links = gitlinks(repo.gitDir);
  if (links === null) return { unreadable: "index", where };
  for (const link of links) {
    const dir = join(repo.workTree, link);
    const gd = gitDirOf(dir);
    // Not checked out (no .git there): git has nothing to look into.
    if (gd === "none") continue;
    const inner = where ? `${where}/${link}` : link;
    if (gd === null) return { unreadable: ".git file", where: inner };
    if (depth >= MAX_NESTING) return { unreadable: "nesting, this deep,", where: inner };
    const hit = repoRunsPrograms({ workTree: dir, gitDir: gd }, inner, depth + 1);
    if (hit) return hit;
  }
  return null;
}

interface Repo {
  workTree: string;
  gitDir: string;
}

/** The repository containing `dir` (walking up), or null. */
function findRepo(dir: string): Repo | null {
  for (let d = dir; ; d = dirname(d)) {
    const gd = gitDirOf(d);
    if (gd === null) return null;
    if (gd !== "none") return { workTree: d, gitDir: gd };
    if (dirname(d) === d) return null;
  }
}

const indexCache = new Map<string, { key: string; links: string[] | null }>();

/**
 * Paths of the gitlinks (mode 160000: embedded repositories and submodules)
 * in a git directory's index; [] without an index, null when it cannot be read.
 * Index versions 2 to 4, SHA-1 or SHA-256 object names.
 */
export function gitlinks(gitDir: string): string[] | null {
  const file = join(gitDir, "index");
  let key: string;
  try {
    const st = statSync(file);
    key = `${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch {
    return [];
  }
  const cached = indexCache.get(file);
  if (cached?.key === key) return cached.links;
  let links: string[] | null;
  try {
    const bytes = readRegular(file, MAX_INDEX);
    links = bytes === null ? null : parseIndexGitlinks(bytes, hashLength(gitDir));
  } catch {
    links = null;
  }
  indexCache.set(file, { key, links });
  return links;
}

/** 32 bytes for a SHA-256 repository (extensions.objectFormat), else 20. */
function hashLength(gitDir: string): number {
  for (const f of configFilesOf(gitDir)) {
    if (/^\s*objectformat\s*=\s*sha256\s*$/im.test(readSmallText(f) ?? "")) return 32;
  }
  return 20;
}

function parseIndexGitlinks(buf: Buffer, hashLen: number): string[] | null {
  if (buf.length < 12 || buf.toString("latin1", 0, 4) !== "DIRC") return null;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = buf.readUInt32BE(8);
  const links: string[] = [];
  let pos = 12;
  let previous = "";
  for (let i = 0; i < count; i++) {
    const start = pos;
    if (pos + 40 + hashLen + 2 > buf.length) return null;
    const mode = buf.readUInt32BE(pos + 24);
    pos += 40 + hashLen;
    const flags = buf.readUInt16BE(pos);
    pos += 2;
    if (version >= 3 && flags & 0x4000) pos += 2; // extended flags
    let path: string;
    if (version === 4) {
      // The path is the previous one minus N trailing bytes, plus this suffix (N a varint).
      let strip = buf[pos]! & 0x7f;
      while (buf[pos++]! & 0x80) strip = ((strip + 1) << 7) | (buf[pos]! & 0x7f);
      const end = buf.indexOf(0, pos);
      if (end < 0) return null;
      const prev = Buffer.from(previous, "utf8");
      path = Buffer.concat([prev.subarray(0, prev.length - strip), buf.subarray(pos, end)]).toString("utf8");
      pos = end + 1;
    } else {
      const end = buf.indexOf(0, pos);
      if (end < 0) return null;
      path = buf.toString("utf8", pos, end);
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
      pos = start + Math.ceil((end + 1 - start) / 8) * 8;
    }
    previous = path;
    if ((mode & 0o170000) === 0o160000) links.push(path);
  }
  return links;
}

export function riskyKey(configText: string): string | null {
  for (const e of configEntries(configText)) if (runsProgram(e.section, e.key)) return `${e.section}.${e.key}`;
  return null;
}

/** Whether `section.key` (section without its subsection, both lower case) names a program git may run. */
export function runsProgram(section: string, key: string): boolean {
  const risky = runsProgramsTable()[section];
  return risky === "*" || risky?.has(key) === true;
}

export interface ConfigEntry {
  /** Index of the line the key is on (0-based). */
  line: number;
  /** Section, lower case, without its subsection: `diff` for `[diff "x"]` and `[diff.x]`. */
  section: string;
  key: string;
  /** The value as written, quotes removed ("" for a bare boolean key). */
  value: string;
}

/** The key lines of a git config file, in order. */
export function* configEntries(configText: string): Generator<ConfigEntry> {
  let section = "";
  const lines = configText.split("\n");
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    // [diff "x"], [diff.x] (old syntax) and [diff] all count as "diff".
    const header = /^\[\s*([A-Za-z0-9-]+)[^\]]*\](.*)$/.exec(line);
    let rest = line;
    if (header) {
      section = header[1]!.toLowerCase().split(".")[0]!;
      rest = header[2]!.trim();
      if (rest === "" || rest.startsWith("#") || rest.startsWith(";")) continue;
    }
    const m = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(rest);
    if (!m) continue;
    const value = (m[2] ?? "").replace(/\s+[#;].*$/, "").trim().replace(/^"(.*)"$/, "$1");
    yield { line: i, section, key: m[1]!.toLowerCase(), value };
  }
}

/** The config files git reads for a git directory: its config, a worktree's own, and (through commondir) the shared repository's. */
function configFilesOf(gd: string): string[] {
  const files = [join(gd, "config"), join(gd, "config.worktree")];
  const common = commondirTarget(readSmallText(join(gd, "commondir")));
  if (common) {
    const cd = isAbsolute(common) ? common : resolve(gd, common);
    files.push(join(cd, "config"), join(cd, "config.worktree"));
  }
  return files;
}

/** The config files git would read for the repository containing `root`. */
function repoConfigFiles(root: string): string[] {
  const repo = findRepo(root);
  return repo ? configFilesOf(repo.gitDir) : [];
}

/** The git directory for `dir`: its .git directory, where a .git file points, "none" without .git, null if unreadable. */
function gitDirOf(dir: string): string | "none" | null {
  const dotGit = join(dir, ".git");
  let isDir: boolean;
  try {
    isDir = statSync(dotGit).isDirectory();
  } catch {
    return "none";
  }
  if (isDir) return dotGit;
  // A worktree or submodule: ".git" is a file saying "gitdir: <path>".
  try {
    const gitdir = gitfileTarget(readSmallText(dotGit));
    if (!gitdir) return null;
    return isAbsolute(gitdir) ? gitdir : resolve(dir, gitdir);
  } catch {
    return null;
  }
}

/**
 * The config files git reads before a repository's own, in its order (a later one wins): the system's, then the
 * person's (`$XDG_CONFIG_HOME/git/config`, `~/.gitconfig`; `$GIT_CONFIG_GLOBAL` instead when set).
 */
export function globalGitConfigs(env: Record<string, string | undefined> = process.env, home: string = env.HOME || homedir()): string[] {
  const system = gitBool(env.GIT_CONFIG_NOSYSTEM) ? [] : systemGitConfigs(env);
  if (env.GIT_CONFIG_GLOBAL) return [...system, ...(isAbsolute(env.GIT_CONFIG_GLOBAL) ? [env.GIT_CONFIG_GLOBAL] : [])];
  return [...system, join(xdgConfigHome(env, home), "git", "config"), join(home, ".gitconfig")];
}

/** An environment switch as git reads one: unset, empty, 0, false, no or off is off (reviewer's R10-12: GIT_CONFIG_NOSYSTEM=0 is not "no system config"). */
function gitBool(value: string | undefined): boolean {
  return value !== undefined && !/^\s*(0*|false|no|off)\s*$/i.test(value);
}

/**
 * The system config: `$GIT_CONFIG_SYSTEM` when set, else /etc/gitconfig and, for a git installed under another prefix
 * (Homebrew's /opt/homebrew/bin/git reads /opt/homebrew/etc/gitconfig), that prefix's etc/gitconfig too (the first
 * git on PATH: reading one git does not is only more care).
 */
function systemGitConfigs(env: Record<string, string | undefined>): string[] {
  if (env.GIT_CONFIG_SYSTEM !== undefined) return isAbsolute(env.GIT_CONFIG_SYSTEM) ? [env.GIT_CONFIG_SYSTEM] : [];
  const bin = (env.PATH ?? "").split(":").find((d) => isAbsolute(d) && isFile(join(d, "git")));
  const prefix = bin ? dirname(bin) : "/usr";
  return prefix === "/usr" || prefix === "/" ? ["/etc/gitconfig"] : ["/etc/gitconfig", join(prefix, "etc", "gitconfig")];
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * core.hooksPath of the repository at `root` (as written: relative paths are relative to the work tree, `~/` to the
 * person's home), or null. Files there run on commit, merge, push. Read as git reads it: the system's and the
 * person's config, then the repository's (the last setting wins), each with every file it includes. A relative one
 * in the person's config names a folder in every repository.
 */
export function gitHooksPath(root: string, env: Record<string, string | undefined> = process.env, home: string = env.HOME || homedir()): string | null {
  let found: string | null = null;
  for (const file of [...withIncludes(globalGitConfigs(env, home), readText, home), ...withIncludes(repoConfigFiles(root), readText, home)]) {
    for (const e of configEntries(file.text ?? "")) if (e.section === "core" && e.key === "hookspath") found = e.value;
  }
  return found;
}

/** The folder a core.hooksPath names for the repository whose work tree is `top`; null for `~user/` (not followed). */
export function hooksDir(top: string, hooks: string, home: string = process.env.HOME || homedir()): string | null {
  if (hooks.startsWith("~/")) return join(home, hooks.slice(2));
  if (hooks.startsWith("~")) return null;
  return resolve(top, hooks);
}

/** A config file git reads: one of a repository's own, or one they include (text null when missing or unreadable). */
export interface ConfigFile {
  path: string;
  text: string | null;
  included: boolean;
}

/** git stops following includes this deep (config.c's MAX_INCLUDE_DEPTH). */
const MAX_INCLUDE_DEPTH = 10;

/**
 * `files` and every file they include, recursively as git does:
 * include.path and includeIf.<any condition>.path (a condition may hold
 * later, so all count), relative paths from the including file's folder,
 * `~/` from the person's `home` (a workspace may be in it: a dotfiles
 * repository the global config includes from); without one, `~` paths are left out.
 */
export function withIncludes(files: readonly string[], read: (path: string) => string | null = readText, home?: string): ConfigFile[] {
  const out: ConfigFile[] = [];
  const seen = new Set<string>();
  const visit = (path: string, included: boolean, depth: number) => {
    if (seen.has(path) || depth > MAX_INCLUDE_DEPTH) return;
    seen.add(path);
    const text = read(path);
    out.push({ path, text, included });
    for (const inc of includePaths(text ?? "", home)) visit(isAbsolute(inc) ? inc : resolve(dirname(path), inc), true, depth + 1);
  };
  for (const f of files) visit(f, false, 0);
  return out;
}

/** The include.path and includeIf.*.path values of a config, `~/` ones from `home` (left out without one, as `~user/` ones are). */
export function includePaths(configText: string, home?: string): string[] {
  const paths = [...configEntries(configText)].filter((e) => (e.section === "include" || e.section === "includeif") && e.key === "path" && e.value !== "").map((e) => e.value);
  return paths.flatMap((p) => (!p.startsWith("~") ? [p] : home !== undefined && p.startsWith("~/") ? [join(home, p.slice(2))] : []));
}

function readText(path: string): string | null {
  return readSmallText(path);
}

/** Something is at `path` (a link counts, whatever it leads to). */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** An index larger than this is not read (git's own for a very large repository; the command then asks). */
const MAX_INDEX = 1 << 30;
