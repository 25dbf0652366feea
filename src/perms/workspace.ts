// The one workspace resolver. Every path a tool takes, and every path word a
// command judge checks, goes through here before it touches the disk: made
// absolute, then resolved physically, as the kernel does: component by
// component, each link followed (dangling ones too, by reading the link)
// before the next `..` is applied, so `self/../x` with `self -> .` is the
// parent's x. Never normalized as text first (node's resolve() and Bun's
// realpathSync drop `link/..` textually). A link inside the workspace that
// points outside is outside.
import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { homedir } from "../fs/home.ts";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { commondirTarget, gitfileTarget, readSmallText } from "./gitfile.ts";

export class PathError extends Error {
  override name = "PathError";
}

export interface ResolvedPath {
  /** What the model asked for, as given. */
  input: string;
  /** Absolute path with every symlink resolved: the file that would really be touched. */
  real: string;
  /** `real` relative to the workspace root when inside it ("." for the root), else the absolute path. */
  display: string;
  inside: boolean;
  /** Whether something (file, dir, or dangling link target) exists at `real`. */
  exists: boolean;
}

const MAX_LINK_HOPS = 40;

/** Directories where a write always asks, even under --allow-write or -A: git's (hooks run code) and bunker's own settings. */
export const PROTECTED_DIRS = [".git", ".bunker"];

/**
 * A workspace-relative path (`sub/.GIT/hooks/x`) lies under `.git` or
 * `.bunker` at any depth (nested repositories have hooks too), compared
 * case-insensitively (on macOS and Windows `.GIT` is the same directory).
 */
export function isProtectedRelative(rel: string): boolean {
  return rel.split(/[\\/]/).some((part) => PROTECTED_DIRS.includes(part.toLowerCase()));
}

/** An absolute, resolved path inside `root` that is protected (see isProtectedRelative). */
export function isProtectedPath(root: string, real: string): boolean {
  if (!isWithin(root, real)) return false;
  return isProtectedRelative(relative(root, real)) || gitDirsInside(root).some((dir) => isWithin(dir, real));
}

const gitDirsCache = new Map<string, string[]>();

/**
 * Where a `.git` file at the root points inside the workspace (`gitdir: ./.bare`, the
 * bare-repository-with-worktrees layout), with its commondir: the real git directory,
 * hooks and config, as protected as `.git` itself. (The `.git` file cannot change
 * unasked, being protected, so this is read once.)
 */
export function gitDirsInside(root: string): string[] {
  let dirs = gitDirsCache.get(root);
  if (!dirs) {
    dirs = readGitDirs(root).filter((d) => isWithin(root, d) && d !== root);
    gitDirsCache.set(root, dirs);
  }
  return dirs;
}

function readGitDirs(root: string): string[] {
  try {
    const pointer = gitfileTarget(readSmallText(join(root, ".git")));
    if (!pointer) return [];
    const gitDir = resolveFrom(root, pointer).real;
    const dirs = [gitDir];
    try {
      const common = commondirTarget(readSmallText(join(gitDir, "commondir")));
      if (common) dirs.push(resolveFrom(gitDir, common).real);
    } catch {
      // not a linked worktree
    }
    return dirs;
  } catch {
    return []; // no .git file (a directory, or none)
  }
}

/** True when `target` is `base` or below it, by whole components (`/ws` does not cover `/ws2`). */
export function isWithin(base: string, target: string): boolean {
  const rel = relative(base, target);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(".." + sep));
}

/**
 * Expand `~` and make absolute against `base`. No file system access, and no
 * normalizing: a `..` stays where it is, to be applied after the link before
 * it is followed (see realpathLoose).
 */
export function absolutize(base: string, input: string): string {
  if (input.includes("\0")) throw new PathError("the path contains a NUL byte");
  if (input === "~") return homedir();
  if (input.startsWith("~/")) return `${homedir()}/${input.slice(2)}`;
  return joinRaw(base, input);
}

/** `input` against `base` as the kernel would take it: absolute stays, relative is appended, nothing collapsed. */
export function joinRaw(base: string, input: string): string {
  if (isAbsolute(input)) return input;
  return input === "" ? base : `${base.endsWith(sep) ? base : base + sep}${input}`;
}

/** Where `input` (relative to `base`, or absolute) really is: physical resolution of `joinRaw(base, input)`. */
export function resolveFrom(base: string, input: string): { real: string; exists: boolean } {
  return realpathLoose(joinRaw(base, input));
}

/** A path's non-empty components. A loop, not .filter: a read-only headless turn calls none (jit.ts). */
function components(path: string): string[] {
  const out: string[] = [];
  for (const part of path.split(sep)) if (part) out.push(part);
  return out;
}

/**
 * Resolve every symlink in `abs`, including dangling ones and links in parent
 * components, without requiring the path to exist, physically: `..` goes up
 * from wherever the components before it really led (a link is followed
 * first), and a link's own target is taken the same way, never normalized as
 * text. Components past the longest existing prefix are appended as they are.
 */
export function realpathLoose(abs: string): { real: string; exists: boolean } {
  let pending = components(abs);
  let current: string = sep;
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    const next = part === ".." ? dirname(current) : part === "." ? current : join(current, part);
    let stat;
    try {
      stat = lstatSync(next);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENAMETOOLONG") throw new PathError("the path is too long");
      if (code === "ENOENT" || code === "ENOTDIR") {
        return { real: resolve(next, ...pending), exists: false };
      }
      throw new PathError(`cannot inspect ${next}: ${(err as Error).message}`);
    }
    if (stat.isSymbolicLink()) {
      if (++hops > MAX_LINK_HOPS) throw new PathError("too many levels of symbolic links");
      const target = readlinkSync(next);
      // Relative targets start from the link's own (real) directory, `current`; absolute ones from /.
      pending = [...components(target), ...pending];
      if (isAbsolute(target)) current = sep;
      continue;
    }
    current = next;
  }
  return { real: current, exists: true };
}

/** The workspace root, made absolute and realpath'd (physically: realpathSync.native) once at start-up. */
export function resolveRoot(dir: string): string {
  const abs = joinRaw(process.cwd(), dir);
  let real: string;
  try {
    real = realpathSync.native(abs);
  } catch {
    throw new PathError(`workspace ${abs} does not exist`);
  }
  if (!statSync(real).isDirectory()) throw new PathError(`workspace ${abs} is not a directory`);
  return real;
}

export function resolvePath(root: string, input: string): ResolvedPath {
  if (typeof input !== "string" || input.trim() === "") throw new PathError("the path is empty");
  const { real, exists } = realpathLoose(absolutize(root, input));
  const inside = isWithin(root, real);
  const display = inside ? relative(root, real) || "." : real;
  return { input, real, display, inside, exists };
}
