// A Python environment (a virtual environment's folder holding pyvenv.cfg, or
// a conda/mamba/pixi prefix holding conda-meta/) inside a writable root: its
// python runs, unconfined, whenever the person's tools start it (pip, pytest,
// the editor's language server, a pre-commit hook that names
// .venv/bin/python3), and each start reads pyvenv.cfg (whose `home` says
// where the standard library is: red team 8's F3), runs every .pth file and
// any sitecustomize / usercustomize in its site-packages and the modules a
// .pth imports (F3b: _distutils_hack, _virtualenv), and in a conda prefix
// the standard library's start-up modules in the prefix itself (F21);
// `conda activate` runs etc/conda/activate.d/; activating it puts its bin/
// first on PATH (F10c). Those files run later. What `pip install` adds stays
// usable: a new program in bin/ whose name shadows nothing on the person's
// PATH (pytest, black) is the project's own tool; a new .pth (an editable
// install) is set aside, and the result says how to restore it. A package
// the person's code imports (pip's own, requests) is project code like src/:
// it runs when imported, not at every start, and is not guarded.
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { homedir } from "../fs/home.ts";
import { basename, dirname, join, resolve } from "node:path";
import { readSmallText } from "./gitfile.ts";
import { isProgram, isShims, pathEntries } from "./path-shadow.ts";
import { isWithin, realpathLoose } from "./workspace.ts";

/** What runs the venv files bunker guards, for the prompt and the set-aside line. */
export const VENV_PTH_WHY = "Python runs it at every start of this virtual environment's python (pip, pytest, your editor, a pre-commit hook)";
/** pyvenv.cfg: its `home` says where the standard library (run at every start) is. */
export const VENV_CFG_WHY = "Python reads it at every start of this virtual environment's python (pip, pytest, your editor, a pre-commit hook): its home says where the standard library it runs is";
/** The environment's own config for pip (site config) or conda: where its next install fetches from (red team 13's F01). */
export const ENV_CONFIG_WHY = "pip (or conda) obeys it at every install in this environment: it can point the install at another index or a folder of the model's packages";
/** A conda prefix's activation scripts. */
export const CONDA_ACTIVATE_WHY = "conda (or pixi, mamba) runs it when you activate this environment";
/** A program pip installs that shadows nothing: read-only when there, but a new one is left usable (venvNewIsFine). */
export const VENV_TOOL_WHY = "it runs when you activate this virtual environment and type its name, or a tool runs it from there";

const VENV_OWN = "it is this virtual environment's own ";
const VENV_ACTIVE = " when this virtual environment is active";

/** The names in a venv's bin/ that its own tools and activation run (never left to a command to add). */
const CORE = /^(python|pip|activate|pydoc|idle|pre-commit|conda|mamba)/i;
/** Modules every start imports from site-packages whether or not a .pth names them. */
const START_MODULES = ["sitecustomize", "usercustomize"];
/**
 * What a conda prefix's python imports from its own lib/pythonX.Y at every start (3.11 and later take os and site
 * frozen, older ones from here; encodings is never frozen). The rest of the standard library runs when imported.
 */
const CONDA_START = /^(os|site|codecs|io|abc|stat|posixpath|genericpath|_collections_abc|_sitebuiltins|sitecustomize|usercustomize)\.py$|^encodings\/(__init__|aliases|utf_8|latin_1|ascii)\.py$|^(encodings\/)?__pycache__\/(os|site|codecs|io|abc|stat|posixpath|genericpath|_collections_abc|_sitebuiltins|sitecustomize|usercustomize|__init__|aliases|utf_8|latin_1|ascii)\.[^/]*pyc$/;

/** Whether `dir` is a Python environment: a virtual environment (pyvenv.cfg) or a conda, mamba or pixi prefix (conda-meta/). */
export function isPythonEnv(dir: string): boolean {
  return existsSync(join(dir, "pyvenv.cfg")) || realDir(join(dir, "conda-meta"));
}

/** The top-level module names a .pth file's import lines name (site.py runs a line that starts with `import`). */
export function pthImports(text: string): string[] {
  const names = new Set<string>();
  for (const line of text.split("\n")) {
    if (!/^import[ \t]/.test(line)) continue;
    // `from a.b import c` imports a (c is a name in it), then the plain `import x, y.z as w` statements.
    const rest = line.replace(/\bfrom\s+([\w.]+)\s+import\s+[\w\s,()]*/g, (_, m: string) => (names.add(m.split(".")[0]!), ";"));
    for (const m of rest.matchAll(/\bimport\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)/g)) {
      for (const part of m[1]!.split(",")) names.add(part.trim().split(/[\s.]/)[0]!);
    }
    for (const m of line.matchAll(/(?:__import__|import_module)\(\s*["']([\w.]+)["']/g)) names.add(m[1]!.split(".")[0]!);
  }
  names.delete("");
  return [...names];
}

/**
 * Why `real` runs later as part of a Python environment, or null. `path`: the person's PATH, against which a new
 * program in bin/ is judged (activated later, it comes first). The .pth files of each site-packages are read once
 * per matcher (one per command): a .pth and the module it imports come in one install, so a folder the walk
 * remembers from before is not a module a new .pth names.
 */
export function venvMatcher(path: string, home: string = process.env.HOME || homedir()): (real: string) => string | null {
  const isEnv = new Map<string, boolean>();
  const env = (dir: string) => {
    let v = isEnv.get(dir);
    if (v === undefined) isEnv.set(dir, (v = isPythonEnv(dir)));
    return v;
  };
  const imported = new Map<string, Set<string>>();
  const importsOf = (sp: string) => {
    let names = imported.get(sp);
    if (names) return names;
    names = new Set(START_MODULES);
    let entries: string[] = [];
    try {
      entries = readdirSync(sp).filter((n) => n.endsWith(".pth"));
    } catch {
      // Not listable: no .pth to read.
    }
    for (const n of entries) for (const m of pthImports(readSmallText(join(sp, n), true) ?? "")) names.add(m);
    imported.set(sp, names);
    return names;
  };
  // As for an active PATH folder (path-shadow.ts): a version manager's shims do not count (pyenv's `pytest` is what a venv overrides).
  const entries = pathEntries(path, home).filter((e) => e.startsWith("/")).filter((e) => !isShims({ written: e, real: realpathLoose(e).real }));
  return (real) => {
    const dir = dirname(real);
    const name = basename(real);
    // Python looks for it beside its program and one folder up (bin/pyvenv.cfg first): wherever it is, it picks the stdlib.
    if (name === "pyvenv.cfg") return VENV_CFG_WHY;
    // pip reads sys.prefix/pip.conf (pip.ini on Windows), conda a prefix's .condarc, condarc and condarc.d/.
    if ((name === "pip.conf" || name === "pip.ini" || name === ".condarc" || name === "condarc") && env(dir)) return ENV_CONFIG_WHY;
    if (basename(dir) === "condarc.d" && env(dirname(dir))) return ENV_CONFIG_WHY;
    if (basename(dir) === "bin" && env(dirname(dir))) {
      const own = join(dirname(dir), "bin");
      if (CORE.test(name)) return `${VENV_OWN}${name}: your tools and activating it run it`;
      const shadowed = entries.find((e) => resolve(e) !== own && isProgram(join(e, name)));
      return shadowed ? `your shell runs it instead of ${join(shadowed, name)}${VENV_ACTIVE}` : VENV_TOOL_WHY;
    }
    const activate = real.includes("/etc/conda/") ? /^(.*)\/etc\/conda\/(de)?activate\.d\//.exec(real) : null;
    if (activate && env(activate[1]!)) return CONDA_ACTIVATE_WHY;
    const lib = envLib(real, env);
    if (!lib) return null;
    if (!lib.inLib.startsWith("site-packages/")) return !existsSync(join(lib.prefix, "pyvenv.cfg")) && CONDA_START.test(lib.inLib) ? VENV_PTH_WHY : null;
    const rel = lib.inLib.slice("site-packages/".length);
    const parts = rel.split("/");
    if (parts.length === 1 && name.endsWith(".pth")) return VENV_PTH_WHY;
    // A module (x.py, x.cpython-311-….so), a package folder (x/**), or its cached bytecode (__pycache__/x.cpython-311.pyc):
    // python runs the .pyc when its header matches the source's time and size, which a command can copy.
    const top = parts[0] === "__pycache__" && parts.length === 2 ? parts[1]! : parts[0]!;
    const module = parts.length === 1 || parts[0] === "__pycache__" ? top.split(".")[0]! : top;
    return importsOf(real.slice(0, real.length - rel.length - 1)).has(module) ? VENV_PTH_WHY : null;
  };
}

/**
 * The Python environment's lib/pythonX.Y a path is in (the innermost whose prefix is one) and the path inside it;
 * never through a link (lib64 -> lib: the file is matched by its real path, and the link is not a second copy).
 */
function envLib(real: string, env: (dir: string) => boolean): { prefix: string; inLib: string } | null {
  if (!real.includes("/python")) return null;
  const found = [...real.matchAll(/\/(lib(?:64)?)\/python[0-9.]+\//g)];
  for (let i = found.length - 1; i >= 0; i--) {
    const m = found[i]!;
    const prefix = real.slice(0, m.index);
    if (prefix && realDir(join(prefix, m[1]!)) && env(prefix)) return { prefix, inLib: real.slice(m.index! + m[0].length) };
  }
  return null;
}

/** Python's cached bytecode of a guarded module: a command's new one is removed (python makes it again from the source). */
export function isBytecodeCache(path: string, why: string | null): boolean {
  return why === VENV_PTH_WHY && basename(dirname(path)) === "__pycache__" && path.endsWith(".pyc");
}

/** The Python environment holding `real` (pyvenv.cfg, its bin/, lib/pythonX.Y/**, etc/conda), or null. */
export function venvRootOf(real: string): string | null {
  const dir = dirname(real);
  if (basename(real) === "pyvenv.cfg") return basename(dir) === "bin" ? dirname(dir) : dir;
  if (/^(pip\.conf|pip\.ini|\.condarc|condarc)$/.test(basename(real)) && isPythonEnv(dir)) return dir;
  if (basename(dir) === "condarc.d") return dirname(dir);
  if (basename(dir) === "bin") return dirname(dir);
  const nested = /^(.*)\/(?:lib(?:64)?\/python[0-9.]+|etc\/conda)\//.exec(real);
  return nested ? nested[1]! : null;
}

/**
 * A runs-later file the command created that is left where it is: a program pip added that shadows nothing, or
 * anything in a Python environment the command itself created (`python -m venv .venv`: none of it was the
 * person's, and it is theirs to activate or not; bunker says so). `before`: the runs-later files before the command;
 * `knownDirs`: the folders the walk before it read.
 */
export function venvNewIsFine(path: string, why: string | null, before: ReadonlyMap<string, string>, knownDirs?: ReadonlyMap<string, string>): boolean {
  const root = venvRootOf(path);
  // Only what the venv rule said of a real venv: a `bin` on the person's PATH now (its reason is that it shadows)
  // is no venv's, whatever a command planted beside it.
  if (!root || why === null || !isVenvWhy(why) || !isPythonEnv(root)) return false;
  if (why === VENV_TOOL_WHY) return true;
  // A folder that was there before the command (a pyvenv.cfg written into the workspace or a bin/'s parent) is not a new environment.
  if (knownDirs?.has(root)) return false;
  for (const p of before.keys()) if (isWithin(root, p)) return false;
  return true;
}

/** Whether `why` is one of venvMatcher's answers. */
function isVenvWhy(why: string): boolean {
  return why === VENV_TOOL_WHY || why === VENV_PTH_WHY || why === VENV_CFG_WHY || why === CONDA_ACTIVATE_WHY || why.startsWith(VENV_OWN) || why.endsWith(VENV_ACTIVE);
}

/** A folder that is not a link. */
function realDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}
