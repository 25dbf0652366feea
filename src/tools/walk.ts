// The directory walk shared by list_files, grep and glob: depth-first,
// names sorted, `.git` and gitignored entries left out, symbolic links
// reported but never followed (a link inside the workspace that points
// outside must not become a way to list or read outside), and every entry
// checked against the read policy so a --deny-read path stays unread.
import { lstatSync, readdirSync, statSync, type Dirent } from "node:fs";
import { readRegularSync } from "../fs/file-kind.ts";
import { dirname, join, relative, sep } from "node:path";
import { isWithin, realpathLoose } from "../perms/workspace.ts";
import type { Permissions } from "../perms/permissions.ts";
import { IgnoreMatcher, parseGitignore } from "./ignore.ts";
import { ToolError } from "./tool.ts";

export type EntryKind = "file" | "dir" | "symlink";

export interface WalkEntry {
  /** Absolute path (below the realpath'd start, so real up to the entry itself). */
  abs: string;
  /** Relative to the start directory, `/`-separated. */
  rel: string;
  name: string;
  /** 1 for the start directory's children. */
  depth: number;
  kind: EntryKind;
}

export interface WalkOptions {
  /** The directory to walk: absolute, realpath'd, already authorized. */
  start: string;
  /** The workspace root: .gitignore files apply from here down when `start` is inside it. */
  root: string;
  /** Deepest level yielded (1 = only the start's children). Default: no limit. */
  maxDepth?: number;
  /** The read policy: entries it refuses are skipped and never entered. */
  allowed?: (abs: string) => boolean;
  /** Called for each entry left out by an ignore rule (not for `.git`). */
  onIgnored?: (rel: string, isDir: boolean) => void;
  signal?: AbortSignal;
}

interface Frame {
  abs: string;
  rel: string;
  /** `rel` as seen from the ignore base. */
  ignoreRel: string;
  depth: number;
  matcher: IgnoreMatcher;
  entries: Dirent[];
  next: number;
}

/** Walks `start` depth-first (a directory comes right before its contents). */
export function* walk(opts: WalkOptions): Generator<WalkEntry> {
  const maxDepth = opts.maxDepth ?? Infinity;
  // Ignore rules apply from the repository's top: a workspace that is a folder of a repository
  // still leaves out what the repository ignores (node_modules, build output).
  const base = isWithin(opts.root, opts.start) ? ignoreBase(opts.root) : opts.start;
  const startRel = relative(base, opts.start).split(sep).join("/");
  const first = readDir(opts.start);
  if (first === undefined) throw new ToolError(`cannot read the directory ${opts.start} (no permission, or it is gone)`);
  const stack: Frame[] = [
    {
      abs: opts.start,
      rel: "",
      ignoreRel: startRel,
      depth: 0,
      matcher: loadMatcher(base, opts.start, startRel, first),
      entries: first,
      next: 0,
    },
  ];

  while (stack.length > 0) {
    if (opts.signal?.aborted) return;
    const frame = stack[stack.length - 1]!;
    if (frame.next >= frame.entries.length) {
      stack.pop();
      continue;
    }
    const dirent = frame.entries[frame.next++]!;
    const name = dirent.name;
    if (name === ".git") continue;
    const kind = kindOf(dirent, frame.abs);
    if (kind === undefined) continue; // sockets, fifos, devices: nothing to read
    const abs = frame.abs === "/" ? `/${name}` : `${frame.abs}/${name}`;
    const rel = frame.rel === "" ? name : `${frame.rel}/${name}`;
    const ignoreRel = frame.ignoreRel === "" ? name : `${frame.ignoreRel}/${name}`;
    const isDir = kind === "dir";
    if (frame.matcher.ignores(ignoreRel, isDir)) {
      opts.onIgnored?.(rel, isDir);
      continue;
    }
    if (opts.allowed && !opts.allowed(abs)) continue;
    const depth = frame.depth + 1;
    yield { abs, rel, name, depth, kind };
    if (isDir && depth < maxDepth) {
      const entries = readDir(abs);
      if (entries === undefined) continue; // unreadable: skip quietly
      stack.push({
        abs,
        rel,
        ignoreRel,
        depth,
        matcher: withGitignore(frame.matcher, abs, ignoreRel, entries),
        entries,
        next: 0,
      });
    }
  }
}

/**
 * Where a symbolic link really leads, if the policy allows reading there and
 * something exists: lets glob show links to allowed files without following
 * links out of the workspace.
 */
export function linkTarget(abs: string, allowed: (real: string) => boolean): { real: string; kind: "file" | "dir" } | undefined {
  try {
    const { real, exists } = realpathLoose(abs);
    if (!exists || !allowed(real)) return undefined;
    const st = statSync(real);
    if (st.isFile()) return { real, kind: "file" };
    if (st.isDirectory()) return { real, kind: "dir" };
  } catch {
    // Link loops, races, unreadable targets: treat as not there.
  }
  return undefined;
}

function readDir(abs: string): Dirent[] | undefined {
  try {
    const entries = readdirSync(abs, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return undefined;
  }
}

function kindOf(dirent: Dirent, dir: string): EntryKind | undefined {
  if (dirent.isFile()) return "file";
  if (dirent.isDirectory()) return "dir";
  if (dirent.isSymbolicLink()) return "symlink";
  if (dirent.isFIFO() || dirent.isSocket() || dirent.isBlockDevice() || dirent.isCharacterDevice()) return undefined;
  // Some file systems do not report the type: ask.
  try {
    const st = lstatSync(`${dir}/${dirent.name}`);
    if (st.isSymbolicLink()) return "symlink";
    if (st.isFile()) return "file";
    if (st.isDirectory()) return "dir";
  } catch {
    // Gone since the readdir.
  }
  return undefined;
}

/**
 * Where ignore rules start for a workspace: the top of the repository it is a
 * folder of; but the workspace itself when that repository ignores it (a
 * dotfiles repository in the home directory that ignores `*`).
 */
function ignoreBase(root: string): string {
  const top = repositoryTop(root);
  if (top === root) return root;
  const parts = relative(top, root).split(sep);
  let matcher = IgnoreMatcher.empty().withRules("", parseGitignore(readRuleFile(`${top}/.git/info/exclude`, top)));
  for (let i = 0; i < parts.length; i++) {
    const dirRel = parts.slice(0, i).join("/");
    matcher = matcher.withRules(dirRel, parseGitignore(readRuleFile(`${dirRel === "" ? top : `${top}/${dirRel}`}/.gitignore`, top)));
    if (matcher.ignores(parts.slice(0, i + 1).join("/"), true)) return root;
  }
  // An allow-list .gitignore (`*`, then `!*/`) ignores every file but no directory: that hides the workspace too.
  const files = (readDir(root) ?? []).filter((e) => e.isFile());
  const rootRel = parts.join("/");
  if (files.length > 0 && files.every((f) => matcher.ignores(`${rootRel}/${f.name}`, false))) return root;
  return top;
}

/** The nearest directory at or above `root` holding `.git` (a directory, or a worktree's file); `root` when none does. */
function repositoryTop(root: string): string {
  for (let dir = root; ; dir = dirname(dir)) {
    try {
      lstatSync(`${dir}/.git`);
      return dir;
    } catch {
      // not here
    }
    if (dirname(dir) === dir) return root;
  }
}

/** The rules in force in `start`: .git/info/exclude and every .gitignore from the base down. */
function loadMatcher(base: string, start: string, startRel: string, startEntries: Dirent[]): IgnoreMatcher {
  let matcher = IgnoreMatcher.empty();
  matcher = matcher.withRules("", parseGitignore(readRuleFile(`${base}/.git/info/exclude`, base)));
  if (startRel !== "") {
    const parts = startRel.split("/");
    for (let i = 0; i < parts.length; i++) {
      const dirRel = parts.slice(0, i).join("/");
      const dirAbs = dirRel === "" ? base : `${base}/${dirRel}`;
      matcher = matcher.withRules(dirRel, parseGitignore(readRuleFile(`${dirAbs}/.gitignore`, base)));
    }
  }
  return withGitignore(matcher, start, startRel, startEntries);
}

function withGitignore(matcher: IgnoreMatcher, dirAbs: string, dirRel: string, entries: Dirent[]): IgnoreMatcher {
  // Only a regular file: a .gitignore that is a link is not followed.
  if (!entries.some((e) => e.name === ".gitignore" && e.isFile())) return matcher;
  return matcher.withRules(dirRel, parseGitignore(readRuleFile(`${dirAbs}/.gitignore`, dirAbs)));
}

/** A rules file's text, or "" when missing, when it really lives outside `within`, or is not a regular file of at most 4 MiB. */
function readRuleFile(path: string, within: string): string {
  try {
    const { real, exists } = realpathLoose(path);
    if (!exists || !isWithin(within, real)) return "";
    return readRegularSync(real, real, { max: 4 * 1024 * 1024 })?.bytes.toString("utf8") ?? "";
  } catch {
    return "";
  }
}

/** The read policy as a predicate: true when a read of `abs` is allowed outright. */
export function readAllowed(perms: Permissions): (abs: string) => boolean {
  const policy = perms.policy;
  const link = perms.hardLinkCheck();
  return (abs) => policy.decide("read", abs).verdict === "allow" && link(abs) === null;
}

/**
 * The entries of the folder `dir` (as the person types it after `@`: relative to the workspace, "" for its top)
 * that the read policy allows outright, for Tab completion: a file the person could not attach is not offered.
 * `.git` is left out; null when the folder cannot be read (missing, refused, not a folder).
 */
export function readableEntries(perms: Permissions, dir: string, max = 2000): { name: string; dir: boolean }[] | null {
  const allowed = readAllowed(perms);
  let folder: string;
  try {
    folder = perms.resolve(dir || ".").real;
  } catch {
    return null;
  }
  if (!allowed(folder)) return null;
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return null;
  }
  const out: { name: string; dir: boolean }[] = [];
  for (const e of entries) {
    if (out.length >= max) break;
    if (e.name === ".git") continue;
    // Through a link, what it leads to is what a read would get: judged there.
    let real = join(folder, e.name);
    let isDir = e.isDirectory();
    if (e.isSymbolicLink()) {
      try {
        real = perms.resolve(join(folder, e.name)).real;
        isDir = statSync(real).isDirectory();
      } catch {
        continue;
      }
    }
    if (allowed(real)) out.push({ name: e.name, dir: isDir });
  }
  return out;
}

/**
 * The read policy as a walk filter, or undefined (no per-entry check) when it
 * would allow everything below `start`: inside the workspace with no read
 * denials, since the walk never leaves `start` through a link.
 */
export function walkFilter(perms: Permissions, start: string): ((abs: string) => boolean) | undefined {
  const deny = perms.policy.grants.deny.read;
  const noDenials = !deny.workspace && deny.paths.length === 0 && deny.globs.length === 0;
  if (noDenials && isWithin(perms.root, start)) return undefined;
  return readAllowed(perms);
}

/** An entry's path as shown to the model: below the walked directory's display path. */
export function displayPath(dirDisplay: string, rel: string): string {
  if (rel === "") return dirDisplay;
  if (dirDisplay === ".") return rel;
  return dirDisplay.endsWith("/") ? dirDisplay + rel : `${dirDisplay}/${rel}`;
}
