// The folders an allowed .envrc (direnv) or a mise config puts first on the
// person's PATH when their shell enters the folder (red team 8's F4): a
// program a command puts there under the name of one found later on PATH
// (`bin/git`) runs in its place at the person's next `git` there, whatever
// PATH bunker itself was started with (-C from another folder, an editor, a
// launcher). Read from the text: PATH_add, `path_add PATH`, load_prefix,
// `layout node` (node_modules/.bin), the other layouts' folders (.direnv/*/bin, ruby's .direnv/bin,
// .venv/bin, vendor/bin), `export PATH=…` with $PWD or a relative entry, and
// mise's `_.path`. A folder written with another variable is left out.
import { readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { simpleCommands } from "./envrc-loads.ts";
import { pathValue } from "./path-value.ts";

/** The folders each `layout NAME` puts on PATH (direnv's stdlib), relative to the .envrc's folder. */
const LAYOUTS: Record<string, string[]> = {
  node: ["node_modules/.bin"],
  php: ["vendor/bin"],
  uv: [".venv/bin"],
  poetry: [".venv/bin"],
  // BUNDLE_BIN, which is .direnv/bin itself, and GEM_HOME's bin (red team 11's F13); GOPATH's; local::lib's.
  ruby: [".direnv/bin", ".direnv/ruby/bin"],
  go: [".direnv/go/bin"],
  perl: [".direnv/perl5/bin"],
};

/**
 * Substitutes what direnv's $PWD and layout folder are in an .envrc at `dir`, and the .envrc's own plain assignments
 * made before (`TOOLS="$PWD/bin"`, then `PATH_add "$TOOLS"`: red team 10's F08b); null when another `$` or a backquote
 * is left.
 */
function expand(word: string, dir: string, vars: ReadonlyMap<string, string> = new Map()): string | null {
  const w = word
    .replace(/["']/g, "")
    .replace(/\$\{?([A-Za-z_]\w*)\}?/g, (all, name: string) => vars.get(name) ?? all)
    .replace(/\$\{?PWD\}?|\$\(\s*pwd\s*\)|`pwd`/g, dir)
    .replace(/\$\(\s*direnv_layout_dir\s*\)/g, join(dir, ".direnv"))
    .replace(/\$\(expand_path\s*([^)$`\s]*)\)/g, (_, p: string) => resolve(dir, p));
  return /[$`()]/.test(w) ? null : w;
}

/** The folders of .direnv (direnv's layout folder) holding a bin/: `layout python`'s .direnv/python-3.12/bin, ruby's, go's, perl's. */
function layoutBins(dir: string): string[] {
  try {
    return readdirSync(join(dir, ".direnv"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(dir, ".direnv", e.name, "bin"));
  } catch {
    return [];
  }
}

/** The folders (absolute) the .envrc at `envrc`, whose text is `text`, puts on PATH. */
export function envrcPathDirs(envrc: string, text: string): string[] {
  const dir = dirname(envrc);
  const out = new Set<string>();
  const vars = new Map<string, string>();
  const add = (word: string) => {
    const w = expand(word, dir, vars);
    if (w !== null && w !== "") out.add(resolve(dir, w));
    // Not readable without running it (`$(git rev-parse --show-toplevel)/bin`, `$ROOT/tools/bin`): the folder its
    // written tail names in the .envrc's folder, where such a line most often leads (red team 10's F08).
    const tail = w === null ? /^[^/]*[)}A-Za-z0-9_]\/([^$`()]+)$/.exec(word.replace(/["']/g, "")) : null;
    if (tail) out.add(resolve(dir, tail[1]!));
  };
  for (let [cmd, ...args] of simpleCommands(text)) {
    if (cmd === "export" || cmd === "local") [cmd, ...args] = args;
    if (cmd === undefined) continue;
    // A plain assignment whose value bunker can read (not PATH itself): what `$NAME` stands for after it.
    const assigned = /^([A-Za-z_]\w*)=(.*)$/.exec(cmd);
    if (assigned && assigned[1] !== "PATH" && args.length === 0) {
      const value = expand(assigned[2]!, dir, vars);
      if (value !== null) vars.set(assigned[1]!, value);
      else vars.delete(assigned[1]!);
      continue;
    }
    if (cmd === "PATH_add") args.forEach(add);
    else if (cmd === "path_add" && args[0] === "PATH") args.slice(1).forEach(add);
    else if (cmd === "load_prefix" && args[0]) for (const sub of ["bin", "sbin"]) add(join(args[0], sub));
    else if (cmd === "layout" || cmd.startsWith("layout_")) {
      const name = cmd === "layout" ? (args[0] ?? "") : cmd.slice("layout_".length);
      for (const d of LAYOUTS[name] ?? []) add(d);
      // python, python3, ruby, go, perl, julia…: direnv makes their folders under .direnv.
      for (const d of layoutBins(dir)) out.add(d);
      if (name.startsWith("python")) out.add(join(dir, ".venv/bin"));
    } else if (/^PATH\+?=/.test(cmd)) {
      // `PATH=$PWD/bin:$PATH`, `export PATH="./node_modules/.bin${PATH:+:$PATH}"`: each entry that is not $PATH itself.
      const { entries, old } = pathValue(cmd.replace(/^PATH\+?=/, "").replace(/["']/g, ""));
      entries.forEach((entry, i) => i !== old && add(entry));
    }
  }
  return [...out];
}

/** Whether `path` is a mise config: mise.toml, .mise.toml, mise.local.toml, or any .toml in a .mise/ or .config/mise/ folder (conf.d too). */
export function isMiseConfig(path: string): boolean {
  return /^\.?mise(\.[\w-]+)?\.toml$/.test(basename(path)) || (path.endsWith(".toml") && miseFolder(path) !== -1) || /\/\.config\/mise(\.[\w-]+)?\.toml$/.test(path);
}

/** Where a path's .mise/ or .config/mise/ folder starts, or -1. */
const miseFolder = (path: string): number => path.search(/\/(\.mise|\.config\/mise)\//);

/** The project folder a mise config belongs to ({{config_root}}): the folder above .config/ or .mise/. */
function miseRoot(config: string): string {
  const i = miseFolder(config);
  if (i !== -1) return config.slice(0, i) || "/";
  const dir = dirname(config);
  return basename(dir) === ".config" ? dirname(dir) : dir;
}

/** The folders (absolute) a mise config's `_.path` (in [env]) puts on PATH: `_.path = "./bin"` or a list, `{{config_root}}` read. */
export function misePathDirs(config: string, text: string): string[] {
  const root = miseRoot(config);
  const out = new Set<string>();
  for (const m of text.matchAll(/^\s*_\s*(?:\.\s*path\s*=|=\s*\{[^}\n]*\bpath\s*=)\s*(\[[^\]]*\]|.*)/gm)) {
    for (const s of m[1]!.matchAll(/"([^"\n]*)"|'([^'\n]*)'/g)) {
      const p = (s[1] ?? s[2] ?? "").replace(/\{\{\s*config_root\s*\}\}/g, root);
      if (p !== "" && !/[{$]/.test(p) && !p.startsWith("~")) out.add(resolve(root, p));
    }
  }
  return [...out];
}
