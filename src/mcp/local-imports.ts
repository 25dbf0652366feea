// What a server's code file brings in from beside it: the local imports a
// project server's consent hash follows (config.ts), so that a change to a
// helper a script imports asks again as a change to the script does. Read by
// pattern, not by a parser: an import written some other way (built from a
// string, a path computed at run time) is not followed, and README says so.
import { dirname, extname, join, resolve } from "node:path";

/** The languages whose imports are followed, by file extension. */
const PYTHON = new Set([".py"]);
const SCRIPT = new Set([".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx"]);
const SCRIPT_EXTS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json"];

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

function pythonImports(file: string, text: string, base: string): string[][] {
  const out: string[][] = [];
  const module = (from: string, name: string) => {
    const top = name.split(".")[0]!;
    out.push([join(from, `${top}.py`), `${join(from, top)}/`]);
  };
  for (const line of text.split("\n")) {
    const from = /^\s*from\s+(\.*)([\w.]*)\s+import\s+([\w\s,.*()]+)/.exec(line);
    if (from) {
      const [, dots, name, names] = from;
      if (dots) {
        // Relative: from the file's own package, one folder up per dot after the first.
        let dir = dirname(file);
        for (let i = 1; i < dots.length; i++) dir = dirname(dir);
        if (name) module(dir, name);
        else for (const n of names!.replace(/[()]/g, "").split(",")) if (/^\s*\w+/.test(n)) module(dir, n.trim().split(/\s+/)[0]!);
      } else if (name) module(base, name);
      continue;
    }
    const plain = /^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)/.exec(line);
    if (plain) for (const part of plain[1]!.split(",")) module(base, part.trim().split(/\s+/)[0]!);
  }
  return out;
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
