// The files a hook or a runs-later config runs by a literal path (red team 8's
// F16): `.husky/pre-commit` saying `sh scripts/precommit.sh` runs that script
// on the person's next commit, so the script runs later as the hook does.
// Read from the text alone, pragmatically, as words that look like a path to
// something run: `./x` or `../x`, a name with a script's extension
// (`scripts/x.sh`, `lint.py`, `tools/check.mjs`), a path with a `/` where a
// command starts (`tools/hooks/x`, `env A=1 bin/x`, `entry: bin/lint`,
// `"command": "ci/x"`), or any word an interpreter runs (`sh precommit`,
// `python3 tools/check`); after a literal `cd DIR`, each is read from DIR too.
// A word with `$`, a backquote or a glob is left out (bunker cannot know what it
// names without running it), and so is what a package manager or a tool
// finds by itself (`npm run lint`, `npx eslint`): that runs project code, whatever it is.
// A module Python runs (`python -m tools.lint`, red team 10's F11) is named by the files it may be (run-entry.ts).
import { isModuleFlag, moduleArg, moduleFiles } from "./run-entry.ts";

/** Extensions of files an interpreter runs (or a JVM loads): a word ending in one names a script. */
const SCRIPT_EXT = /\.(sh|bash|zsh|fish|ksh|py|pyw|js|mjs|cjs|ts|mts|cts|jsx|tsx|rb|pl|pm|php|lua|tcl|r|ps1|bat|cmd|jar|nix|awk|sed)$/i;

/** What ends one command and starts another (shell separators, a YAML key's colon, a JSON or TOML string's quote). */
const STARTERS = /(?:&&|\|\||[;|&(){}"'\n:,[\]]|\bthen\b|\bdo\b|\belse\b)/;

/** A variable, a command substitution, or a backquoted one, with the path it begins: what it names is not known. */
const EXPANDED = /(\$\([^)]*\)|\$\{[^}]*\}|\$\w+|\$.|`[^`]*`)[\w@+.~/-]*/g;

/** A word that may be a path: no variable, command substitution, glob, URL or option. */
const PATHLIKE = /^(\/(?!\/))?[\w@+.~-][\w@+.~/-]*$/;

/** Words that run the command after them (`exec tools/x`, `env A=1 tools/x`): it is still where a command starts. */
const WRAPPERS = new Set(["exec", "env", "command", "nohup", "time", "nice", "builtin"]);

/**
 * Programs whose first word that is not an option is a file they run (`sh precommit`, `python3 tools/check`). Not
 * bun or deno, whose next word is mostly a subcommand (`bun test`): a script they run is taken by its extension.
 */
const INTERPRETERS = /^(source|\.|(ba|z|da|k|fi)?sh|node|nodejs|tsx|ts-node|python[0-9.]*|pypy[0-9.]*|ruby|perl|php|lua|Rscript)$/;

/** Python, by any path or version: `-m NAME` runs a module. */
const PYTHON = /^(python|pypy)[0-9.]*$/;
/** Python's options that take the next word as their value (not a file it runs). */
const PYTHON_VALUED = new Set(["-W", "-X", "-Q"]);
/** Tools whose `run` runs the command after it in a project's environment (`uv run python -m x`, `poetry run tools/x`). */
const RUNNERS = new Set(["uv", "poetry", "pipenv", "pdm", "hatch", "rye", "pixi"]);

/** At most this many paths are taken from one file (a generated config is not a list of scripts). */
const MAX_PATHS = 200;

/**
 * The literal relative (or absolute) paths `text` names that look like files it runs, as written (`./x`,
 * `scripts/x.sh`); the caller resolves them against the folders they may be read from. Those an interpreter is
 * handed (`node tools`, `python3 tools`: a folder there runs its entry file) are also put in `handed`; the folders
 * python puts first on its module path in `first`. `tails`: a path written after an expansion bunker cannot know
 * (`"$ROOT/tools/lint.py"`) is taken as the same path from the folders it is read from, failing closed (a hook's words).
 */
export function namedPaths(text: string, handed?: Set<string>, first?: Set<string>, tails = false): string[] {
  const out = new Set<string>();
  // Folders a literal `cd` went to: a relative path after it is read from there too.
  const cds: string[] = [];
  const withCds = (w: string) => [w, ...(w.startsWith("/") ? [] : cds.map((d) => (w === "." ? d : `${d}/${w}`)))];
  const add = (w: string, interpreted = false) => {
    for (const p of withCds(w)) {
      out.add(p);
      if (interpreted) handed?.add(p);
    }
  };
  // The folder Python puts first on sys.path: the current one for -m, a script's own (`first`).
  const module = (name: string) => {
    for (const f of moduleFiles(name)) add(f);
    if (moduleFiles(name).length > 0) for (const d of withCds(".")) first?.add(d);
  };
  for (const line of text.split("\n")) {
    // A comment line (shell, YAML, TOML) names nothing that runs; a `#!` line names the interpreter.
    if (/^\s*(#|\/\/)/.test(line)) continue;
    for (const piece of line.replace(EXPANDED, (whole: string, expansion: string) => expandedTail(whole.slice(expansion.length), tails)).split(STARTERS)) {
      // Each piece between separators starts a command: its first word (past wrappers and assignments) is one run.
      let atCommand = true;
      let runs = false;
      let cd = false;
      // Python's state: the interpreter ran, `-m` came (its module is next), an option's value is next.
      let python = false;
      let moduled = false;
      let valued = false;
      let runner: "tool" | "run" | null = null;
      for (const word of piece.trim().split(/\s+/).filter(Boolean)) {
        const eq = word.lastIndexOf("=");
        const w = word.slice(eq + 1).replace(/^\.\/+/, "./");
        const pathlike = PATHLIKE.test(w) && !w.startsWith("-") && !w.startsWith("~");
        if (atCommand && (WRAPPERS.has(word) || /^\w+=/.test(word))) continue;
        if (atCommand && runner === null && RUNNERS.has(word)) {
          runner = "tool";
          continue;
        }
        if (atCommand && runner === "tool" && word === "run") {
          runner = "run";
          continue;
        }
        // `uv run -m tools.lint` / `--module tools.lint`: the runner's own python runs the module.
        if (atCommand && runner === "run" && (word === "-m" || word === "--module")) {
          moduled = true;
          continue;
        }
        if (atCommand && runner === "run" && word.startsWith("--module=")) {
          module(word.slice("--module=".length));
          atCommand = false;
          continue;
        }
        if (moduled) {
          module(word);
          moduled = runs = atCommand = false;
          continue;
        }
        if (atCommand && runner === "run" && word.startsWith("-")) continue;
        if (python && runs) {
          if (valued) {
            valued = false;
            continue;
          }
          const named = moduleArg(word, undefined);
          if (isModuleFlag(word) || named !== null) {
            if (named !== null) module(named);
            moduled = named === null;
            runs = moduled;
            continue;
          }
          if (PYTHON_VALUED.has(word)) {
            valued = true;
            continue;
          }
          // `-c CODE` runs no file.
          if (word === "-c" || word.startsWith("-c")) runs = false;
        }
        if (cd) {
          if (pathlike && eq === -1) cds.push(w.replace(/\/+$/, ""));
          cd = false;
        }
        if (pathlike) {
          const explicit = w.startsWith("./") || w.startsWith("../");
          const script = SCRIPT_EXT.test(w) && !/(^|\/)\.*$/.test(w.replace(SCRIPT_EXT, ""));
          const command = atCommand && eq === -1 && w.includes("/") && !w.endsWith("/");
          if (explicit || script || command || (runs && eq === -1)) add(w, runs && eq === -1);
          // A script python runs has its own folder first on sys.path.
          if (python && runs && eq === -1) for (const d of withCds(w.includes("/") ? w.slice(0, w.lastIndexOf("/")) || "/" : ".")) first?.add(d);
        }
        if (atCommand) {
          // By its path too (/usr/bin/python3 tools/hook, /bin/sh x: the reviewer).
          runs = INTERPRETERS.test(word.slice(word.lastIndexOf("/") + 1));
          python = PYTHON.test(word.slice(word.lastIndexOf("/") + 1));
          cd = word === "cd" || word === "pushd";
          atCommand = false;
        } else if (runs && !word.startsWith("-")) runs = false;
      }
      if (out.size >= MAX_PATHS) return [...out].slice(0, MAX_PATHS);
    }
  }
  return [...out];
}

/** What stands for an expansion bunker cannot know: nothing, or with `tails` the relative path written after it. */
function expandedTail(tail: string, tails: boolean): string {
  return tails && /^\/[\w@+.~-]/.test(tail) ? ` ${tail.slice(1)}` : " $ ";
}

/** Where the expansions a hook or a config may name its scripts through lead, as bunker knows them without running anything. */
export interface KnownDirs {
  /** The repository's top: `$(git rev-parse --show-toplevel)`, and where git runs a hook (`$PWD`, `$(pwd)`). */
  top: string;
  /** The file's own folder: `$(dirname "$0")`, `${0%/*}`, `$(cd "$(dirname "$0")" && pwd)`. */
  self: string;
  /** Its repository's git directory: `$(git rev-parse --git-dir)`, `$GIT_DIR`. */
  gitDir?: string;
  /** The folder VS Code opened (a .vscode file's parent): `${workspaceFolder}`. */
  workspaceFolder?: string;
}

/** `$0` (or bash's `${BASH_SOURCE[0]}`) in a dirname. */
const ZERO = String.raw`(?:\$0|\$\{0\}|\$\{?BASH_SOURCE(?:\[0\])?\}?)`;
const DIRNAME_0 = new RegExp(String.raw`\$\(\s*dirname\s+(?:--\s+)?"?${ZERO}"?\s*\)|\`\s*dirname\s+(?:--\s+)?"?${ZERO}"?\s*\`|\$\{0%/\*\}`, "g");
/** `$(cd "DIR" && pwd)` once DIR is written out: DIR. */
const CD_PWD = /\$\(\s*cd\s+(?:--\s+)?"?([^"$`()\s]+)"?\s*(?:&&|;)\s*pwd(?:\s+-[PL])?\s*\)/g;
const TOPLEVEL = /\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)|`\s*git\s+rev-parse\s+--show-toplevel\s*`|\$\{PWD\}|\$PWD\b|\$\(\s*pwd\s*\)|`\s*pwd\s*`/g;
const GIT_DIR = /\$\(\s*git\s+rev-parse\s+--(?:absolute-)?git-dir\s*\)|\$\{GIT_DIR\}|\$GIT_DIR\b/g;

/**
 * `text` with the expansions whose value is certain written out as that folder (red team 10's F11b: a hook saying
 * `python3 "$(git rev-parse --show-toplevel)/tools/lint.py"`, husky's and pre-commit's `$(dirname "$0")/…`), and a
 * quoted word that is now a plain path unquoted, so namedPaths reads it as the path it is. Any other expansion is
 * left as it is (namedPaths leaves it out).
 */
export function expandKnown(text: string, dirs: KnownDirs): string {
  const $ = (v: string) => () => v; // a replacement taken as it is (a `$` in a folder's name is no pattern)
  let t = text.replace(DIRNAME_0, $(dirs.self)).replace(CD_PWD, (_, d: string) => d).replace(TOPLEVEL, $(dirs.top));
  if (dirs.gitDir) t = t.replace(GIT_DIR, $(dirs.gitDir));
  if (dirs.workspaceFolder) t = t.replaceAll("${workspaceFolder}", dirs.workspaceFolder);
  if (t === text) return t;
  // A variable set to one of those (`HERE="$(cd "$(dirname "$0")" && pwd)"`, then `"$HERE/run.sh"`): its value.
  for (const [, name, value] of t.matchAll(/^\s*(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w*)="?(\/[^"\s$`;&|]*)"?\s*$/gm)) {
    t = t.replace(new RegExp(String.raw`\$\{${name}\}|\$${name}\b`, "g"), () => value!);
  }
  const known = [dirs.top, dirs.self, dirs.gitDir, dirs.workspaceFolder].filter((d): d is string => !!d);
  return t.replace(/"(\/[^"\s$`]*)"/g, (whole, path: string) => (known.some((d) => path === d || path.startsWith(`${d}/`)) ? path : whole));
}

/** Whether a file a hook runs is itself a shell script (whose own literal paths are followed in turn). */
export function isShellScript(path: string, text: string): boolean {
  return /\.(sh|bash|zsh|ksh)$/i.test(path) || /^#!\s*\S*\/(env\s+)?(ba|z|k|da)?sh\b/.test(text);
}
