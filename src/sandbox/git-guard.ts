// Every git repository in the workspace is read-only inside the sandbox, at
// any depth: a hook or a config key planted in one runs the next time the
// person uses git there (outside bunker, unconfined). Found before each
// command that may write: every `.git` (directory, or a file pointing at the
// git directory), the git directories those files point at, the hooks
// directories and included files their configs name. A `.git` that a command
// creates anyway (`git init sub`) is disarmed after it: its hooks renamed,
// its program-running config keys commented out, and the result says so.
import { type Stats, accessSync, constants, existsSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { removeEntry, renameEntry, replaceFile } from "../fs/no-follow.ts";
import { basename, dirname, join, relative, resolve } from "node:path";
import { homedir } from "../fs/home.ts";
import { configEntries, globalGitConfigs, hooksDir, keepsConfigKey, withIncludes } from "../perms/git-config.ts";
import { isWithin, realpathLoose, resolveFrom } from "../perms/workspace.ts";
import { shellQuote } from "../shell/quote.ts";
import { commondirTarget, gitfileTarget, readSmallText, SMALL_FILE } from "../perms/gitfile.ts";
import { bytesId, joinBytes, undecodableNames, type WalkGaps } from "./walk-gaps.ts";
import { changedSince, ownCopies, ownCopy } from "./hard-links.ts";
import { envrcLoads } from "../perms/envrc-loads.ts";
import { followsImports, importedFiles } from "../mcp/local-imports.ts";
import { expandKnown, isShellScript, namedPaths } from "../perms/named-scripts.ts";
import { HOOK_KEYS, scriptsRunBy } from "./package-hooks.ts";
import { hookBinWhy, hookKeyCommands, packageFolderOf, programConfigs, programsNamed } from "../perms/hook-programs.ts";
import { BYTECODE_WHY, folderEntries, folderNames, moduleIn, nodeCandidates, pythonModulesIn, pythonSiblings, pythonSourceOf, shadowsStandardModule } from "../perms/run-entry.ts";
import { envrcPathDirs, isMiseConfig, misePathDirs } from "../perms/path-adds.ts";
import { isBytecodeCache, VENV_TOOL_WHY, venvNewIsFine, venvRootOf } from "../perms/venv.ts";
import { hostProgram } from "./host-program.ts";
import { processFolder } from "./private-folder.ts";
import { namespaceTopOf, portionsOf, pythonCodeNames, type Portion } from "./python-portions.ts";

/**
 * A git directory found in the workspace, and which file it is (a new one at
 * an old path is new): a `.git` directory, file (`gitdir: …`) or link, or a
 * directory git itself would take for a repository (HEAD with objects and
 * refs, or a commondir file: a bare repository).
 */
export interface GitSite {
  path: string;
  kind: "dir" | "file" | "link" | "bare";
  /** The entry's identity; for a `.git` file also where it leads, re-resolved at every walk (a link on the way may be re-aimed). */
  id: string;
  /** The git directories it stood for when found (gitDirsOf then): a link re-aimed since must not make a new one look like the person's. */
  gitDirs: string[];
}

/**
 * What one walk found: the git sites, and the files the person's tools run later (runs-later.ts), by identity;
 * and what it could not see (folders it cannot list, names that are not UTF-8: walk-gaps.ts fails closed on them).
 */
export interface WorkspaceScan extends WalkGaps {
  sites: GitSite[];
  /** Runs-later file (or link) → `ino:ctime` when scanned: a command that writes one changes it. */
  later: Map<string, string>;
  /** Links to folders → where they lead now: a file reached through one has that name too (`.vscode -> vsc`). */
  links: Map<string, string>;
  /** Roots whose walk stopped at MAX_DIRS folders: what lies past that was not looked at. */
  cut: string[];
  /** Every folder walked → its identity and last change when read (checked again after the walk: settledScan). */
  dirs?: Map<string, string>;
  /** Folders that changed while the walk read them, still after its last round: what it found there may not be so. */
  unsettled?: string[];
  /** Files an .envrc makes direnv read (envrc-loads.ts), in `later` too → that .envrc (scanRoots only). */
  loadedBy?: Map<string, string>;
  /** Files a runs-later link or a git hook link leads to (through any chain) inside a root, in `later` too → that link (scanRoots only). */
  linkedFrom?: Map<string, string>;
  /**
   * Files a hook or a runs-later config names by a literal path (named-scripts.ts), there or not yet, and the
   * programs in a folder an .envrc or a mise config puts on PATH (path-adds.ts) → why they run later; those there
   * are in `later` too (scanRoots only).
   */
  runsBy?: Map<string, string>;
  /**
   * The bounds the look for what hooks and configs run stopped at (bounded.ts), each said: past them what is run stays
   * writable to commands like other project code (a person's repository, not a command, makes it this large).
   */
  namedCut?: string[];
  /**
   * Folders a hook runs every file of (`for f in scripts/hooks.d/*; do "$f"; done`, `run-parts DIR`: red team 11's F09),
   * there or not yet → what runs them; those there are in `later` too, so a command sees them read-only whole (scanRoots only).
   */
  runsFrom?: Map<string, { by: string; via: string }>;
  /** Why a program (there or not yet) in a folder an .envrc or a mise config puts on PATH runs later, or null (scanRoots only). */
  pathAdded?: (real: string) => string | null;
  /**
   * Why a top-level module (there or not yet) in a folder python puts first on its module path for a hook or config
   * (`python -m tools.lint`: the work tree) runs later, or null; a new one shadows the standard library's or an
   * installed one of its name (scanRoots only).
   */
  pythonFirst?: (real: string) => string | null;
  /** The modules in those folders now → why: the walk after a command sets aside one not there before (they stay writable). */
  firstModules?: Map<string, string>;
  /**
   * The top-level folders and links in those folders, each with the Python code python can import from it by name
   * (python-portions.ts): one that held none before a command and holds some after is the command's (a namespace
   * folder joining the hook's environment's, red team 12's F06), set aside.
   */
  firstPortions?: Map<string, Portion>;
  /** Each folder the walk read that holds Python code python can import (python-portions.ts's pythonCodeNames) → its paths. */
  pyCode?: Map<string, string[]>;
  /** Every package.json in the roots (not in node_modules): its hook keys run on the next commit (package-hooks.ts). */
  packageJsons?: string[];
  /** The package.json scripts the hooks and hook configs run (`npm test`, `pnpm lint`): keys of theirs that run too (scanRoots only). */
  hookScripts?: Set<string>;
}

/** Which files run later (runsLaterMatcher), and a key that changes when that answer may (settings, hooksPath). */
export interface LaterMatch {
  key: string;
  match: (real: string) => string | null;
  /** Whether a file that runs later names, by a literal path, files that run with it (runs-later.ts's LaterQuestions). */
  names?: (real: string) => boolean;
  /** Programs in these folders that shadow one on the person's PATH (runs-later.ts's LaterQuestions). */
  pathShadows?: (dirs: readonly string[]) => (real: string) => string | null;
}

interface DirMemo {
  ctimeMs: number;
  ino: number;
  laterKey: string;
  subdirs: string[];
  sites: GitSite[];
  later: string[];
  /** Every link in the folder (where it leads is read at each walk: re-aiming one changes no ctime here). */
  links: string[];
  /** Why it could not be listed or entered (EACCES, ENAMETOOLONG…), or null: nothing in it was seen. */
  unlistable: string | null;
  /** Names in it that are not UTF-8 (not entered: the decoded name opens nothing). */
  undecodable: Buffer[];
  /** Whether it holds a package.json (whose hook keys git's commit runs: package-hooks.ts). */
  packageJson?: boolean;
  /** The Python code in it (python-portions.ts's pythonCodeNames): where a hook's python looks first, whose it is. */
  py: string[];
}

/** Per runs-later key and directory: what it held when last read (re-read when its ctime changes, which no command can fake). */
const memo = new Map<string, DirMemo>();
/** Directories changed this recently are re-read whatever their ctime says (coarse time stamps). */
const FRESH_MS = 2_000;
/** A walk this large stops: before a command, what it did not reach is read-only (walk-gaps.ts); after, set aside. */
const MAX_DIRS = 200_000;
let walkBound = MAX_DIRS;
/** For tests: a smaller bound (none: the real one). */
export function setWalkBound(n = MAX_DIRS): void {
  walkBound = n;
}
const NO_LATER: LaterMatch = { key: "", match: () => null };

/** Every `.git` in the workspace, at any depth, and every folder git takes for a repository (links are not followed). */
export function findGitSites(root: string): GitSite[] {
  return scanWorkspace(root).sites;
}

/**
 * One walk of a writable root (the workspace, or a granted write path): its
 * git sites and its runs-later files (`later` says which). `skip`: folders
 * walked on their own (the workspace inside a granted parent).
 */
export function scanWorkspace(root: string, later: LaterMatch = NO_LATER, skip: readonly string[] = [], maxDirs = walkBound, known?: ReadonlyMap<string, string>): WorkspaceScan {
  const out: WorkspaceScan = { sites: [], later: new Map(), links: new Map(), cut: [], unlistable: [], undecodable: [], unwalked: [], dirs: new Map(), unsettled: [], packageJsons: [], pyCode: new Map() };
  const stack = [root];
  // After a command (`known`: the folders the walk before it read): the folders that were there first, then the new
  // ones, so a walk cut at its bound has left only folders the command made (walk-gaps.ts sets those aside).
  const fresh: string[] = [];
  let dirs = 0;
  const now = Date.now();
  for (;;) {
    if (stack.length === 0 && fresh.length === 0) break;
    if (dirs++ >= maxDirs) {
      out.cut.push(root);
      // The folders it did not come to: before a command, read-only whole (walk-gaps.ts).
      out.unwalked.push(...[...stack, ...fresh].filter((d) => !skip.includes(d)));
      break;
    }
    const dir = stack.length > 0 ? stack.pop()! : fresh.pop()!;
    let st;
    try {
      st = lstatSync(dir);
    } catch (e) {
      // Gone meanwhile: nothing to see. Anything else (a path too long to open) hides what is there (walk-gaps.ts).
      const code = (e as NodeJS.ErrnoException).code ?? "unknown";
      if (code !== "ENOENT" && code !== "ENOTDIR") out.unlistable.push({ path: dir, id: `${code}:${dir}`, owned: false, code });
      // Gone since its folder was read: changed meanwhile (a name that is not UTF-8 opens nothing: walk-gaps.ts has it).
      else if (dir !== root && !basename(dir).includes("\ufffd")) out.unsettled!.push(dir);
      continue;
    }
    // Listed as a folder a moment ago, a link or a file now: something is renaming folders while the walk reads them
    // (another session's command, an MCP server). Never read through it (readdir would follow a link): walked again.
    if (!st.isDirectory()) {
      out.unsettled!.push(dir);
      continue;
    }
    out.dirs!.set(dir, dirStamp(st));
    const memoKey = `${later.key}\0${dir}`;
    let m = memo.get(memoKey);
    if (!m || m.ctimeMs !== st.ctimeMs || m.ino !== st.ino || st.ctimeMs > now - FRESH_MS || st.mtimeMs > now - FRESH_MS) {
      m = readDir(dir, st.ctimeMs, st.ino, later);
      memo.set(memoKey, m);
    }
    // Where a .git file leads is resolved now, not when its folder was read: a link on its way changes no ctime here.
    // A bare-shaped root stays writable: what git reads there that a command created (a config, hooks) makes it new.
    for (const site of m.sites) {
      const gitDirs = gitDirsOf(site);
      const id = site.kind === "file" ? `${site.id}>${gitDirs.join(">")}` : site.kind === "bare" && site.path === root ? `${site.id}>${GIT_DIR_ENTRIES.map((n) => fileId(join(root, n)) ?? "-").join(">")}` : site.id;
      out.sites.push({ ...site, id, gitDirs });
    }
    for (const p of m.later) {
      const id = fileId(p);
      if (id) out.later.set(p, id);
    }
    for (const link of m.links) linkedLater(link, later, out);
    if (m.unlistable) out.unlistable.push({ path: dir, id: `${st.dev}:${st.ino}:${st.ctimeMs}`, owned: st.uid === process.getuid?.(), code: m.unlistable });
    for (const name of m.undecodable) out.undecodable.push({ dir, name, id: bytesId(joinBytes(dir, name)) ?? "gone" });
    if (m.packageJson) out.packageJsons!.push(join(dir, "package.json"));
    if (m.py.length > 0) out.pyCode!.set(dir, m.py.map((n) => join(dir, n)));
    for (const d of m.subdirs) if (!skip.includes(d)) (known && !known.has(d) ? fresh : stack).push(d);
  }
  return out;
}

/** A folder's identity and last change: a rename, creation or removal in it moves its ctime. */
const dirStamp = (st: Stats): string => `${st.dev}:${st.ino}:${st.ctimeMs}`;

/** Walks of the roots until one reads no folder that changed while it read it; past these rounds, `unsettled` says where. */
const SETTLE_ROUNDS = 5;

/**
 * Every writable root walked (roots[0] the workspace; a root inside another is left to its own walk), as it stood:
 * a walk is not one instant, and a folder renamed while it reads (tools/ swapped for a link to a decoy and back, red
 * team 6's F12j) hides what was in it. So each folder walked is looked at again after the walk; if one changed, the
 * roots are walked again (what did not change is remembered), a few times; `unsettled` says what never held still.
 */
export function scanRoots(roots: readonly string[], later: LaterMatch = NO_LATER, maxDirs = walkBound, known?: ReadonlyMap<string, string>, trusted?: Trusted): WorkspaceScan {
  let changed: string[] = [];
  for (let round = 0; ; round++) {
    const scan = scanRootsOnce(roots, later, maxDirs, known, trusted);
    changed = [...scan.unsettled!];
    for (const [dir, stamp] of scan.dirs!) {
      const now = lstatOrNull(dir);
      if (!now || dirStamp(now) !== stamp) changed.push(dir);
    }
    if (changed.length === 0 || round + 1 >= SETTLE_ROUNDS) return { ...scan, unsettled: [...new Set(changed)] };
    // Read every folder anew (a folder changed within one tick of a coarse clock may keep its old ctime), a moment later.
    memo.clear();
    Bun.sleepSync(5 * (round + 1));
  }
}

/**
 * After a command: the walk before it (its runs-later files by identity, its git sites). Only a hook or config found
 * there, unchanged, names files that run later (namedScripts): a new one is set aside or disarmed whole, and must not
 * be able to crowd out the person's own by naming thousands of paths.
 */
export interface Trusted {
  later: ReadonlyMap<string, string>;
  sites: readonly GitSite[];
}

function scanRootsOnce(roots: readonly string[], later: LaterMatch, maxDirs: number, known?: ReadonlyMap<string, string>, trusted?: Trusted): WorkspaceScan {
  const out: WorkspaceScan = { sites: [], later: new Map(), links: new Map(), cut: [], unlistable: [], undecodable: [], unwalked: [], dirs: new Map(), unsettled: [], packageJsons: [], pyCode: new Map() };
  for (const root of roots) {
    const scan = scanWorkspace(root, later, roots.filter((r) => r !== root && isWithin(root, r)), maxDirs, known);
    for (const [d, stamp] of scan.dirs!) out.dirs!.set(d, stamp);
    out.unsettled!.push(...scan.unsettled!);
    out.cut.push(...scan.cut);
    out.sites.push(...scan.sites);
    out.unlistable.push(...scan.unlistable);
    out.undecodable.push(...scan.undecodable);
    out.unwalked.push(...scan.unwalked);
    out.packageJsons!.push(...scan.packageJsons!);
    for (const [d, code] of scan.pyCode!) out.pyCode!.set(d, code);
    for (const [p, id] of scan.later) out.later.set(p, id);
    for (const [l, t] of scan.links) out.links.set(l, t);
  }
  // What each .envrc makes direnv read runs later too, read from its text at every walk (it is read-only to commands).
  out.loadedBy = new Map();
  for (const envrc of [...out.later.keys()]) {
    if (basename(envrc).toLowerCase() !== ".envrc" || isLink(envrc)) continue;
    const home = rootOf(roots, envrc);
    const text = home ? readSmallText(envrc, true) : null;
    if (!home || text === null) continue;
    for (const f of envrcLoads(envrc, text, home)) {
      if (!rootOf(roots, f) || f === rootOf(roots, f) || out.later.has(f)) continue;
      // One not there yet too: writing it asks, and a command that makes it has it set aside.
      out.loadedBy.set(f, envrc);
      const id = fileId(f);
      if (id) out.later.set(f, id);
    }
  }
  out.runsBy = new Map();
  out.hookScripts = new Set();
  out.runsFrom = new Map();
  pathAdded(roots, later, out);
  namedScripts(roots, later, out, trusted);
  // A hook or runs-later file that is a link runs what it leads to: that file, inside a root, runs later too (resolved at every walk).
  out.linkedFrom = new Map();
  const hookLinks = out.sites.flatMap((site) => site.gitDirs.flatMap((gitDir) => linksIn(join(gitDir, "hooks"))));
  for (const link of [...out.later.keys(), ...hookLinks]) {
    const target = linkTarget(roots, link);
    if (!target || out.later.has(target)) continue;
    const id = fileId(target);
    if (!id) continue;
    out.later.set(target, id);
    out.linkedFrom.set(target, link);
  }
  return out;
}

/** Why a file a runs-later link leads to runs later (`link` as the person sees it). */
export const linkedWhy = (link: string): string => `runs later through the link ${link}`;

/**
 * Why `p` runs later by what the walk read (scanRoots): a file an .envrc loads, one a runs-later link leads to, one
 * a hook or config names, a program in a folder an .envrc puts on PATH; or null. `root`: where paths are shown from.
 */
export function scanWhy(scan: WorkspaceScan, p: string, root: string): string | null {
  const envrc = scan.loadedBy?.get(p);
  if (envrc) return `${relative(root, envrc)} has direnv load it into your shell on every cd, with no new direnv allow`;
  const link = scan.linkedFrom?.get(p);
  if (link) return linkedWhy(relative(root, link));
  const named = scan.runsBy?.get(p) ?? scan.pathAdded?.(p);
  if (named) return named;
  // A folder a hook runs every file of, or a file in it (there or not yet).
  const folder = scan.runsFrom?.get(p);
  if (folder) return `${folder.by} runs the files in it${folder.via}`;
  const inFolder = scan.runsFrom?.get(dirname(p));
  if (inFolder) return `${inFolder.by} runs the files in ${relative(root, dirname(p))}${inFolder.via}`;
  // What Python would run in place of a named module's source (its bytecode, an extension module), there or not yet.
  const source = pythonSourceOf(p);
  const sourceWhy = source ? scan.runsBy?.get(source.source) : undefined;
  if (source && sourceWhy) return `${source.cache ? BYTECODE_WHY : "Python runs it in place of"} ${relative(root, source.source)}, which ${sourceWhy}`;
  // A new module where python looks first (an existing one is project code: changing it does not ask).
  return existsSync(p) && !isLink(p) ? null : (scan.pythonFirst?.(p) ?? null);
}

/**
 * The programs in the folders an .envrc (in a root, or above one: direnv loads the nearest) or a mise config in the
 * roots puts first on PATH, named like one found later on the person's PATH (red team 8's F4): in `later` with why,
 * and `pathAdded` for one not there yet. Read at every walk, whatever PATH bunker was started with.
 */
function pathAdded(roots: readonly string[], later: LaterMatch, out: WorkspaceScan): void {
  if (!later.pathShadows) return;
  const root = roots[0]!;
  // Each .envrc, each file one loads (`source_env_if_exists .envrc.local`, a .env setting PATH), each mise config.
  const configs = [...out.later.keys()].filter((p) => basename(p).toLowerCase() === ".envrc" || isMiseConfig(p) || out.loadedBy?.has(p));
  for (const r of roots) for (let d = dirname(r); ; d = dirname(d)) {
    if (existsSync(join(d, ".envrc"))) configs.push(join(d, ".envrc"));
    if (d === dirname(d)) break;
  }
  // Each folder (where it leads) → the config that adds it.
  const dirs = new Map<string, string>();
  for (const config of configs) {
    const text = readSmallText(config);
    if (text === null) continue;
    for (const d of isMiseConfig(config) ? misePathDirs(config, text) : envrcPathDirs(config, text)) {
      const real = realpathLoose(d).real;
      if (rootOf(roots, real) && !dirs.has(real)) dirs.set(real, config);
    }
  }
  if (dirs.size === 0) return;
  const shadows = later.pathShadows([...dirs.keys()]);
  out.pathAdded = (p) => {
    const by = dirs.get(dirname(p));
    const why = by ? shadows(p) : null;
    return why && by ? `${why}, once ${relative(root, by) || by} puts ${relative(root, dirname(p)) || "."} on your PATH` : null;
  };
  for (const dir of dirs.keys()) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const p = join(dir, name);
      if (out.later.has(p)) continue;
      const why = out.pathAdded(p);
      const id = why ? fileId(p) : null;
      if (!why || !id) continue;
      out.later.set(p, id);
      out.runsBy!.set(p, why);
    }
  }
}

/** How many files the literal paths of hooks and configs may add to one walk, and how deep a script naming a script is followed. */
const MAX_NAMED = 2_000;
const NAMED_DEPTH = 3;
/**
 * How deep a named script's local imports are followed (it imports helpers, which imports util: 2), and how many code
 * files one walk reads for them (red team 11's F18). Past either, what those files import is not followed: it stays
 * writable to commands like any project code (a hook's code importing more than 8 deep, or a walk whose hooks import
 * over 400 files between them).
 */
const IMPORT_DEPTH = 8;
/** The most files of one folder a hook runs every file of that are named one by one (past them the folder is still read-only whole). */
const MAX_FOLDER_FILES = 500;
const MAX_IMPORTING = 400;
/** The imports read from a code file, by its path, identity and where Python looks (read again when it changes). */
const importMemo = new Map<string, string[][]>();

/**
 * The files a hook (in a git directory's hooks folder or a core.hooksPath folder) or a runs-later file that runs on
 * this machine (later.names) names by a literal path (red team 8's F16: `.husky/pre-commit` says `sh
 * scripts/precommit.sh`), read from the folders it may run in (its own and each above it, up to its root; a hook's
 * from its work tree): in `later` when there, in `runsBy` either way. A named shell script's own names are followed
 * too. Not inside node_modules (what a package manager installs is project code) or a .git (guarded already).
 */
function namedScripts(roots: readonly string[], later: LaterMatch, out: WorkspaceScan, trusted?: Trusted): void {
  const root = roots[0]!;
  const isTrusted = (p: string, id: string | undefined) => !trusted || trusted.later.get(p) === id;
  const ancestors = (dir: string): string[] => {
    const home = rootOf(roots, dir);
    const list = [dir];
    if (home) for (let d = dir; d !== home && isWithin(home, d); ) list.push((d = dirname(d)));
    return list;
  };
  // `via`: what runs the file, said after its name (` (runs on git commit (husky hooks))`, `, run by .husky/pre-commit (…)`).
  // `top`: the repository's top, where git runs a hook and pre-commit its entries (`$(git rev-parse --show-toplevel)`, `$PWD`).
  // `code`: a script whose local imports are read rather than its words (F18), with the folders Python finds top-level
  // modules in for it (the hook's python's first folders, the script's own); `verb`: how what it names runs.
  // `text`: what to read in place of the file's own (a package.json's hook keys' commands).
  const queue: { file: string; bases: string[]; via: string; depth: number; top: string; code?: string[]; text?: string }[] = [];
  let importing = 0;
  // Hooks first, then the configs nearest a root: what the bound leaves out of a very large tree is the deepest.
  const sites = trusted ? out.sites.filter((s) => trusted.sites.some((t) => t.path === s.path && t.id === s.id)) : out.sites;
  for (const hook of hookFiles(sites)) queue.push({ file: hook.file, bases: ancestors(hook.top), via: ` (${later.match(hook.file) ?? "git runs it as a hook"})`, depth: 0, top: hook.top });
  if (later.names) {
    // (Not a package's own files under node_modules: its hooks and rc files are not the project's.)
    const namers = [...out.later].filter(([p, id]) => !p.includes("/node_modules/") && isTrusted(p, id) && later.names!(p)).map(([p]) => p);
    const depth = (p: string) => p.split("/").length;
    for (const p of namers.sort((a, b) => depth(a) - depth(b))) queue.push({ file: p, bases: ancestors(dirname(p)), via: ` (${later.match(p) ?? "runs later"})`, depth: 0, top: repositoryTop(roots, dirname(p)) });
  }
  // A package.json's hook keys (lint-staged's "*.js": "eslint --fix") run their commands at the next commit as a hook
  // does: the programs they name, and what those load as code, are followed as a hook's (red team 13's F05, F09).
  for (const pkg of out.packageJsons ?? []) {
    if (pkg.includes("/node_modules/") || lstatOrNull(pkg)?.isFile() !== true) continue;
    const text = hookKeyCommands(readSmallText(pkg), HOOK_KEYS);
    if (text !== null) queue.push({ file: pkg, text, bases: ancestors(dirname(pkg)), via: " (runs on git commit through its hook keys)", depth: 0, top: repositoryTop(roots, dirname(pkg)) });
  }
  // Folders a listing was read from in this walk (python's siblings of a named module: run-entry.ts).
  const listings = new Map<string, string[]>();
  const list = (dir: string): string[] => {
    let names = listings.get(dir);
    if (!names) listings.set(dir, (names = folderNames(dir)));
    return names;
  };
  const seen = new Set<string>();
  // Where each folder leads, read once a walk: a path's real name is its folder's and its own name, followed when a link.
  const realDirs = new Map<string, string>();
  const realOf = (path: string): { real: string; st: Stats | null } => {
    const dir = dirname(path);
    let rd = realDirs.get(dir);
    if (rd === undefined) realDirs.set(dir, (rd = realpathLoose(dir).real));
    const p = dir === path ? rd : join(rd, basename(path));
    const st = lstatOrNull(p);
    if (!st?.isSymbolicLink()) return { real: p, st };
    const real = realpathLoose(p).real;
    return { real, st: lstatOrNull(real) };
  };
  const namedOnce = new Set<string>();
  const links = new Map<string, boolean>();
  const linkOnce = (p: string): boolean => {
    let l = links.get(p);
    if (l === undefined) links.set(p, (l = isLink(p)));
    return l;
  };
  // Folders python puts first on its module path for a hook or config (red team 10's R10-06 addendum) → why.
  const firsts = new Map<string, string>();
  const cut = new Set<string>();
  let i = 0;
  for (; i < queue.length && out.runsBy!.size < MAX_NAMED; i++) {
    const { file, bases, via, depth, top, code, text: given } = queue[i]!;
    if (seen.has(file)) continue;
    seen.add(file);
    const raw = given ?? readSmallText(file);
    if (raw === null) continue;
    const verb = code ? "imported by" : "run by";
    // Code a hook's python or node runs, found after this file's names: its imports are followed (F18).
    const codeFiles: string[] = [];
    // What `$(git rev-parse --show-toplevel)`, `$(dirname "$0")`, `$PWD` lead to (red team 10's F11b); direnv runs an
    // .envrc in its own folder: `source "$PWD/scripts/devenv.sh"` names that folder's file (red team 10's F13).
    const self = dirname(file);
    const vscode = /(^|\/)\.vscode$/.test(self) ? dirname(self) : undefined;
    const text = expandKnown(raw, { top: basename(file) === ".envrc" ? self : top, self, gitDir: join(top, ".git"), ...(vscode ? { workspaceFolder: vscode } : {}) });
    const shown = relative(root, file) || file;
    // The package.json scripts it runs (`npm test`): their keys run on the next commit as the hook does (red team 13's F10).
    if (!code) for (const n of scriptsRunBy(text)) out.hookScripts!.add(n);
    // One path named (or, for a folder named, one of the files run from it: run-entry.ts).
    const name = (path: string, handed: boolean, entryOf?: string, loadedBy?: string) => {
      // (Each path once a walk: import alternatives and node's candidates repeat one another.)
      if (!handed && entryOf === undefined) {
        if (namedOnce.has(path)) return;
        namedOnce.add(path);
      }
      // (st null: not there yet: a command that makes it has it set aside, and writing it asks.)
      const { real, st } = realOf(path);
      const home = rootOf(roots, real);
      if (!home || out.runsBy!.has(real) || /(^|\/)(node_modules|\.git)(\/|$)/.test(relative(home, real))) return;
      // What node tries before the word as it is a folder (`node tools`: tools.js, tools.json…: the reviewer's R10-14).
      if (handed) for (const f of nodeCandidates(real)) name(f, false, relative(root, real) || ".");
      // A folder runs its entry file (`node tools`: package.json's main or index.js; `python3 tools`: __main__.py).
      if (st?.isDirectory()) {
        if (handed) for (const f of folderEntries(real)) name(f, false, relative(root, real) || ".");
        return;
      }
      if (home === real) return;
      const named = loadedBy !== undefined ? `is loaded as code by ${loadedBy}, run by ${shown}${via}` : `is ${verb} ${shown}${entryOf === undefined ? "" : ` (as ${entryOf}'s entry)`}${via}`;
      out.runsBy!.set(real, named);
      if (st && !out.later.has(real)) out.later.set(real, `${st.dev}:${st.ino}:${st.ctimeMs}`);
      // What Python runs in place of a module's source (its cached bytecode, an extension module: R10-06), there now:
      // read-only before a command, and one a command makes is found by the walk after it (a cache removed, the rest set aside).
      for (const sib of pythonSiblings(real, list, linkOnce)) {
        if (out.runsBy!.has(sib.path)) continue;
        out.runsBy!.set(sib.path, sib.cache ? `${BYTECODE_WHY} ${relative(root, real)}, which ${named}` : `Python runs it in place of ${relative(root, real)}, which ${named}`);
        const id = fileId(sib.path);
        if (id && !out.later.has(sib.path)) out.later.set(sib.path, id);
      }
      const trusted = st?.isFile() && isTrusted(real, `${st.dev}:${st.ino}:${st.ctimeMs}`);
      if (trusted && !code && depth + 1 < NAMED_DEPTH && isShellScript(real, readSmallText(real) ?? "")) queue.push({ file: real, bases: [...new Set([...ancestors(dirname(real)), ...bases])], via: `, run by ${shown}${via}`, depth: depth + 1, top });
      else if (trusted && (code ? depth + 1 < IMPORT_DEPTH : true) && followsImports(real)) codeFiles.push(real);
      else if (trusted && code && followsImports(real)) cut.add(`the imports of hooks' scripts (followed ${IMPORT_DEPTH} deep): what lies deeper`);
    };
    // The programs it runs by name (red team 13's F09, F05): one in node_modules/.bin is read-only to commands with the
    // file it leads to and its package; what each loads as code from the folders it runs in runs later too.
    if (!code) {
      for (const program of programsNamed(text)) {
        for (const base of bases) {
          for (const cfg of programConfigs(program)) name(join(base, cfg), false, undefined, program);
          hookBin(roots, join(base, "node_modules", ".bin", program), hookBinWhy(program, `${shown}${via}`), out);
        }
      }
    }
    const handed = new Set<string>();
    const first = new Set<string>();
    const folders = new Set<string>();
    if (code) {
      // A script's local imports (local-imports.ts, the reading MCP consent uses): of each import's files in the order
      // the language looks, those up to the first there (one made before it would be imported instead), or all.
      const key = `${file}\0${fileId(file)}\0${code.join("\0")}`;
      let lists = importMemo.get(key);
      if (!lists) {
        if (importMemo.size > 5_000) importMemo.clear();
        importMemo.set(key, (lists = importedFiles(file, raw, code)));
      }
      // (node's `require('./util')` of a folder runs what its package.json's main names: the path as written is
      // handed to it, as a hook's `node web` is.)
      // A Python import of a module not there beside it is the standard library's or an installed one: a module a
      // command makes in its place where python looks first is pythonFirst's (set aside, asked about).
      const node = !file.endsWith(".py");
      for (const alternatives of lists) {
        const there = alternatives.findIndex((alt) => existsSync(alt));
        if (there === -1 && !node) continue;
        for (const [k, alt] of alternatives.entries()) {
          if (there !== -1 && k > there) break;
          name(alt, node && k === 0);
        }
      }
    }
    // A path after an expansion bunker cannot know (`"$ROOT/tools/lint.py"`) is read as written from the folders it may run in.
    else for (const path of namedPaths(text, handed, first, true, folders)) for (const base of path.startsWith("/") ? ["/"] : bases) name(resolve(base, path), handed.has(path));
    // A folder the hook runs every file of (F09): read-only whole to commands (a file added there runs at the next
    // commit), and each file in it named as the hook's (a link in it leads to a file that runs; a script there is read).
    for (const f of folders) {
      for (const base of f.startsWith("/") ? ["/"] : bases) {
        const real = realpathLoose(resolve(base, f)).real;
        const home = rootOf(roots, real);
        if (!home || home === real || out.runsFrom!.has(real) || /(^|\/)(node_modules|\.git)(\/|$)/.test(relative(home, real))) continue;
        out.runsFrom!.set(real, { by: shown, via });
        const st = lstatOrNull(real);
        if (!st?.isDirectory()) continue;
        if (!out.later.has(real)) out.later.set(real, `${st.dev}:${st.ino}:${st.ctimeMs}`);
        for (const n of folderNames(real).slice(0, MAX_FOLDER_FILES)) name(join(real, n), false);
      }
    }
    // Python finds a script's top-level imports in its own folder and the hook's python's first folders (the work
    // tree for -m); an imported file's, where its importer's were.
    const pyBases = code ?? [...first].map((d) => realpathLoose(resolve(bases[0]!, d)).real);
    for (const f of codeFiles) {
      if (importing >= MAX_IMPORTING) {
        cut.add(`the files hooks' scripts import (${MAX_IMPORTING.toLocaleString("en-US")} followed): what the rest import`);
        break;
      }
      importing++;
      queue.push({ file: f, bases, via: `, ${verb} ${shown}${via}`, depth: code ? depth + 1 : 0, top, code: code ?? [...new Set([dirname(f), ...pyBases])] });
    }
    // The folder python puts first on its module path (the work tree for -m, a script's own folder).
    for (const d of first) {
      const real = realpathLoose(resolve(bases[0]!, d)).real;
      if (rootOf(roots, real) && !firsts.has(real)) firsts.set(real, `python puts ${relative(root, real) || "the workspace folder"} first on its module path when ${shown} runs it${via}, so a module made there is imported in place of any of its name the hook's python has: the standard library's, a package of whatever environment it runs in`);
    }
  }
  if (i < queue.length) cut.add(`the files hooks and configs name (${MAX_NAMED.toLocaleString("en-US")} kept read-only): what the rest name`);
  if (cut.size > 0) out.namedCut = [...cut];
  // Writing a module there of a name python has elsewhere (the standard library's, one installed for the host's
  // python3, a venv's beside it) asks; the write tools' other new modules are the person's say-so.
  // So does writing code into a folder there that python joins to a namespace package of a name it has elsewhere
  // (google/protobuf/__init__.py beside an installed protobuf: red team 12's F06, the folder class).
  out.pythonFirst = (p) => {
    const module = moduleIn(p);
    const top = module ? firsts.get(module.dir) : undefined;
    if (top !== undefined && shadowsStandardModule(p)) return top;
    for (const [dir, why] of firsts) {
      const folder = namespaceTopOf(dir, p);
      if (folder && shadowsStandardModule(`${folder}.py`, dir)) return why;
    }
    return null;
  };
  // Each top-level module there now (NAME.py, .pyc, *.so, NAME/__init__.py) and each .pth: one a command makes is
  // set aside after it (wallAfter), whatever its name. No name list knows the environment the hook's python runs
  // in (poetry's, pipenv's, conda's, uv's, a pyenv-pinned 3.13 with its own standard modules: red team 12's F06,
  // F18), so a new module there is the command's until the person moves it back (reviewer's R11-02 let a new
  // utils.py stay; a hook's loguru was one too). Those there before stay the project's code.
  out.firstModules = new Map();
  for (const [dir, why] of firsts) {
    for (const m of pythonModulesIn(dir)) out.firstModules.set(m, why);
    for (const n of folderNames(dir)) if (n.endsWith(".pth")) out.firstModules.set(join(dir, n), why);
  }
  // Each top-level folder there, with the code python can import from it: a `google/` joins the namespace package
  // of its name in the hook's environment ahead of it, so its google/protobuf is imported in place of the installed
  // one (red team 12's F06, the folder class). One that held no code before a command is the command's if it does after.
  out.firstPortions = new Map();
  for (const [dir, why] of firsts) portionsOf(dir, why, out.pyCode ?? new Map(), out.firstPortions);
}

/**
 * A program in node_modules/.bin a hook runs by name (red team 13's F09), there now: the entry, the file it leads to
 * and that file's package folder in `later` (read-only to commands, as a venv's bin/ is), each with `why`. One not
 * there is left: an install in the sandbox makes it as the person's `npm install` would.
 */
function hookBin(roots: readonly string[], bin: string, why: string, out: WorkspaceScan): void {
  const st = lstatOrNull(bin);
  if (!st || !rootOf(roots, bin) || out.runsBy!.has(bin)) return;
  const add = (p: string, s: Stats) => {
    out.runsBy!.set(p, why);
    if (!out.later.has(p)) out.later.set(p, `${s.dev}:${s.ino}:${s.ctimeMs}`);
  };
  add(bin, st);
  if (!st.isSymbolicLink()) return;
  const target = realpathLoose(bin).real;
  const tst = lstatOrNull(target);
  if (!tst?.isFile() || !rootOf(roots, target) || out.runsBy!.has(target)) return;
  add(target, tst);
  const pkg = packageFolderOf(target);
  const pst = pkg ? lstatOrNull(pkg) : null;
  if (pkg && pst?.isDirectory() && rootOf(roots, pkg) !== pkg && !out.runsBy!.has(pkg)) add(pkg, pst);
}

/** The top of the repository holding `dir` (the nearest folder with a .git, up to its root), or that root. */
function repositoryTop(roots: readonly string[], dir: string): string {
  const home = rootOf(roots, dir) ?? dir;
  for (let d = dir; isWithin(home, d); d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return d;
    if (d === home) break;
  }
  return home;
}

/** The hooks git runs from each repository found: its git directory's hooks/ and the core.hooksPath folders its config names, with its work tree. */
function hookFiles(sites: readonly GitSite[]): { file: string; top: string }[] {
  const out: { file: string; top: string }[] = [];
  // The system's and the person's config too: a relative core.hooksPath there names a folder in every repository.
  const home = process.env.HOME || homedir();
  const global = withIncludes(globalGitConfigs(process.env, home), readSmall, home).flatMap((c) => hooksPaths(c.text ?? ""));
  for (const site of sites) {
    if (site.kind === "link") continue;
    const top = site.kind === "bare" ? site.path : dirname(site.path);
    for (const gitDir of site.gitDirs) {
      const configs = withIncludes([join(gitDir, "config"), join(gitDir, "config.worktree")], readSmall, home);
      const dirs = [join(gitDir, "hooks"), ...[...global, ...configs.flatMap((c) => hooksPaths(c.text ?? ""))].flatMap((h) => hooksDir(top, h, home) ?? [])];
      for (const dir of dirs) {
        try {
          for (const e of readdirSync(dir, { withFileTypes: true })) if (!e.isDirectory() && !e.name.endsWith(".sample")) out.push({ file: join(dir, e.name), top });
        } catch {
          // Not a folder, or gone: no hooks there.
        }
      }
    }
  }
  return out;
}

/** The links in a folder (a git hooks folder), or none. */
function linksIn(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isSymbolicLink()).map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

/** Where a link finally leads (any chain), when that is a file inside a root; else null (outside the roots: nothing a command can write). */
function linkTarget(roots: readonly string[], link: string): string | null {
  if (!isLink(link)) return null;
  try {
    const target = realpathSync(link);
    const home = rootOf(roots, target);
    return home && home !== target && statSync(target).isFile() ? target : null;
  } catch {
    return null; // dangling, a loop, or gone
  }
}

/** How deep, and how many entries, a linked folder is looked into for files that run later under the link's name. */
const LINK_DEPTH = 4;
const LINK_ENTRIES = 5_000;

/**
 * A link to a folder gives every file in it (4 deep; past 5,000 entries the
 * link counts whatever they are) a second name, the one the person's tools open (`.vscode/tasks.json` through `.vscode -> vsc`): each
 * file is matched by that name too. A match puts the link in `later`: a
 * new one is set aside, and so is one whose files changed (its identity
 * includes theirs). Links inside node_modules are left alone (pnpm makes
 * thousands, and nothing there runs later by its name).
 */
function linkedLater(link: string, later: LaterMatch, out: WorkspaceScan): void {
  if (link.split("/").includes("node_modules")) return;
  let target: string;
  try {
    if (!statSync(link).isDirectory()) return;
    target = realpathLoose(link).real;
  } catch {
    return;
  }
  out.links.set(link, target);
  if (later.match(`${link}/_`) !== null) return; // the link itself already counts (readDir)
  const ids: string[] = [];
  let seen = 0;
  const walk = (dir: string, rel: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      // Too many to look through: the link counts (a file past the limit could be one).
      if (++seen > LINK_ENTRIES) {
        if (seen === LINK_ENTRIES + 1) ids.push("too many files to look through");
        return;
      }
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (depth < LINK_DEPTH) walk(`${dir}/${e.name}`, name, depth + 1);
      } else if (later.match(`${link}/${name}`) !== null) {
        ids.push(fileId(`${dir}/${e.name}`) ?? "gone");
      }
    }
  };
  walk(target, "", 1);
  if (ids.length === 0) return;
  const own = fileId(link);
  if (own) out.later.set(link, [own, ...ids].join("+"));
}

/**
 * The other names `real` has through links to folders in the writable roots
 * (`.vscode/tasks.json` for vsc/tasks.json when `.vscode -> vsc`), from a
 * walk of them (scanRoots): what the
 * person's tools open by those names is this file.
 */
export function linkedNames(scan: WorkspaceScan, real: string): string[] {
  const names: string[] = [];
  for (const [link, target] of scan.links) if (isWithin(target, real)) names.push(join(link, relative(target, real)));
  return names;
}

/** The writable root holding `path` (the innermost), or null. */
function rootOf(roots: readonly string[], path: string): string | null {
  let found: string | null = null;
  for (const r of roots) if (isWithin(r, path) && (found === null || r.length > found.length)) found = r;
  return found;
}

const asRoots = (roots: string | readonly string[]): string[] => (typeof roots === "string" ? [roots] : [...roots]);

/** A file's identity and last change (a write, rename or chmod moves its ctime). */
function fileId(path: string): string | null {
  try {
    const st = lstatSync(path);
    return `${st.dev}:${st.ino}:${st.ctimeMs}`;
  } catch {
    return null;
  }
}

/**
 * Whether git would take a folder holding these names for a git directory
 * (setup.c's is_git_directory: HEAD, and objects plus refs or a commondir),
 * judged by names alone: a near miss counts.
 */
export function isBareShaped(names: ReadonlySet<string>): boolean {
  return names.has("HEAD") && ((names.has("objects") && names.has("refs")) || names.has("commondir"));
}

/** What git reads from a git directory: in a bare-shaped workspace root these are kept read-only (the root itself stays writable). */
export const GIT_DIR_ENTRIES = ["HEAD", "config", "config.worktree", "commondir", "hooks", "objects", "refs", "packed-refs", "info", "worktrees", "modules", "gitdir"];

function readDir(dir: string, ctimeMs: number, ino: number, later: LaterMatch): DirMemo {
  const m: DirMemo = { ctimeMs, ino, laterKey: later.key, subdirs: [], sites: [], later: [], links: [], unlistable: null, undecodable: [], py: [] };
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    // Not a folder any more, or gone: nothing to see. One it cannot list hides what is in it (walk-gaps.ts).
    const code = (e as NodeJS.ErrnoException).code ?? "unknown";
    m.unlistable = code === "ENOENT" || code === "ENOTDIR" ? null : code;
    return m;
  }
  // Listable but not enterable (chmod 0644): its names are read, but nothing in it can be looked at.
  try {
    accessSync(dir, constants.X_OK);
  } catch {
    m.unlistable = "EACCES";
    return m;
  }
  // git takes a directory with HEAD and objects+refs (or a commondir) for a repository: guarded whole, and entered
  // (a folder inside it may be one too), its object store included (red team 5: a repository planted in objects/).
  // The workspace root too: git looks there on its way up from any folder below, before the .git of an enclosing repository.
  // A .git folder is entered too: a repository planted inside one (`.git/gd`) is a repository all the same.
  m.undecodable = undecodableNames(dir, entries.map((e) => e.name));
  const names = new Set(entries.map((e) => e.name));
  m.py = pythonCodeNames(dir, entries);
  const dotGit = basename(dir).toLowerCase() === ".git";
  const bare = !dotGit && isBareShaped(names);
  if (bare) m.sites.push({ path: dir, kind: "bare", id: `dir:${ino}`, gitDirs: [] });
  for (const e of entries) {
    const p = `${dir}/${e.name}`;
    if (e.name.toLowerCase() === ".git") {
      try {
        const st = lstatSync(p);
        const kind = st.isDirectory() ? "dir" : st.isFile() ? "file" : st.isSymbolicLink() ? "link" : null;
        if (kind) m.sites.push({ path: p, kind, id: `${st.dev}:${st.ino}`, gitDirs: [] });
        if (kind === "dir") m.subdirs.push(p);
      } catch (e) {
        // Gone meanwhile; or it cannot be looked at (a path too long to open), which hides it (walk-gaps.ts).
        const code = (e as NodeJS.ErrnoException).code ?? "unknown";
        if (code !== "ENOENT") m.unlistable = code;
      }
    } else if (e.isDirectory()) {
      m.subdirs.push(p);
    } else {
      if (e.name === "package.json" && !dir.split("/").includes("node_modules")) m.packageJson = true;
      if (e.isSymbolicLink()) m.links.push(p);
      // A link counts where a folder of such files would (`.husky -> elsewhere`).
      if (later.match(p) !== null || (e.isSymbolicLink() && later.match(`${p}/_`) !== null)) m.later.push(p);
    }
  }
  return m;
}

/**
 * A gitdir or commondir target git resolves differently from bunker (/proc/self, /dev/fd), that leads nowhere,
 * or that bunker cannot resolve at all (a name too long, a loop of links).
 */
function untrustedTarget(base: string, target: string): boolean {
  const abs = resolve(base, target);
  return /^\/(proc|dev)(\/|$)/.test(abs) || resolvedOrNull(base, target)?.exists !== true;
}

/** Where `target` leads from `base`, or null when it cannot be resolved (resolveFrom throws on a name too long or a loop). */
function resolvedOrNull(base: string, target: string): { real: string; exists: boolean } | null {
  try {
    return resolveFrom(base, target);
  } catch {
    return null;
  }
}

/** The `gitdir:` a `.git` file names, or null. */
function gitdirTarget(file: string): string | null {
  const pointer = readSmall(file);
  return gitfileTarget(pointer);
}

/** The git directory a site stands for, and its common directory (linked worktrees, submodules). */
export function gitDirsOf(site: GitSite): string[] {
  if (site.kind === "link") return [];
  let gitDir = site.path;
  if (site.kind === "file") {
    const target = gitdirTarget(site.path);
    // One bunker cannot resolve is no git directory to guard: the .git file itself is (and is set aside when new).
    const found = target ? resolvedOrNull(dirname(site.path), target) : null;
    if (!found) return [];
    gitDir = found.real;
  }
  const common = commondirTarget(readSmall(join(gitDir, "commondir")));
  const commonDir = common ? resolvedOrNull(gitDir, common) : null;
  return commonDir ? [gitDir, commonDir.real] : [gitDir];
}

/** What must be read-only for the repositories found; hooks folders and included files named but missing (checked after the command). */
export interface GitGuard {
  readOnly: string[];
  missingHooks: string[];
  missingIncludes: string[];
  /** For each path above: what git does with it, in words (the write tools' prompt says it). */
  why: Map<string, string>;
}

/**
 * Paths inside the writable roots (the workspace, granted write paths) to keep read-only: every site, the git directories
 * they point at, and for every repository the hooks directory its config
 * (or git's global config, `globalConfig`) names with core.hooksPath, and
 * the files it includes. A hooks directory that does not exist yet is
 * checked after the command (disarmNewRepositories).
 */
export function gitGuard(roots: string | readonly string[], sites: GitSite[], globalConfig: string[] = [], home?: string): GitGuard {
  const all = asRoots(roots);
  const why = new Map<string, string>();
  const note = (set: Set<string>, p: string, what: string) => {
    set.add(p);
    if (!why.has(p)) why.set(p, what);
  };
  const readOnly = new Set<string>();
  const missing = new Set<string>();
  const missingIncludes = new Set<string>();
  const global = withIncludes(globalConfig, readSmall, home);
  const globalHooks = global.flatMap((f) => hooksPaths(f.text ?? ""));
  // The person's own git config, reached through a link (a dotfiles workspace: ~/.gitconfig -> ~/dotfiles/gitconfig),
  // and every file it includes (a team config in a repository) are obeyed in every repository.
  for (const config of global) guardInclude(config.path, config.included ? "is a file your git config includes: git obeys it in every repository (core.fsmonitor, hooks, aliases run programs)" : `is your git config (${config.path}, through a link): git obeys it in every repository (core.fsmonitor, hooks, aliases run programs)`);
  const dotGits = sites.filter((s) => s.kind === "dir").map((s) => s.path);
  for (const site of sites) {
    // A link is not mounted over (bubblewrap would follow it); one the command makes is set aside after.
    if (site.kind === "link") continue;
    // One inside a .git folder is kept as that folder is (read-only, or writable where the person granted it).
    if (dotGits.some((d) => d !== site.path && isWithin(d, site.path))) continue;
    const shownDir = relative(all[0]!, site.path) || "the workspace folder";
    const repoWhy = `is in a git directory (${shownDir}${site.kind === "bare" ? ", a folder git takes for a repository" : ""}): git obeys its config and runs its hooks`;
    note(readOnly, site.path, site.kind === "file" ? "is a .git file: git follows it to the git directory it names" : repoWhy);
    // A bare-shaped workspace root stays writable; what git reads from it does not.
    if (site.kind === "bare" && all.includes(site.path)) {
      for (const name of GIT_DIR_ENTRIES) if (existsSync(join(site.path, name)) || isLink(join(site.path, name))) note(readOnly, join(site.path, name), repoWhy);
    }
    const top = site.kind === "bare" ? site.path : dirname(site.path);
    for (const gitDir of site.gitDirs) {
      if (rootOf(all, gitDir)) note(readOnly, gitDir, repoWhy);
      // Its config files and every file they include, at any depth: each can name hooks or programs.
      for (const config of withIncludes([join(gitDir, "config"), join(gitDir, "config.worktree")], readSmall, home)) {
        if (config.included) guardInclude(config.path, "is a file a repository's git config includes: git obeys it as its own config (core.fsmonitor, hooks, aliases run programs)");
        for (const hooks of hooksPaths(config.text ?? "")) addHooks(hooks, top);
      }
    }
    for (const hooks of globalHooks) addHooks(hooks, top);
  }
  function guardInclude(path: string, what: string): void {
    // One bunker cannot resolve (a name too long, a loop of links) git cannot open either.
    const abs = resolvedOrNull("/", path);
    if (abs) note(abs.exists ? readOnly : missingIncludes, abs.real, what);
  }
  function inside(p: string): boolean {
    const r = rootOf(all, p);
    return r !== null && p !== r;
  }
  function addHooks(hooks: string, top: string): void {
    // `~/` from the person's home, as git reads it (a global core.hooksPath = ~/dotfiles/hooks in a dotfiles workspace).
    const abs = hooks.startsWith("~/") ? (home === undefined ? null : resolvedOrNull(home, hooks.slice(2))) : resolvedOrNull(top, hooks);
    if (!abs) return;
    const what = `is in a hooks folder: git runs the hooks in it (core.hooksPath is ${hooks})`;
    if (abs.exists) note(readOnly, abs.real, what);
    else if (inside(abs.real)) note(missing, abs.real, what);
  }
  return { readOnly: [...readOnly].filter(inside).sort(), missingHooks: [...missing].sort(), missingIncludes: [...missingIncludes].filter(inside).sort(), why };
}

function hooksPaths(configText: string): string[] {
  return [...configEntries(configText)].filter((e) => e.section === "core" && e.key === "hookspath" && e.value !== "").map((e) => e.value);
}

/** The names beside HEAD that make a folder one git takes for a repository (isBareShaped). */
const REPO_MAKERS = new Set(["objects", "refs", "commondir"]);

/**
 * Why writing `real` (a write tool's target) lets git run a program later,
 * or null: the one answer for the write tools, from what the sandbox keeps
 * read-only for commands (gitGuard over one walk of the writable roots): a
 * git directory of any name (a .git, a .git file's target, a bare-shaped
 * folder, the root included), a file a repository's config includes, a
 * hooks folder, or one of those named but missing. Also a write that may
 * make its folder one git takes for a repository: a file named HEAD
 * anywhere, or objects/, refs/ or commondir beside a HEAD. (One change may
 * write several files, each judged against the disk before any is written:
 * HEAD, which every repository needs, asks whatever else is there.)
 */
export function gitWriteReason(roots: string | readonly string[], real: string, globalConfig: string[] = [], scan: WorkspaceScan = scanRoots(asRoots(roots)), home?: string): string | null {
  const all = asRoots(roots);
  const guard = gitGuard(all, scan.sites, globalConfig, home);
  for (const list of [guard.readOnly, guard.missingHooks, guard.missingIncludes]) {
    const hit = list.find((p) => isWithin(p, real));
    if (hit) return guard.why.get(hit) ?? "is read by git, which runs what it names";
  }
  const root = rootOf(all, real);
  if (!root) return null;
  const repoWhy = "a folder git takes for a repository (HEAD with objects and refs), whose config and hooks git obeys";
  if (basename(real) === "HEAD") return `may make ${relative(all[0]!, dirname(real)) || "the workspace folder"} ${repoWhy}`;
  for (let child = real, dir = dirname(real); isWithin(root, dir) && child !== dir; child = dir, dir = dirname(dir)) {
    if (REPO_MAKERS.has(child.slice(dir.length + 1)) && (existsSync(join(dir, "HEAD")) || isLink(join(dir, "HEAD")))) return `may make ${relative(all[0]!, dir) || "the workspace folder"} ${repoWhy}`;
  }
  return null;
}

/**
 * Repositories the command created (sites not in `before`, by identity),
 * and hooks folders or included files it created where a config names one: their hooks
 * renamed to NAME.bunker-disarmed and their program-running config keys
 * commented out, so the person's next `git` there runs nothing the command
 * planted. Returns one line per thing disarmed.
 */
export function disarmNewRepositories(roots: string | readonly string[], before: GitSite[], after: GitSite[], missing: Partial<Omit<GitGuard, "readOnly">> & { gaps?: WalkGaps } = {}, mountsMove = false): string[] {
  const all = asRoots(roots);
  const root = all[0]!;
  const known = new Set(before.map((s) => `${s.path}\0${s.id}`));
  // A git directory seen before, moved since with a folder around it (`mv tools t2`): the same one. Under bubblewrap it
  // was read-only to the command all along (a mount holds to its folder, and mount-check.ts saw each in place before
  // the command ran), so the person's own, left alone (red team 5's F12). Elsewhere it is checked as a new one.
  const beforeIds = new Map(before.filter((s) => s.kind === "dir" || s.kind === "bare").map((s) => [s.id, s.path]));
  const movedIds = new Set(mountsMove ? beforeIds.keys() : []);
  const hidden = (missing.gaps?.unlistable ?? []).map((u) => u.path);
  // How the person is told whose repository it is: the command's, theirs moved, or one bunker could not see before.
  const whose = (site: GitSite): string => {
    const shown = relative(root, site.path) || ". (the workspace folder)";
    const from = beforeIds.get(site.id);
    if (from !== undefined && (site.kind === "dir" || site.kind === "bare")) return `your git repository ${relative(root, from) || "."}, which the command moved to ${shown} (where it could write it),`;
    if (hidden.some((h) => isWithin(h, site.path))) return `the git repository at ${shown}, which was hidden from bunker's check before the command (in a folder it could not list),`;
    return `the git repository the command created at ${shown}`;
  };
  // The person's own git directories (a worktree's .git file created under a .git grant points into one).
  // (Not a bare-shaped root: it stays writable, so what a command adds there is checked as new.)
  const theirs = before.filter((s) => !(s.kind === "bare" && all.includes(s.path))).flatMap((s) => s.gitDirs);
  // Where a git directory may lead and still be checked here: what the command could write, or the person's own.
  const reachable = (dir: string) => rootOf(all, dir) !== null || theirs.some((d) => isWithin(d, dir));
  const lines: string[] = [];
  // Each site on its own: an error checking or disarming one sets that one aside whole and leaves the others to be done.
  for (const site of after) {
    if (known.has(`${site.path}\0${site.id}`) || ((site.kind === "dir" || site.kind === "bare") && !all.includes(site.path) && movedIds.has(site.id))) continue;
    try {
      const line = disarmSite(all, site, theirs, reachable, whose(site));
      if (line) lines.push(line);
    } catch (e) {
      lines.push(...setAsideSite(all, site, errorText(e), whose(site)));
    }
  }
  for (const hooks of missing.missingHooks ?? []) {
    try {
      const home = rootOf(all, hooks);
      if (!home || !isRealDir(home, hooks)) continue;
      const done = disarmHooks(hooks);
      if (done.length) lines.push(`bunker disarmed the hooks folder ${relative(root, hooks)} the command created (a git config names it core.hooksPath): ${done.join("; ")}.`);
    } catch (e) {
      lines.push(setAside(root, hooks, `the hooks folder ${relative(root, hooks)} the command created (a git config names it core.hooksPath), which bunker could not disarm (${errorText(e)})`));
    }
  }
  for (const inc of missing.missingIncludes ?? []) {
    try {
      const home = rootOf(all, inc);
      if (!home || !isRealDir(home, dirname(inc))) continue;
      const done = disarmConfig(inc);
      if (done.length) lines.push(`bunker disarmed ${relative(root, inc)}, which the command created and a git config includes: ${done.join("; ")}.`);
    } catch (e) {
      lines.push(setAside(root, inc, `${relative(root, inc)}, which the command created and a git config includes, and bunker could not disarm (${errorText(e)})`));
    }
  }
  return lines;
}

/** An error's message, for the person and the model. */
function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * A new repository that could not be checked or disarmed, made safe anyway: renamed aside whole (git no
 * longer finds it); a writable root, which stays where it is, has what git reads from it renamed aside instead.
 */
function setAsideSite(all: readonly string[], site: GitSite, reason: string, whose: string): string[] {
  const root = all[0]!;
  const what = `${whose.replace(/,$/, "")}, which bunker could not check or disarm (${reason})`;
  if (!all.includes(site.path)) return [setAside(root, site.path, what)];
  return ["config", "config.worktree", "hooks", "commondir"].filter((n) => existsSync(join(site.path, n)) || isLink(join(site.path, n))).map((n) => setAside(root, join(site.path, n), `${n} of ${what}`));
}

/** Disarm one new site (disarmNewRepositories): the line that says what was done, or null when there was nothing of the command's to check. */
function disarmSite(all: readonly string[], site: GitSite, theirs: readonly string[], reachable: (dir: string) => boolean, whose: string): string | null {
  const root = all[0]!;
  const shown = relative(root, site.path) || ". (the workspace folder)";
  // A link, or a gitdir git would resolve elsewhere than bunker does, or one leading out of what the command may
  // write (a git directory something else filled: bunker cannot check or disarm it): the person's git must not follow it.
  const target = site.kind === "file" ? gitdirTarget(site.path) : null;
  const outside = target !== null && !untrustedTarget(dirname(site.path), target) && !reachable(resolveFrom(dirname(site.path), target).real);
  if (site.kind === "link" || (site.kind === "file" && (!target || untrustedTarget(dirname(site.path), target) || outside))) {
    const why =
      site.kind === "link" ? "a link git would follow"
      : outside ? `its gitdir ${JSON.stringify(target)} is outside what the command may write, where bunker cannot check it`
      : target === null && readSmall(site.path) === null ? "bunker cannot read it exactly as git does (over 1 MB, not a regular file, or unreadable), so where git goes from it is not known"
      : target === null ? 'it is not "gitdir: " and a path, as git requires, so what git makes of it is not known'
      : `its gitdir ${JSON.stringify(target)} is not a folder git and bunker find alike`;
    return setAside(root, site.path, `the .git the command created at ${shown} (${why})`);
  }
  const done: string[] = [];
  let checked = false;
  for (const gitDir of gitDirsOf(site)) {
    // Only what the command could have written: inside a writable root, never through a link.
    const home = rootOf(all, gitDir);
    if (!home || theirs.some((d) => isWithin(d, gitDir)) || !isRealDir(home, gitDir)) continue;
    checked = true;
    // A commondir (or a worktree's gitdir) bunker cannot read exactly as git does is not taken for absent: git may
    // follow it all the same (red team 5: one padded past 1 MB with newlines git trims, or a link). The caller sets
    // the repository aside whole.
    for (const name of ["commondir", "gitdir"]) {
      const st = lstatOrNull(join(gitDir, name));
      if (st && readSmall(join(gitDir, name)) === null) {
        const why = st.isSymbolicLink() ? "a link" : !st.isFile() ? "not a regular file" : st.size > SMALL_FILE ? "larger than bunker reads" : "unreadable";
        throw new Error(`its ${name} is ${why}, so where git goes from it is not known`);
      }
    }
    const common = commondirTarget(readSmall(join(gitDir, "commondir")));
    const commonOutside = common ? !untrustedTarget(gitDir, common) && !reachable(resolveFrom(gitDir, common).real) : false;
    if (common && (untrustedTarget(gitDir, common) || commonOutside)) {
      const aside = join(gitDir, "commondir.bunker-set-aside");
      renameEntry(join(gitDir, "commondir"), aside);
      const why = commonOutside ? "outside what the command may write, where bunker cannot check it" : "not a folder git and bunker find alike";
      done.push(`its commondir ${JSON.stringify(common)} (${why}) renamed to commondir.bunker-set-aside; to restore it after checking it: mv ${shellQuote(relative(root, aside))} ${shellQuote(relative(root, join(gitDir, "commondir")))}`);
    }
    // A file with a second name the command made (`ln sub/.git/config notes.txt`) would stay writable by that name.
    const copied = ownCopies(gitDir);
    if (copied.length) done.push(`given copies of their own (they had another name, a hard link, the command could write later): ${copied.join(", ")}`);
    const here = [...disarmHooks(join(gitDir, "hooks")), ...["config", "config.worktree"].flatMap((name) => disarmConfig(join(gitDir, name))), ...["HEAD", "commondir", "index"].flatMap((name) => unblock(join(gitDir, name)))];
    // The git directory a .git file or commondir leads to: named, so the person knows where to look.
    done.push(...(gitDir === site.path ? here : here.map((d) => `${d} of ${relative(root, gitDir)}`)));
  }
  // A new .git file into the person's own repository (red team 6's F12m: docs/.git saying `gitdir: ../.git`) makes
  // a work tree of theirs where the command chose: git there runs the hooks a relative core.hooksPath names from
  // that folder, and obeys what else the command put around it. Set aside (a `git worktree add` under a .git grant
  // too: restored with the mv shown).
  if (!checked && site.kind === "file") return setAside(root, site.path, `the .git file the command created at ${shown} (it makes ${relative(root, dirname(site.path)) || "the workspace folder"} a work tree of your own repository, where git runs what the command put there)`);
  if (!checked) return null;
  return `bunker disarmed ${whose.replace(/,$/, "")}${done.length ? ` (${done.join("; ")})` : " (nothing in it ran programs)"}: the person's git there will not run what the command planted.`;
}

/**
 * Files the person's tools run later (direnv, husky, VS Code tasks, CI, a
 * hooks folder, settings' "protect") that the command created or changed
 * (not in `before` with the same identity and ctime): renamed aside, so
 * nothing runs them until the person has looked. One line per file. `knownDirs`: the folders the walk before the
 * command read (a Python environment in one of them is not one the command made). `linkedFrom`: each file that runs
 * later only through a link, with that link: a link the command made is set aside itself, and what it leads to stays
 * where it is (red team 12's F17: links to .git/HEAD, .git/config and the person's edited src/main.rs had bunker move
 * those, as "created by the command"; the command could not have written the first two).
 */
export function setAsideRunsLater(roots: string | readonly string[], before: Map<string, string>, after: Map<string, string>, why: (p: string) => string | null, knownDirs?: ReadonlyMap<string, string>, linkedFrom?: ReadonlyMap<string, string>): string[] {
  const all = asRoots(roots);
  const root = all[0]!;
  const lines: string[] = [];
  const newVenvs = new Set<string>();
  for (const [path, id] of after) {
    const home = rootOf(all, path);
    // Already dealt with (a hooks folder's hook renamed by disarmNewRepositories) or gone: nothing to do.
    // (A link's identity carries its files' after a "+": only its own part is the link.)
    if (before.get(path) === id || fileId(path) !== id.split("+")[0] || !home || !isRealDir(home, dirname(path))) continue;
    // Reached only through a link the command made: that link is set aside (it is new too), not this.
    const link = before.has(path) ? undefined : linkedFrom?.get(path);
    if (link !== undefined && !before.has(link)) continue;
    // What pip adds that shadows nothing, and a virtual environment the command itself made (said once below).
    const fine = !before.has(path) && venvNewIsFine(path, why(path), before, knownDirs);
    // Bytecode a python in the sandbox cached for a guarded module (or a command wrote): gone, python makes it anew.
    if (!fine && (isBytecodeCache(path, why(path)) || isGuardedBytecode(path, why(path)))) {
      removeEntry(path);
      continue;
    }
    if (fine) {
      const venv = venvRootOf(path);
      if (venv && why(path) !== VENV_TOOL_WHY) newVenvs.add(venv);
      continue;
    }
    lines.push(setAside(root, path, `${relative(root, path)}, which the command ${before.has(path) ? "changed" : "created"} (${why(path) ?? "runs later"})`));
  }
  for (const venv of newVenvs) lines.push(`the command created a Python virtual environment at ${relative(root, venv) || "."}: everything in it is the command's, and activating it or a tool that uses its python (pip, pre-commit, your editor) runs it. From now on its programs and .pth files are read-only to commands.`);
  return lines;
}

/** Bytecode Python cached for a module a hook runs (its why says so): removed after a command, Python compiles it anew. */
function isGuardedBytecode(path: string, why: string | null): boolean {
  return why !== null && why.startsWith(BYTECODE_WHY) && basename(dirname(path)) === "__pycache__" && path.endsWith(".pyc");
}

/**
 * The modules (and .pth files) a command made in a folder python puts first on its module path for a hook
 * (scan.firstModules: not there before it): set aside whatever their name, one line each saying which hook puts
 * the folder first and the mv that restores it. The modules that were there stay the project's code.
 */
export function setAsideFirstModules(roots: readonly string[], before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>, portionsBefore: ReadonlyMap<string, Portion> = new Map(), portionsAfter: ReadonlyMap<string, Portion> = new Map()): string[] {
  const root = roots[0]!;
  const lines: string[] = [];
  // A top-level folder with Python code in it that was not there before (or a link made or re-aimed): set aside whole,
  // one mv restores it. One that was there with no code: each piece of code the command put in it. One that held code
  // before is the project's (its new modules too: only a name of the hook's environment's namespace packages could
  // shadow anything, and the project's own folder of that name would already).
  for (const [path, now] of portionsAfter) {
    const was = portionsBefore.get(path);
    const home = rootOf(roots, path);
    if (!home || !isRealDir(home, dirname(path))) continue;
    const shown = relative(root, path);
    if (!was || was.id !== now.id) {
      if (now.link ? now.file : now.code.length === 0) continue;
      const what = now.link ? `${shown}, a link the command made or re-aimed, which python follows as a folder of modules` : `${shown}/, a folder the command created with Python code in it (${now.code.slice(0, 2).map((c) => relative(path, c)).join(", ")}${now.code.length > 2 ? ", …" : ""}), which python joins to any namespace package of its name`;
      lines.push(setAside(root, path, `${what} (${now.why})`));
    } else if (!was.link && was.code.length === 0) {
      for (const code of now.code) {
        if (!existsSync(code) && !isLink(code)) continue;
        if (!isRealDir(home, dirname(code))) continue;
        lines.push(setAside(root, code, `${relative(root, code)}, which the command created in ${shown}/, a folder with no Python code before, which python joins to any namespace package of its name (${now.why})`));
      }
    }
  }
  for (const [path, why] of after) {
    if (before.has(path) || !existsSync(path)) continue;
    lines.push(setAside(root, path, `${relative(root, path)}, which the command created (${why})`));
  }
  // The way to a module the project needs there, said once (reviewer's R12-25: the model's next import failed, and
  // it went on making modules by commands): the file tools show what they write, so what they make stays.
  if (lines.length > 0) lines.push(FIRST_MODULES_WAY);
  return lines;
}

/** Said after modules set aside where a hook's python looks first: how to make one that stays. */
export const FIRST_MODULES_WAY = "a module the project needs there stays when it is written with the file tools (write_file, apply_patch), which show it to the person; one a command makes (a heredoc, a generator, a copy) is set aside whatever its name, since the hook's python would import it outside the sandbox at the next commit";

/**
 * The files git obeys in the repositories found (each config, config.worktree and file a config includes; each hook
 * in a git directory's hooks folder or a core.hooksPath folder) inside the writable roots, but not under `skip`
 * (git directories the person granted for writing). Hard-linked ones are watched across a command (hard-links.ts).
 */
export function obeyedFiles(roots: readonly string[], guard: GitGuard, sites: GitSite[], skip: ReadonlySet<string> = new Set()): { configs: string[]; hooks: string[] } {
  const configs = new Set<string>();
  const hooks = new Set<string>();
  const listHooks = (dir: string) => {
    try {
      for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isFile()) hooks.add(join(dir, e.name));
    } catch {
      // Not a folder, or gone: nothing git runs from it.
    }
  };
  for (const site of sites) {
    for (const gitDir of site.gitDirs) {
      if (!rootOf(roots, gitDir) || [...skip].some((d) => isWithin(d, gitDir))) continue;
      configs.add(join(gitDir, "config"));
      configs.add(join(gitDir, "config.worktree"));
      listHooks(join(gitDir, "hooks"));
    }
  }
  for (const [p, what] of guard.why) {
    if (!rootOf(roots, p) || [...skip].some((d) => isWithin(d, p))) continue;
    if (what.startsWith("is in a hooks folder")) listHooks(p);
    else if (what.includes("includes")) configs.add(p);
  }
  return { configs: [...configs], hooks: [...hooks] };
}

/**
 * Files git obeys that had a second name before the command and changed during it (written through that name:
 * the read-only mount covers only the git directory's own): each given a copy of its own and disarmed, a config's
 * program-running keys commented out, a hook renamed to NAME.bunker-disarmed. One line per file.
 */
export function recheckLinked(roots: readonly string[], linked: Map<string, string>, configs: ReadonlySet<string>): string[] {
  const root = roots[0]!;
  return changedSince(linked).map((path) => {
    const shown = relative(root, path);
    try {
      ownCopy(path);
      const done = configs.has(path) ? disarmConfig(path) : [`renamed to ${basename(path)}.bunker-disarmed`];
      if (!configs.has(path)) renameEntry(path, `${path}.bunker-disarmed`);
      return `bunker disarmed ${shown}, which git obeys and which the command changed through another name of it (a hard link, now given a copy of its own)${done.length ? `: ${done.join("; ")}` : ""}.`;
    } catch (e) {
      return setAside(root, path, `${shown}, which git obeys and which the command changed through another name of it (a hard link), and bunker could not disarm (${errorText(e)})`);
    }
  });
}

/** Rename `path` to PATH.bunker-set-aside (or -2, -3…): nothing lost, nothing run; the line says how to restore it. */
export function setAside(root: string, path: string, what: string): string {
  let aside = `${path}.bunker-set-aside`;
  for (let n = 2; existsSync(aside) || isLink(aside); n++) aside = `${path}.bunker-set-aside-${n}`;
  try {
    renameEntry(path, aside);
  } catch (e) {
    return `bunker could not set aside ${what} (${(e as Error).message}): check it before using git or opening the folder`;
  }
  const [from, to] = [relative(root, aside), relative(root, path)];
  return `bunker set aside ${what}: it is now ${from}; to restore it after checking it: mv ${shellQuote(from)} ${shellQuote(to)}`;
}

/** `path` is a symbolic link (not followed). */
export function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
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

/** `path`'s own status (a link not followed), or null when it is not there. */
function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function disarmHooks(hooks: string): string[] {
  const st = lstatOrNull(hooks);
  if (!st) return [];
  if (!st.isDirectory()) {
    renameEntry(hooks, `${hooks}.bunker-disarmed`);
    return ["its hooks (not a folder) renamed to hooks.bunker-disarmed"];
  }
  const renamed: string[] = [];
  for (const name of readdirSync(hooks)) {
    if (name.endsWith(".sample") || name.endsWith(".bunker-disarmed")) continue;
    renameEntry(join(hooks, name), join(hooks, `${name}.bunker-disarmed`));
    renamed.push(name);
  }
  return renamed.length ? [`hooks renamed to NAME.bunker-disarmed: ${renamed.join(", ")}`] : [];
}

function disarmConfig(config: string): string[] {
  const name = basename(config);
  const st = lstatOrNull(config);
  if (!st) return [];
  // A linked config can say anything git will read; the command could not have written its target, but chose it.
  if (st.isSymbolicLink()) {
    renameEntry(config, `${config}.bunker-disarmed`);
    return [`its ${name} (a link) renamed`];
  }
  // One bunker cannot read through (a FIFO git would wait on, a folder, one too large to read) is not left for git
  // to read instead: renamed aside whole. (Throws when even that fails: the caller sets the repository aside.)
  const text = readSmall(config);
  if (text === null) {
    const why = !st.isFile() ? "not a regular file" : st.size > SMALL_FILE ? "larger than bunker reads" : "unreadable";
    renameEntry(config, `${config}.bunker-disarmed`);
    return [`its ${name} (${why}) renamed to ${name}.bunker-disarmed`];
  }
  const lines = text.split("\n");
  // Only keys known to run nothing are kept (an alias is a command line of its own, an include any config), with
  // their continuation lines; and section headers, blank lines and comments. Anything else goes, a line bunker
  // does not read as a key included (git might).
  const spans = new Map<number, { end: number; kept: boolean; key: string }>();
  // Whether bunker's reading may differ from git's (a header it skips, a value carried on to the next line).
  let odd = false;
  for (const e of configEntries(text)) {
    // A header whose subsection holds a backslash or a quote is not read as git reads it (`[x "a\"] b = "] ;\`):
    // the whole line goes, so nothing it could swallow stays live.
    if (/^\s*\[[^\]]*["\\]/.test(lines[e.line]!)) {
      odd = true;
      continue;
    }
    const end = valueEnd(lines, e.line);
    if (end > e.line) odd = true;
    spans.set(e.line, { end, kept: keepsConfigKey(e.section, e.key, e.value), key: `${e.section}.${e.key}` });
  }
  const keys: string[] = [];
  let unread = 0;
  for (let i = 0; i < lines.length; i++) {
    const span = spans.get(i);
    const line = lines[i]!.trim();
    if (span) {
      if (!span.kept) keys.push(span.key);
      // A header with the key on the same line (`[core] fsmonitor = x`): the whole line goes.
      for (let j = i; j <= span.end; j++) if (!span.kept) lines[j] = `# disarmed by bunker: ${lines[j]}`;
      i = span.end;
    } else if (line !== "" && !line.startsWith("#") && !line.startsWith(";") && !/^\[[^\]]*\]\s*([#;].*)?$/.test(line)) {
      unread++;
      lines[i] = `# disarmed by bunker: ${lines[i]}`;
    }
  }
  const result = lines.join("\n");
  // The result as git itself reads it (red team 5: a header bunker commented out let the key under it fall into the
  // [core] above; a value carried on swallowed a header bunker read): any key git finds there that bunker would not
  // keep, or a file git cannot read, and the config is set aside whole, as written.
  const aside = (why: string) => {
    renameEntry(config, `${config}.bunker-disarmed`);
    return [`its ${name} (${why}) renamed to ${name}.bunker-disarmed`];
  };
  const git = gitReadsConfig(result);
  if (git === null) {
    if (odd || unread) return aside("bunker could not read every line of it as git does, and git is not installed to check");
  } else if ("error" in git) {
    return aside(`git cannot read it once disarmed: ${git.error}`);
  } else {
    const live = git.entries.filter((e) => !keepsConfigKey(e.section, e.key, e.value)).map((e) => `${e.section}.${e.key}`);
    if (live.length) return aside(`git reads ${[...new Set(live)].join(", ")} in it where bunker read otherwise`);
  }
  const what = [...new Set(keys), ...(unread ? [`${unread} line${unread === 1 ? "" : "s"} bunker could not read as a setting`] : [])];
  // (Bytes that are not UTF-8 were checked as U+FFFD: what stays on disk is what git checked.)
  if (what.length === 0 && !text.includes("\ufffd")) return [];
  replaceFile(config, result);
  return what.length ? [`${what.join(", ")} commented out in ${name}`] : [];
}

/** An empty folder for git to start in and take for its home: no repository around it, no config of its own. */
let gitHome: string | undefined;
function emptyGitHome(): string {
  // In bunker's state folder, where no command can put a config or a repository for this git to find.
  return (gitHome ??= processFolder("bunker-gitparse"));
}

/**
 * A config text's entries as git's own parser reads them (`git config --file - --list`: parsing only, no includes,
 * no other config, nothing run), section and key lower case without the subsection; git's complaint when it
 * refuses the text; null when git is not installed.
 */
export function gitReadsConfig(text: string): { entries: { section: string; key: string; value: string }[] } | { error: string } | null {
  const PATH = process.env.PATH ?? "/usr/bin:/bin";
  // Never a git a command could have planted: this one runs on the host.
  const git = hostProgram("git", PATH, []);
  if (!git) return null;
  const home = emptyGitHome();
  const env = { PATH, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CEILING_DIRECTORIES: dirname(home), LC_ALL: "C" };
  const r = Bun.spawnSync([git, "config", "--file", "-", "--no-includes", "--null", "--list"], { cwd: home, env, stdin: Buffer.from(text), stdout: "pipe", stderr: "pipe", timeout: 10_000 });
  if (r.exitCode !== 0) return { error: r.stderr.toString().trim().split("\n")[0] || `git config exited with ${r.exitCode ?? "a signal"}` };
  const entries = r.stdout.toString().split("\0").filter((s) => s !== "").map((s) => {
    const nl = s.indexOf("\n");
    const name = nl === -1 ? s : s.slice(0, nl);
    return { section: name.slice(0, name.indexOf(".")).toLowerCase(), key: name.slice(name.lastIndexOf(".") + 1).toLowerCase(), value: nl === -1 ? "" : s.slice(nl + 1) };
  });
  return { entries };
}

/** A FIFO, socket or device where git reads a file (HEAD, commondir, index): the person's git would wait on it for ever. Renamed aside. */
function unblock(path: string): string[] {
  const st = lstatOrNull(path);
  if (!st) return [];
  if (st.isFile() || st.isDirectory() || st.isSymbolicLink()) return [];
  renameEntry(path, `${path}.bunker-disarmed`);
  return [`its ${basename(path)} (not a regular file: git would wait on it) renamed to ${basename(path)}.bunker-disarmed`];
}

/**
 * The last line of the value that starts on line `first`, as git's parser reads it: a backslash escapes the
 * next character, and only one that escapes the line end carries the value on (`a\\` at a line's end is an
 * escaped backslash: the next line is read anew; red team 3); quotes span lines; `#` or `;` outside quotes
 * starts a comment, where a backslash carries nothing.
 */
function valueEnd(lines: string[], first: number): number {
  const head = lines[first]!;
  // The value starts after the `=` (after the section header's `]` when the key shares its line).
  const afterHeader = head.trimStart().startsWith("[") ? head.indexOf("]") + 1 : 0;
  const eq = head.indexOf("=", afterHeader);
  if (eq === -1) return first;
  let quoted = false;
  let start = eq + 1;
  for (let i = first; ; i++, start = 0) {
    const line = lines[i]!.replace(/\r$/, "");
    let goesOn = false;
    for (let k = start; k < line.length; k++) {
      const c = line[k];
      if (c === "\\") {
        if (k === line.length - 1) goesOn = true;
        k++;
      } else if (c === '"') quoted = !quoted;
      else if (!quoted && (c === "#" || c === ";")) break;
    }
    if (!goesOn || i + 1 >= lines.length) return i;
  }
}

/** A regular file's text (up to 1 MB) without following a final link or blocking on a FIFO; null otherwise. */
function readSmall(path: string): string | null {
  return readSmallText(path, true);
}
