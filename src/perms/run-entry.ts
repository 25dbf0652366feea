// What a program runs when it is handed a module or a folder rather than a file: `python -m tools.lint` runs
// tools/__init__.py then tools/lint.py (or the package tools/lint/'s __init__.py and __main__.py), `python3 tools`
// runs tools/__main__.py, `node tools` runs the file tools/package.json's "main" names, else tools/index.js. One
// answer for both places that need it: the files a hook runs (named-scripts.ts, git-guard.ts: red team 10's F11,
// a hook saying `python3 -m tools.lint` left tools/lint.py writable) and a project MCP server's consent hash
// (mcp/config.ts: red team 9's F09).
import { join, resolve } from "node:path";
import { readRegularSync } from "../fs/file-kind.ts";

/** A Python module's dotted name. */
const MODULE = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/;

/** The module `word` names after `-m` (`-m NAME` as two words: `next`), or as `-mNAME`; null when it names none. */
export function moduleArg(word: string, next: string | undefined): string | null {
  const name = word === "-m" ? next : /^-m[A-Za-z_]/.test(word) ? word.slice(2) : undefined;
  return name !== undefined && MODULE.test(name) ? name : null;
}

/** The modules `-m NAME` (or `-mNAME`) runs in an argument list, as Python names them. */
export function moduleNames(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = moduleArg(args[i]!, args[i + 1]);
    if (name !== null) out.push(name);
  }
  return out;
}

/**
 * The files, relative to the folder Python finds top-level modules in, that `python -m NAME` may run: each
 * enclosing package's `__init__.py`, and the module as a file, or as a package (its `__init__.py` and
 * `__main__.py`, which Python takes before a file of the same name).
 */
export function moduleFiles(name: string): string[] {
  if (!MODULE.test(name)) return [];
  const parts = name.split(".");
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) out.push(`${parts.slice(0, i).join("/")}/__init__.py`);
  const whole = parts.join("/");
  out.push(`${whole}.py`, `${whole}/__init__.py`, `${whole}/__main__.py`);
  return out;
}

/** What node tries for a path without a file there: its name with these (Module._findPath), or a folder's index. */
const NODE_EXTS = [".js", ".json", ".node", ".mjs", ".cjs"];
const NODE_INDEX = ["index.js", "index.json", "index.node"];

/** The "main" of a package.json, when it has a plain one. */
function packageMain(file: string): string | null {
  try {
    const got = readRegularSync(file, file, { max: 1024 * 1024 });
    if (!got) return null;
    const main = (JSON.parse(got.bytes.toString("utf8")) as { main?: unknown }).main;
    return typeof main === "string" && main !== "" ? main : null;
  } catch {
    return null;
  }
}

/**
 * The files a program runs when handed `folder`: Python's `__main__.py`, node's package.json (its "main" decides) and
 * the file that names, or its `index.js`. Every candidate, there or not: one made later may be the one that runs.
 */
export function folderEntries(folder: string): string[] {
  const out = [join(folder, "__main__.py"), join(folder, "package.json")];
  const main = packageMain(join(folder, "package.json"));
  if (main !== null) {
    const m = resolve(folder, main);
    out.push(m, ...NODE_EXTS.map((e) => m + e), ...NODE_INDEX.map((i) => join(m, i)));
  }
  out.push(...NODE_INDEX.map((i) => join(folder, i)));
  return [...new Set(out)];
}
