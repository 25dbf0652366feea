// What a server's code file brings in from beside it: the local imports a
// project server's consent hash follows (config.ts), so that a change to a
// helper a script imports asks again as a change to the script does. Read by
// pattern, not by a parser: an import written some other way (built from a
// string, a path computed at run time) is not followed, and docs/mcp.md says so.
import { dirname, extname, join, resolve } from "node:path";

/** The languages whose imports are followed, by file extension. */
const PYTHON = new Set([".py"]);
const SCRIPT = new Set([".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx"]);
const SCRIPT_EXTS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json"];

/** Whether `file` is in a language whose local imports are read (Python, JavaScript, TypeScript). */
export function followsImports(file: string): boolean {
  const ext = extname(file);
  return PYTHON.has(ext) || SCRIPT.has(ext);
}

/**
 * Each local import of `file` (its text `text`) as the paths it may be, in the order the language looks: the first
 * that exists is the one. A path ending in "/" is a package folder (all of it is code). `base`: where Python finds a
 * top-level module (the script's folder when run as a script, the workspace for `-m`).
 */
export function importCandidates(file: string, text: string, base = dirname(file)): string[][] {
  const ext = extname(file);
  if (PYTHON.has(ext)) return pythonImports(file, text, base);
  if (SCRIPT.has(ext)) return scriptImports(file, text);
  return [];
}

/** One Python import: the folder its top-level name is looked for in, its dotted module ("" for `from . import x`), and the names `from` takes. */
interface PythonImport {
  dir: string;
  module: string;
  names: string[];
}

/** The imports of a Python file, read by pattern (one reading for both views below). */
function pythonImportList(file: string, text: string, base: string): PythonImport[] {
  const out: PythonImport[] = [];
  // `importlib.import_module("x")`, `__import__("x")` with a literal name: an import too.
  for (const m of text.matchAll(/\b(?:__import__|import_module)\(\s*["']([A-Za-z_][\w.]*)["']/g)) out.push({ dir: base, module: m[1]!, names: [] });
  // (`import a; import b`: each statement of a line.)
  for (const line of text.split(/[\n;]/)) {
    const from = /^\s*from\s+(\.*)([\w.]*)\s+import\s+([\w\s,.*()]+)/.exec(line);
    if (from) {
      const [, dots, name, names] = from;
      const taken = names!.replace(/[()]/g, "").split(",").filter((n) => /^\s*\w+/.test(n)).map((n) => n.trim().split(/\s+/)[0]!);
      if (dots) {
        // Relative: from the file's own package, one folder up per dot after the first.
        let dir = dirname(file);
        for (let i = 1; i < dots.length; i++) dir = dirname(dir);
        out.push({ dir, module: name ?? "", names: taken });
      } else if (name) out.push({ dir: base, module: name, names: taken });
      continue;
    }
    const plain = /^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)/.exec(line);
    if (plain) for (const part of plain[1]!.split(",")) out.push({ dir: base, module: part.trim().split(/\s+/)[0]!, names: [] });
  }
  return out;
}

function pythonImports(file: string, text: string, base: string): string[][] {
  const out: string[][] = [];
  const module = (from: string, name: string) => {
    const top = name.split(".")[0]!;
    out.push([join(from, `${top}.py`), `${join(from, top)}/`]);
  };
  for (const { dir, module: name, names } of pythonImportList(file, text, base)) {
    if (name) module(dir, name);
    else for (const n of names) module(dir, n);
  }
  return out;
}

/**
 * The files each local import of `file` may run, file by file, in the order the language looks (the first there is
 * the one; one made before it wins): what a hook's script imports runs at the commit too (named-scripts via
 * git-guard.ts: red team 11's F18). Python: each package on the way (`a/__init__.py`, else `a.py`), the module, and
 * each name `from` takes that may be a submodule, looked for in each of `bases` (where Python finds top-level
 * modules); node and TypeScript: as importCandidates. Shell's `source` / `.` are read as a hook's lines are.
 */
export function importedFiles(file: string, text: string, bases: readonly string[] = [dirname(file)]): string[][] {
  const ext = extname(file);
  if (SCRIPT.has(ext)) return scriptImports(file, text);
  if (!PYTHON.has(ext)) return [];
  const out = new Map<string, string[]>();
  const chain = (dir: string, parts: string[]) => {
    for (let i = 1; i <= parts.length; i++) {
      const p = join(dir, ...parts.slice(0, i));
      out.set(p, [join(p, "__init__.py"), `${p}.py`]);
    }
  };
  for (const base of bases) {
    for (const { dir, module, names } of pythonImportList(file, text, base)) {
      const parts = module ? module.split(".") : [];
      chain(dir, parts);
      for (const n of names) if (n !== "*") chain(dir, [...parts, n]);
    }
  }
  return [...out.values()];
}

function scriptImports(file: string, text: string): string[][] {
  const out: string[][] = [];
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']*)["']/gm;
  for (const m of text.matchAll(specifier)) {
    const path = resolve(dirname(file), m[1]!);
    const alternatives = [path, ...SCRIPT_EXTS.map((e) => path + e), ...SCRIPT_EXTS.map((e) => join(path, `index${e}`))];
    // TypeScript's "./x.js" is x.ts on disk.
    if (/\.(m|c)?js$/.test(path)) alternatives.splice(1, 0, path.replace(/\.(m|c)?js$/, (_, k: string | undefined) => `.${k ?? ""}ts`));
    out.push(alternatives);
  }
  return out;
}
