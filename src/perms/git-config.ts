// A repository's own config can make read-only git commands run programs:
// diff.external, a textconv or filter driver, a pager, gpg for signatures,
// or an include that could say any of these. A workspace unpacked from an
// archive brings its .git/config along, so before `git diff` runs unasked,
// that file is read and any such key makes the command ask instead.
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** Section (subsection stripped, lower case) → keys that name a program to run; "*" = any key. */
const RUNS_PROGRAMS: Record<string, Set<string> | "*"> = {
  // diff.submodule: diffs of nested repositories, run under their own config.
  diff: new Set(["external", "textconv", "command", "submodule"]),
  filter: new Set(["clean", "smudge", "process"]),
  pager: "*",
  gpg: new Set(["program"]),
  log: new Set(["showsignature"]),
  include: "*",
  includeif: "*",
  // core.worktree: the files git shows may be anywhere (`git diff` printing another directory's files).
  core: new Set(["pager", "sshcommand", "gitproxy", "askpass", "fsmonitor", "hookspath", "editor", "worktree"]),
  // Hooks kept in a workspace folder, merge drivers, credential helpers and editors run on commit, merge, push.
  merge: new Set(["driver"]),
  credential: new Set(["helper"]),
  sequence: new Set(["editor"]),
  uploadpack: new Set(["packobjectshook"]),
};

/** The first setting in the repository around `root` that would run a program, e.g. `diff.external`; null if none. */
export function gitConfigRunsPrograms(root: string): string | null {
  for (const file of repoConfigFiles(root)) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const hit = riskyKey(text);
    if (hit) return hit;
  }
  return null;
}

export function riskyKey(configText: string): string | null {
  for (const e of configEntries(configText)) if (runsProgram(e.section, e.key)) return `${e.section}.${e.key}`;
  return null;
}

/** Whether `section.key` (section without its subsection, both lower case) names a program git may run. */
export function runsProgram(section: string, key: string): boolean {
  const risky = RUNS_PROGRAMS[section];
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

/** The config files git would read for the repository containing `root`: .git/config, or a worktree's common one too. */
function repoConfigFiles(root: string): string[] {
  for (let dir = root; ; dir = dirname(dir)) {
    const gd = gitDirOf(dir);
    if (gd === "none") {
      if (dirname(dir) === dir) return [];
      continue;
    }
    if (gd === null) return [];
    // git reads all of these: the repository's config, a worktree's own, and (through commondir, which
    // a plain .git directory may have too) the shared repository's.
    const files = [join(gd, "config"), join(gd, "config.worktree")];
    try {
      const common = readFileSync(join(gd, "commondir"), "utf8").trim();
      const cd = isAbsolute(common) ? common : resolve(gd, common);
      files.push(join(cd, "config"), join(cd, "config.worktree"));
    } catch {
      // not a linked worktree
    }
    return files;
  }
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
    const gitdir = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
    if (!gitdir) return null;
    return isAbsolute(gitdir) ? gitdir : resolve(dir, gitdir);
  } catch {
    return null;
  }
}

/**
 * core.hooksPath of the repository at `root` (as written: relative paths are
 * relative to the work tree), or null. Files there run on commit, merge, push.
 */
export function gitHooksPath(root: string): string | null {
  let found: string | null = null;
  for (const file of repoConfigFiles(root)) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    let section = "";
    for (const raw of text.split("\n")) {
      const line = raw.trim();
      const header = /^\[\s*([A-Za-z0-9.-]+)[^\]]*\](.*)$/.exec(line);
      const rest = header ? header[2]!.trim() : line;
      if (header) section = header[1]!.toLowerCase();
      const m = /^hookspath\s*=\s*(.*?)\s*$/i.exec(rest);
      if (section === "core" && m) found = m[1]!.replace(/^"(.*)"$/, "$1");
    }
  }
  return found;
}
