// The project instructions put into the system prompt, as Codex and Claude
// Code find them: the person's own files (Claude Code's ~/.claude/CLAUDE.md,
// then $XDG_CONFIG_HOME/bunker/AGENTS.md), then AGENTS.md (or CLAUDE.md when a folder has none) in each folder from
// the git repository's root down to the workspace, the nearest last (it has
// the last word). Each is read through the read rules: one a deny rule
// covers is not read; one that is a link is read only where the policy lets
// its target be read (a cloned repository's AGENTS.md that links to
// ~/.ssh/id_rsa must not carry the key to the API). A stat a folder on the way.
import { existsSync, lstatSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { FileKindError, readRegularSync } from "../fs/file-kind.ts";
import { resolvePath } from "../perms/workspace.ts";

/** Characters kept of one file, and of all of them together. */
export const MAX_FILE_CHARS = 16_000;
export const MAX_TOTAL_CHARS = 32_000;
const NAMES = ["AGENTS.md", "CLAUDE.md"] as const;

export interface InstructionsOptions {
  /** Whether the policy lets a real path be read unasked (inside the workspace: a deny rule; outside: a grant). */
  canRead: (real: string) => boolean;
  /** Whether a deny rule covers a real path: what stops the files outside the workspace that are read by default. */
  denied?: (real: string) => boolean;
  /** The folder of the person's own AGENTS.md ($XDG_CONFIG_HOME/bunker); none read without it. */
  userDir?: string;
  /** The folder of the person's Claude Code instructions (`~/.claude`, or $CLAUDE_CONFIG_DIR): its CLAUDE.md is read first. */
  claudeDir?: string;
  /** The folder that holds the repository (`.git`), when the workspace is in one: files from there down are read. */
  gitRoot?: string;
  /** Told when a file is passed over, and why. */
  warn?: (message: string) => void;
}

export interface InstructionsFile {
  /** As the person knows it: relative to the workspace ("AGENTS.md", "../AGENTS.md"), or from the home ("~/.config/bunker/AGENTS.md"). */
  shown: string;
  text: string;
}

/** The files read, in the order they go into the prompt (the person's own first, the workspace's last). */
export function loadInstructions(root: string, opts: InstructionsOptions): InstructionsFile[] {
  const found: InstructionsFile[] = [];
  // The person's own: what they wrote for Claude Code (new user's N11-18), then bunker's, which has the later word.
  const own = [opts.claudeDir && join(opts.claudeDir, "CLAUDE.md"), opts.userDir && join(opts.userDir, "AGENTS.md")];
  for (const path of own) {
    if (!path || !existsSync(path)) continue;
    const file = readOne(root, path, shownFromHome(path), opts, "own");
    if (file) found.push(file);
  }
  // Folders from the repository's root down to the workspace's parent: its own files are outside the workspace.
  const above: string[] = [];
  if (opts.gitRoot && opts.gitRoot !== root) for (let dir = dirname(root); ; dir = dirname(dir)) {
    above.unshift(dir);
    if (dir === opts.gitRoot || dirname(dir) === dir) break;
  }
  for (const dir of above) {
    for (const name of NAMES) {
      const path = join(dir, name);
      if (!existsSync(path)) continue;
      const file = readOne(root, path, relative(root, path), opts, "above");
      if (file) {
        found.push(file);
        break;
      }
    }
  }
  for (const name of NAMES) {
    const file = readOne(root, join(root, name), name, opts, "workspace");
    if (file) {
      found.push(file);
      break;
    }
  }
  return capTotal(found);
}

/**
 * One file, or null (missing, passed over, empty). "own" and "above" are read by default, as the workspace's own
 * files are, unless a deny rule covers them; one that is a link (to elsewhere) is held to the policy like any read.
 */
function readOne(root: string, path: string, shown: string, opts: InstructionsOptions, where: "own" | "above" | "workspace"): InstructionsFile | null {
  const resolved = resolvePath(root, path);
  if (!resolved.exists) return null;
  const inPlace = where !== "workspace" && !resolved.inside && isPlainFile(path);
  const allowed = inPlace ? !opts.denied?.(resolved.real) : opts.canRead(resolved.real);
  if (!allowed) {
    const why = inPlace || resolved.inside ? "a deny rule covers it" : `it is outside the workspace; --allow-read=${resolved.real} would grant it`;
    opts.warn?.(`${shown} was not read: it leads to ${resolved.real}, and ${why}.`);
    return null;
  }
  let read;
  try {
    // Only its head is read (4 bytes a character at most): a 2 GB sparse AGENTS.md costs 64 KB, not 2 GB, at every start.
    read = readRegularSync(resolved.real, shown, { max: MAX_FILE_CHARS * 4, cut: true });
  } catch (err) {
    if (!(err instanceof FileKindError)) throw err;
    opts.warn?.(`${err.message}; going on without it.`);
    return null;
  }
  if (!read) return null;
  let text = read.bytes.toString("utf8");
  if (read.cut || text.length > MAX_FILE_CHARS) text = text.slice(0, MAX_FILE_CHARS) + "\n[… cut: file is longer]";
  text = text.trim();
  return text ? { shown, text } : null;
}

/** Not a link: the file is where its folder is (the folders above a physical workspace are physical too). */
function isPlainFile(path: string): boolean {
  try {
    return !lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Past the total, the files read first (the person's own, the repository's root) give way: the nearest are kept whole. */
function capTotal(files: InstructionsFile[]): InstructionsFile[] {
  let left = MAX_TOTAL_CHARS;
  const kept: InstructionsFile[] = [];
  for (let i = files.length - 1; i >= 0; i--) {
    const f = files[i]!;
    if (left <= 0) break;
    kept.unshift(f.text.length <= left ? f : { shown: f.shown, text: f.text.slice(0, left) + "\n[… cut: the instructions are longer in all]" });
    left -= f.text.length;
  }
  return kept;
}

function shownFromHome(path: string): string {
  const home = process.env.HOME;
  return home && path.startsWith(home + "/") ? `~/${relative(home, path)}` : path;
}

/** The folder that holds the repository around `root` (has `.git`), if any: one stat a folder up from it. */
export function gitRootOf(root: string): string | undefined {
  for (let dir = root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}
