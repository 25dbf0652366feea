// Python folders a hook's python may import as a namespace package, where that python looks first (red team 12's
// F06, the folder class). Python joins every folder of a name along its module path into one namespace package,
// the first folder's first: a `google/` a command makes at the work tree's top (no __init__.py) joins the
// environment's google namespace (protobuf's, google-auth's) ahead of it, so its google/protobuf/__init__.py is
// what `import google.protobuf` runs, in whatever environment the hook's python has (poetry's, pipenv's, uv's).
// No name list knows that environment, so the rule is by folder: a top-level folder there that held no Python code
// before a command and holds some after it is the command's code (git-guard.ts sets it aside); one that held code
// before is the project's.
import { existsSync, lstatSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { isWithin } from "../perms/workspace.ts";

/** A name python imports (a folder of one is a package or a namespace portion). */
const IDENTIFIER = /^[A-Za-z_]\w*$/;
/** A module file python imports by its stem (as moduleIn reads them): NAME.py, NAME.pyc, NAME*.so, NAME*.pyd. */
const MODULE_FILE = /^[A-Za-z_]\w*(\.py|\.pyc|(\.[^/]*)?\.(so|pyd))$/;

/** One top-level folder (or link) in a folder python looks in first for a hook. */
export interface Portion {
  /** Which hook puts the folder first (git-guard.ts's sentence). */
  why: string;
  /** Its identity: a folder's dev:ino; a link's target and whether it leads to a folder now. */
  id: string;
  /** Whether it is a link (python follows it: whatever it leads to is imported). */
  link: boolean;
  /** Whether it leads to a regular file (a link python cannot import: `README -> README.md`). */
  file: boolean;
  /** The Python code in it python can import by a dotted name (modules, packages' __init__, links of such names). */
  code: string[];
}

/**
 * What a folder holds that python imports (as the walk reads each folder, git-guard.ts's readDir): module files,
 * and links named like a module or a package (python follows them), except a link to a folder beside it by its
 * bare name (a venv's lib64 -> lib), which is walked where it leads.
 */
export function pythonCodeNames(dir: string, entries: readonly { name: string; isSymbolicLink(): boolean; isDirectory(): boolean }[]): string[] {
  const out: string[] = [];
  for (const e of entries) {
    if (e.isDirectory()) continue;
    if (e.isSymbolicLink()) {
      if (!IDENTIFIER.test(e.name) && !MODULE_FILE.test(e.name)) continue;
      if (isSiblingAlias(dir, e.name)) continue;
      out.push(e.name);
    } else if (MODULE_FILE.test(e.name)) out.push(e.name);
  }
  return out;
}

/**
 * For a path not there yet under `first` (a folder a hook's python looks in first): the top-level folder python
 * would join to a namespace package of its name, when the path is code python imports from it by a dotted name
 * (google/protobuf/__init__.py → google) and that folder is not a regular package (one with an __init__, the
 * project's, wins whole); else null.
 */
export function namespaceTopOf(first: string, p: string): string | null {
  if (!isWithin(first, p) || first === p) return null;
  const parts = relative(first, p).split("/");
  const name = parts.at(-1)!;
  if (parts.length < 2 || !parts.slice(0, -1).every((n) => IDENTIFIER.test(n) && n !== "__pycache__")) return null;
  if (!MODULE_FILE.test(name)) return null;
  const top = join(first, parts[0]!);
  return existsSync(join(top, "__init__.py")) || existsSync(join(top, "__init__.pyc")) ? null : top;
}

function isSiblingAlias(dir: string, name: string): boolean {
  try {
    const target = readlinkSync(join(dir, name));
    return IDENTIFIER.test(target) && target !== "__pycache__" && lstatSync(join(dir, target)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The top-level folders and links of `first` (a folder a hook's python looks in first), each with the Python code
 * the walk found in it (`code`: folder → the paths of the code pythonCodeNames named in it) along folders python can import by
 * name (not __pycache__, not `python3.11`).
 */
export function portionsOf(first: string, why: string, code: ReadonlyMap<string, readonly string[]>, into: Map<string, Portion>): void {
  let entries;
  try {
    entries = readdirSync(first, { withFileTypes: true });
  } catch {
    return;
  }
  const mine = new Map<string, Portion>();
  for (const e of entries) {
    if (!IDENTIFIER.test(e.name) || e.name === "__pycache__") continue;
    const p = join(first, e.name);
    let st;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) {
      let target = "";
      try {
        target = readlinkSync(p);
      } catch {
        // Gone meanwhile: its empty target says so.
      }
      const to = statOrNull(p);
      mine.set(p, { why, id: `link:${target}:${to?.isDirectory() ? "dir" : to?.isFile() ? "file" : "none"}`, link: true, file: to?.isFile() === true, code: [] });
    } else if (st.isDirectory()) mine.set(p, { why, id: `${st.dev}:${st.ino}`, link: false, file: false, code: [] });
  }
  for (const [dir, names] of code) {
    if (!isWithin(first, dir) || dir === first) continue;
    const parts = relative(first, dir).split("/");
    const portion = mine.get(join(first, parts[0]!));
    if (!portion || portion.link || !parts.every((n) => IDENTIFIER.test(n) && n !== "__pycache__")) continue;
    portion.code.push(...names);
  }
  for (const [p, portion] of mine) if (!into.has(p)) into.set(p, portion);
}

function statOrNull(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

