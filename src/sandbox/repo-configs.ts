// A repository's own config is read by every command in it (git reads it) and by the model's read_file and grep.
// A token in a remote URL there (`https://bob:ghp_…@github.com/bob/app.git`, as GitHub's docs show for a personal
// access token) was readable by any command, unasked (`grep url .git/config`), while the person's global config was
// already shown as a copy without its credentials (red team 10's O1). So a repository's config is shown the same way:
// the copy with the credential withheld (git-config-copy.ts), bound read-only in the file's place inside the sandbox,
// and the same text to read_file and grep. Commands never write a repository's config (it is read-only to them even
// under --allow-write=.git: git-grant.ts), so showing them a copy takes nothing from them.
import { lstatSync, readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { commondirTarget, gitfileTarget, readSmallText } from "../perms/gitfile.ts";
import { gitConfigFiles } from "../perms/startup-files.ts";
import { homedir } from "../fs/home.ts";
import { realpathLoose } from "../perms/workspace.ts";
import { withholdCredentials } from "./git-config-copy.ts";

const CONFIGS = ["config", "config.worktree"];

function kindOf(path: string): "file" | "dir" | null {
  try {
    const st = lstatSync(path);
    return st.isFile() ? "file" : st.isDirectory() ? "dir" : null;
  } catch {
    return null;
  }
}

/** The folders in `dir` (none when it cannot be read). */
export function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

/** The git directories of the repository whose work tree is `folder`: its .git folder, or the one a .git file names and that one's common directory. */
export function gitDirsOfFolder(folder: string): string[] {
  const dotGit = join(folder, ".git");
  const kind = kindOf(dotGit);
  if (kind === "dir") return [dotGit];
  if (kind !== "file") return [];
  const target = gitfileTarget(readSmallText(dotGit));
  if (!target) return [];
  const gitDir = resolve(folder, target);
  const common = commondirTarget(readSmallText(join(gitDir, "commondir")));
  return common ? [gitDir, resolve(gitDir, common)] : [gitDir];
}

/** How deep git directories nest (submodules in submodules, worktrees' submodules, names with slashes): git's own are a few. */
const MAX_MODULE_DEPTH = 32;

/**
 * The config files of these git directories, with their linked worktrees' and their submodules': those there or not.
 * Submodules at any depth: git nests them (modules/lib/modules/inner, each with a token in its remote URL after a
 * `git clone --recursive` of a token URL: red team 12's F05), a submodule named libs/x has its git directory in
 * modules/libs/x, and a linked worktree keeps its submodules' in its own (worktrees/W/modules/N: reviewer's R12-03).
 * Walked whole: a bound on the folders looked in was the command's to reach (R12-13).
 */
export function repositoryConfigs(gitDirs: readonly string[]): string[] {
  const out = new Set<string>();
  const addGitDir = (gitDir: string, depth: number) => {
    for (const f of CONFIGS) out.add(join(gitDir, f));
    if (depth >= MAX_MODULE_DEPTH) return;
    for (const inner of subdirs(join(gitDir, "worktrees"))) addGitDir(inner, depth + 1);
    addModules(join(gitDir, "modules"), depth + 1);
  };
  // A folder under modules/ is a submodule's git directory (it has a HEAD file) or a part of a name with slashes.
  const addModules = (folder: string, depth: number) => {
    for (const dir of subdirs(folder)) {
      if (kindOf(join(dir, "HEAD")) === "file") addGitDir(dir, depth);
      else if (depth < MAX_MODULE_DEPTH) addModules(dir, depth + 1);
    }
  };
  for (const gitDir of gitDirs) addGitDir(gitDir, 0);
  return [...out];
}

/** Whether `path` is a repository's config: config or config.worktree in a folder git takes for a git directory. */
export function isRepositoryConfig(path: string): boolean {
  if (!CONFIGS.includes(basename(path))) return false;
  const dir = dirname(path);
  return kindOf(join(dir, "HEAD")) === "file" && (kindOf(join(dir, "objects")) === "dir" || kindOf(join(dir, "commondir")) === "file");
}

let globals: Set<string> | undefined;

/**
 * A config file's text as commands are shown it (`real`: its physical path): a repository's config or the person's
 * global git config with each line that holds a credential withheld, and a line first saying so; any other file as it is.
 */
export function configAsShown(real: string, text: string): { text: string; withheld: number } {
  // Worked out once: every file grep reads comes through here.
  globals ??= new Set(gitConfigFiles(process.env, realpathLoose(homedir()).real));
  if (!globals.has(real) && !isRepositoryConfig(real)) return { text, withheld: 0 };
  const shown = withholdCredentials(text);
  if (shown.withheld === 0) return shown;
  const said = `; bunker withheld ${shown.withheld === 1 ? "a credential" : `${shown.withheld} credentials`} in this file (commands are shown the same copy)`;
  return { text: `${said}\n${shown.text}`, withheld: shown.withheld };
}
