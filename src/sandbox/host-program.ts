// The programs bunker itself runs on the host, outside any sandbox: bwrap,
// git (to parse a config the way git does), the pager. Each is looked up on
// PATH, but only in folders a command cannot write: a PATH entry inside the
// workspace or a write grant (an activated .venv/bin, `./node_modules/.bin`,
// direnv's `PATH_add bin`), a relative one, or a program file whose link leads
// there is passed over. Otherwise a command that plants `git` or `bwrap` there
// gets it run unconfined by bunker itself (red team 7 F2, F3).
import { accessSync, constants, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { isWithin } from "../perms/workspace.ts";

// Where distributions install programs, for when PATH is empty or trimmed
// (a service, `env -i`): the sandbox and the shell should not vanish with it.
export const SYSTEM_BIN_DIRS = ["/usr/bin", "/bin", "/usr/local/bin"];

let distrusted: string[] | undefined;

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The folders commands can write (the workspace, granted write paths, MCP
 * servers' write folders): no host program is taken from inside them. Set
 * once at start-up, before anything runs; until then the working directory
 * stands for the workspace.
 */
export function distrustForHostPrograms(folders: string[]): void {
  // A loop, not .map: a read-only headless turn calls none (jit.ts).
  const real: string[] = [];
  for (const f of folders) real.push(realOrSelf(f));
  distrusted = real;
}

function isDistrusted(path: string): boolean {
  const roots = distrusted ?? [realOrSelf(process.cwd())];
  const real = realOrSelf(path);
  return roots.some((r) => isWithin(r, real) || isWithin(r, path));
}

/**
 * Every place the path leads through: its folder's real path with its name,
 * then each link's target the same way, to the file. A link on the way
 * that sits where a command can write could be swapped after the check.
 */
function linkChain(path: string): string[] {
  const chain: string[] = [];
  let at = join(realOrSelf(dirname(path)), basename(path));
  for (let hop = 0; hop < 40; hop++) {
    chain.push(at);
    let target: string;
    try {
      if (!lstatSync(at).isSymbolicLink()) break;
      target = readlinkSync(at);
    } catch {
      break;
    }
    const next = resolve(dirname(at), target);
    at = join(realOrSelf(dirname(next)), basename(next));
  }
  return chain;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * `name` for bunker to run on the host: the first on PATH in a folder no
 * command can write, and not a link through one, else in one of
 * `systemDirs`, else null. The path is the one found, not its link's target:
 * a version manager's shim, or busybox, goes by the name it is run as.
 */
export function hostProgram(name: string, path: string = process.env.PATH ?? "", systemDirs: string[] = SYSTEM_BIN_DIRS): string | null {
  if (name.includes("/")) return null;
  const folders = [...path.split(":"), ...systemDirs];
  for (const folder of folders) {
    // Relative and empty entries name the working directory, which a command can write.
    if (folder === "" || !isAbsolute(folder)) continue;
    const candidate = join(folder, name);
    if (!isExecutableFile(candidate) || isDistrusted(folder) || linkChain(candidate).some(isDistrusted)) continue;
    return candidate;
  }
  return null;
}
