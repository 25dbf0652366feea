// A Python virtual environment (a folder holding pyvenv.cfg) inside a
// writable root: its python runs, unconfined, whenever the person's tools
// start it (pip, pytest, the editor's language server, a pre-commit hook that
// names .venv/bin/python3), and each start runs every .pth file and any
// sitecustomize.py / usercustomize.py in its site-packages (red team 6's
// F10d/F10e); activating it puts its bin/ first on PATH (F10c). Those files
// run later. What `pip install` adds stays usable: a new program in bin/
// whose name shadows nothing on the person's PATH (pytest, black) is the
// project's own tool; a new .pth (an editable install) is set aside, and the
// result says how to restore it.
import { existsSync, lstatSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { isProgram, isShims, pathEntries } from "./path-shadow.ts";
import { isWithin, realpathLoose } from "./workspace.ts";

/** What runs the venv files bunker guards, for the prompt and the set-aside line. */
export const VENV_PTH_WHY = "Python runs it at every start of this virtual environment's python (pip, pytest, your editor, a pre-commit hook)";
/** A program pip installs that shadows nothing: read-only when there, but a new one is left usable (venvNewIsFine). */
export const VENV_TOOL_WHY = "it runs when you activate this virtual environment and type its name, or a tool runs it from there";

const VENV_OWN = "it is this virtual environment's own ";
const VENV_ACTIVE = " when this virtual environment is active";

/** The names in a venv's bin/ that its own tools and activation run (never left to a command to add). */
const CORE = /^(python|pip|activate|pydoc|idle|pre-commit)/i;

/**
 * Why `real` runs later as part of a virtual environment, or null. `path`: the person's PATH, against which a new
 * program in bin/ is judged (activated later, it comes first).
 */
export function venvMatcher(path: string, home: string = process.env.HOME || homedir()): (real: string) => string | null {
  const isVenv = new Map<string, boolean>();
  const venv = (dir: string) => {
    let v = isVenv.get(dir);
    if (v === undefined) isVenv.set(dir, (v = existsSync(join(dir, "pyvenv.cfg"))));
    return v;
  };
  // As for an active PATH folder (path-shadow.ts): a version manager's shims do not count (pyenv's `pytest` is what a venv overrides).
  const entries = pathEntries(path, home).filter((e) => e.startsWith("/")).filter((e) => !isShims({ written: e, real: realpathLoose(e).real }));
  return (real) => {
    const dir = dirname(real);
    const name = basename(real);
    if (basename(dir) === "bin" && venv(dirname(dir))) {
      const own = join(dirname(dir), "bin");
      if (CORE.test(name)) return `${VENV_OWN}${name}: your tools and activating it run it`;
      const shadowed = entries.find((e) => resolve(e) !== own && isProgram(join(e, name)));
      return shadowed ? `your shell runs it instead of ${join(shadowed, name)}${VENV_ACTIVE}` : VENV_TOOL_WHY;
    }
    if (basename(dir) !== "site-packages" || !(name.endsWith(".pth") || name === "sitecustomize.py" || name === "usercustomize.py")) return null;
    // lib/python3.X/site-packages (lib64 too).
    const top = dirname(dirname(dirname(dir)));
    // Not through a link (lib64 -> lib): the file is matched by its real path, and the link is not a second copy to set aside.
    if (!/^lib(64)?$/.test(basename(dirname(dirname(dir)))) || !venv(top) || !realDir(dirname(dirname(dir)))) return null;
    return VENV_PTH_WHY;
  };
}

/** The virtual environment holding `real` (its bin/ or site-packages), or null. */
export function venvRootOf(real: string): string | null {
  const dir = dirname(real);
  if (basename(dir) === "bin") return dirname(dir);
  if (basename(dir) === "site-packages") return dirname(dirname(dirname(dir)));
  return null;
}

/**
 * A runs-later file the command created that is left where it is: a program pip added that shadows nothing, or
 * anything in a virtual environment the command itself created (`python -m venv .venv`: none of it was the
 * person's, and it is theirs to activate or not; bunker says so). `before`: the runs-later files before the command.
 */
export function venvNewIsFine(path: string, why: string | null, before: ReadonlyMap<string, string>): boolean {
  const root = venvRootOf(path);
  // Only what the venv rule said of a real venv: a `bin` on the person's PATH now (its reason is that it shadows)
  // is no venv's, whatever a command planted beside it.
  if (!root || why === null || !isVenvWhy(why) || !existsSync(join(root, "pyvenv.cfg"))) return false;
  if (why === VENV_TOOL_WHY) return true;
  for (const p of before.keys()) if (isWithin(root, p)) return false;
  return true;
}

/** Whether `why` is one of venvMatcher's answers. */
function isVenvWhy(why: string): boolean {
  return why === VENV_TOOL_WHY || why === VENV_PTH_WHY || why.startsWith(VENV_OWN) || why.endsWith(VENV_ACTIVE);
}

/** A folder that is not a link. */
function realDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}
