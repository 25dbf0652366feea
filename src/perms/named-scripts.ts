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
// An interpreter's options that take a value are stepped over with it, by one table per interpreter in run-entry.ts
// (`node --env-file .env tools/lint` runs tools/lint, not .env), and a value that is code or decides what runs is
// named too (`-r ./setup`, `--import`, `--preload`, `--env-file`, ruby's `-r` and perl's `-M` from the folders -I
// names); so are wrappers' (`timeout 60 node x`, `nice -n 10 x`, `env -u A x`: red team 11's R11-06).
import { interpreterOptions, isModuleFlag, moduleArg, moduleFiles, WRAPPER_CHDIR, WRAPPER_OPTIONS, type InterpreterOptions, type OptionLoads } from "./run-entry.ts";

/** Extensions of files an interpreter runs (or a JVM loads): a word ending in one names a script. */
const SCRIPT_EXT = /\.(sh|bash|zsh|fish|ksh|py|pyw|js|mjs|cjs|ts|mts|cts|jsx|tsx|rb|pl|pm|php|lua|tcl|r|ps1|bat|cmd|jar|nix|awk|sed)$/i;

/** What ends one command and starts another (shell separators, a YAML key's colon but not perl's `Foo::Bar`, a JSON or TOML string's quote). */
const STARTERS = /(?:&&|\|\||[;|&(){}"'\n,[\]]|(?<!:):(?!:)|\bthen\b|\bdo\b|\belse\b)/;

/** A variable, a command substitution, or a backquoted one, with the path it begins: what it names is not known. */
const EXPANDED = /(\$\([^)]*\)|\$\{[^}]*\}|\$\w+|\$.|`[^`]*`)[\w@+.~/-]*/g;

/** A word that may be a path: no variable, command substitution, glob, URL or option. */
const PATHLIKE = /^(\/(?!\/))?[\w@+.~-][\w@+.~/-]*$/;

/**
 * Programs whose first word that is not an option is a file they run (`sh precommit`, `python3 tools/check`). Not
 * bun or deno, whose next word is mostly a subcommand (`bun test`): a script they run is taken by its extension.
 */
const INTERPRETERS = /^(source|\.|(ba|z|da|k|fi)?sh|node|nodejs|tsx|ts-node|python[0-9.]*|pypy[0-9.]*|ruby|perl|php|lua|Rscript)$/;

/** Python, by any path or version: `-m NAME` runs a module. */
const PYTHON = /^(python|pypy)[0-9.]*$/;
/** Tools whose `run` runs the command after it in a project's environment (`uv run python -m x`, `poetry run tools/x`). */
const RUNNERS = new Set(["uv", "poetry", "pipenv", "pdm", "hatch", "rye", "pixi"]);

/** At most this many paths are taken from one file (a generated config is not a list of scripts). */
const MAX_PATHS = 200;

/** A PYTHONPATH assignment and its value (quoted, or up to the next blank or separator). */
const PYTHONPATH_SET = /(?:^|[\s;&|(`])PYTHONPATH=("[^"]*"|'[^']*'|[^\s;&|)`]*)/g;

/**
 * The folders a PYTHONPATH value puts on python's module path, as written: an empty entry is the current folder; one
 * with an expansion bunker cannot know (`$PWD/src`, `$(pwd)/lib`) is the path written after it, or, with none, the
 * folder the hook runs in (failing closed: a hook's words).
 */
export function pythonPathDirs(value: string): string[] {
  const v = value.replace(/^(["'])(.*)\1$/, "$2");
  return v.split(":").map((entry) => {
    if (entry === "") return ".";
    const at = entry.search(/[$`]/);
    if (at === -1) return entry;
    const tail = entry.slice(at).replace(/^(?:\$\{[^}]*\}|\$\([^)]*\)|\$\w+|`[^`]*`)\/*/, "");
    return tail === "" || /[$`]/.test(tail) ? "." : tail;
  });
}

/**
 * The literal relative (or absolute) paths `text` names that look like files it runs, as written (`./x`,
 * `scripts/x.sh`); the caller resolves them against the folders they may be read from. Those an interpreter is
 * handed (`node tools`, `python3 tools`: a folder there runs its entry file) are also put in `handed`; the folders
 * python puts first on its module path in `first`. `tails`: a path written after an expansion bunker cannot know
 * (`"$ROOT/tools/lint.py"`) is taken as the same path from the folders it is read from, failing closed (a hook's words).
 */
export function namedPaths(text: string, handed?: Set<string>, first?: Set<string>, tails = false, folders?: Set<string>): string[] {
  const out = new Set<string>();
  // The folders a loop runs the files of (read from each folder a literal cd went to, at the loop's `for`).
  const looped = folders && /\bfor\b/.test(text) ? new Set(loopedFolders(text)) : null;
  // (Each as written here; at its `for`, from a literal cd's folder too.)
  if (looped) for (const d of looped) folders?.add(d);
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
    // PYTHONPATH's folders come before the standard library on python's module path too (red team 13's F08): set on
    // the line (`PYTHONPATH=src python3 -m app.lint`, `env PYTHONPATH=…`) or exported on one before it.
    if (first && line.includes("PYTHONPATH=")) for (const m of line.matchAll(PYTHONPATH_SET)) for (const d of pythonPathDirs(m[1]!)) for (const w of withCds(d)) first.add(w);
    // (perl's `-MFoo=a,b`: the import list is no separator.)
    // (and a quoted folder a path goes on from, `"ci/x.d"/*`, is that path.)
    for (const piece of line.replace(/(\s-[Mm]-?[\w:]+)=\S*/g, "$1").replace(/(["'])([\w@+.~/-]+)\1(?=\/)/g, "$2").replace(EXPANDED, (whole: string, expansion: string) => expandedTail(whole.slice(expansion.length), tails)).split(STARTERS)) {
      // Each piece between separators starts a command: its first word (past wrappers and assignments) is one run.
      let atCommand = true;
      let runs = false;
      let cd = false;
      // A wrapper's state (`timeout 60 node x`): its table, an option's value next, the words it takes before the command.
      let wrapper: (typeof WRAPPER_OPTIONS)[string] | null = null;
      let wrapperValue: string | null = null;
      let positional = 0;
      // The interpreter's options (run-entry.ts's table), still open (before its script), and the option whose value is next.
      let options: InterpreterOptions | null = null;
      let open = false;
      let valueOf: string | null = null;
      // Folders ruby's or perl's -I puts on the load path, and the modules -r / -M load from them (resolved at the end).
      const loadDirs: string[] = [];
      const loadMods: [OptionLoads, string][] = [];
      // The folder this command alone runs in (`env -C tools`, `ruby -C sub`): read from like a cd's, for this piece only.
      let chdirs = 0;
      const chdir = (d: string) => {
        cds.push(d);
        chdirs++;
      };
      // Python's state: the interpreter ran, `-m` came (its module is next).
      let python = false;
      let moduled = false;
      let runner: "tool" | "run" | null = null;
      // `run-parts [options] DIR`: every file in DIR runs (red team 11's F09); its options that take a value.
      let runParts = false;
      let runPartsValue = false;
      // What an option's value loads (R11-06): a file of code, or one that decides what runs.
      const loaded = (option: string, value: string) => {
        const kind = options?.loads[option];
        // php's `-d auto_prepend_file=x` (or auto_append_file): that file runs before (after) the script.
        if (kind === "ini") {
          const ini = /^auto_(?:prepend|append)_file=(.+)$/.exec(value);
          if (ini && PATHLIKE.test(ini[1]!)) add(ini[1]!.replace(/^\.\/+/, "./"));
          return;
        }
        // python's `-X pycache_prefix=DIR`: its bytecode for every module is read from DIR (run in place of the sources).
        if (python && option === "-X") {
          const prefix = /^pycache_prefix=(.+)$/.exec(value)?.[1];
          if (prefix && PATHLIKE.test(prefix)) for (const d of withCds(prefix.replace(/\/+$/, ""))) folders?.add(d);
          return;
        }
        if (kind === "perl" || kind === "lua") {
          loadMods.push([kind, value]);
          return;
        }
        if (!kind || value === "" || !PATHLIKE.test(value)) return;
        const explicit = /^(\.{1,2}\/|\/)/.test(value);
        if (kind === "node") {
          // A bare name is a package node finds in node_modules: installed code, not the project's.
          if (explicit) add(value, true);
        } else if (kind === "file") add(value);
        else if (kind === "script") {
          add(value);
          runs = false;
        } else if (kind === "dir") loadDirs.push(value.replace(/\/+$/, ""));
        else if (kind === "chdir") chdir(value.replace(/\/+$/, ""));
        else if (kind === "ruby" && explicit) for (const f of [value, `${value}.rb`]) add(f);
        else loadMods.push([kind, value]);
      };
      for (const word of piece.trim().split(/\s+/).filter(Boolean)) {
        const eq = word.lastIndexOf("=");
        const w = word.slice(eq + 1).replace(/^\.\/+/, "./");
        const pathlike = PATHLIKE.test(w) && !w.startsWith("-") && !w.startsWith("~");
        if (atCommand && wrapper) {
          if (wrapperValue !== null) {
            // `env -C tools ./lint`, `sudo -D tools …`: the command runs there.
            if (WRAPPER_CHDIR.has(wrapperValue) && PATHLIKE.test(word)) chdir(word.replace(/\/+$/, ""));
            wrapperValue = null;
            continue;
          }
          if (word.startsWith("-") && word !== "-") {
            wrapperValue = wrapper.valued.has(word) ? word : null;
            continue;
          }
          if (positional > 0 && !/^\w+=/.test(word)) {
            positional--;
            continue;
          }
        }
        if (atCommand && Object.hasOwn(WRAPPER_OPTIONS, word)) {
          wrapper = WRAPPER_OPTIONS[word]!;
          positional = wrapper.positional;
          continue;
        }
        if (atCommand && /^\w+=/.test(word)) continue;
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
          moduled = runs = atCommand = open = false;
          continue;
        }
        if (atCommand && runner === "run" && word.startsWith("-")) continue;
        // The interpreter's options, before its script: each one's value is skipped, and what it loads named.
        if (!atCommand && options && open) {
          if (valueOf !== null) {
            loaded(valueOf, word.replace(/^\.\/+/, "./"));
            valueOf = null;
            continue;
          }
          if (python) {
            const named = moduleArg(word, undefined);
            if (isModuleFlag(word) || named !== null) {
              if (named !== null) module(named);
              moduled = named === null;
              runs = moduled;
              open = false;
              continue;
            }
          }
          if (word === "--") {
            open = false;
            continue;
          }
          if (/^[-+]./.test(word)) {
            const long = word.startsWith("--");
            const name = long && word.includes("=") ? word.slice(0, word.indexOf("=")) : long ? word : word.slice(0, 2);
            const attached = long ? (word.includes("=") ? word.slice(word.indexOf("=") + 1) : null) : word.length > 2 ? word.slice(2) : null;
            if (options.inline.has(name)) {
              // `-e CODE`, `-c CODE`: code given inline, no script file (its word, when not attached, is skipped).
              runs = false;
              if (attached === null) valueOf = "";
              open = attached === null;
            } else if (options.valued.has(name) || options.attachedOnly?.has(name)) {
              if (attached !== null) loaded(name, attached.replace(/^\.\/+/, "./"));
              else if (!options.attachedOnly?.has(name)) valueOf = name;
            }
            continue;
          }
          // A subcommand that keeps the options open (`bun run --preload x`); any other word ends them.
          if (!options.subcommands?.has(word)) open = false;
          else continue;
        }
        if (cd) {
          if (pathlike && eq === -1) cds.push(w.replace(/\/+$/, ""));
          cd = false;
        }
        if (atCommand && word === "for" && looped) {
          const list = /^\s*for\s+\w+\s+in\s+(.*)$/.exec(piece)?.[1] ?? "";
          for (const dir of globFolders(list)) if (looped.has(dir)) for (const d of withCds(dir)) folders?.add(d);
          break;
        }
        if (runParts) {
          if (runPartsValue) runPartsValue = false;
          else if (word === "-a" || word === "--arg" || word === "-u" || word === "--umask" || word === "--regex") runPartsValue = true;
          else if (!word.startsWith("-")) {
            if (pathlike) for (const d of withCds(w.replace(/\/+$/, ""))) folders?.add(d);
            runParts = false;
          }
          continue;
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
          options = interpreterOptions(word);
          open = options !== null;
          cd = word === "cd" || word === "pushd";
          runParts = word.slice(word.lastIndexOf("/") + 1) === "run-parts";
          // `find DIR … -exec {} \;` (or `-exec sh {}`): every file found in DIR runs.
          if (word === "find" && folders && /\s-exec(?:dir)?\s+(?:(?:\S*\/)?(?:ba|z|da|k)?sh\s+|(?:\S*\/)?(?:python[0-9.]*|node|bash|perl|ruby)\s+)?["']?\{\}/.test(line)) {
            for (const d of piece.trim().split(/\s+/).slice(1)) {
              if (d.startsWith("-") || d === "!" || d === "(") break;
              if (PATHLIKE.test(d) && d !== ".") for (const c of withCds(d.replace(/\/+$/, "").replace(/^\.\/+/, ""))) folders.add(c);
            }
          }
          atCommand = false;
        } else if (runs && !word.startsWith("-")) runs = false;
      }
      // The modules -r / -M / -l load, from the folders -I put first (ruby's and perl's), or lua's ./?.lua.
      for (const [kind, value] of loadMods) {
        if (kind === "lua") add(`${value.replace(/\./g, "/")}.lua`);
        const file = kind === "ruby" ? `${value}.rb` : kind === "perl" ? `${value.replace(/^-/, "").split("=")[0]!.replaceAll("::", "/")}.pm` : null;
        if (file && /^[\w/.-]+$/.test(file)) for (const d of loadDirs) add(`${d}/${file}`);
      }
      cds.length -= chdirs;
      if (out.size >= MAX_PATHS) return [...out].slice(0, MAX_PATHS);
    }
  }
  return [...out];
}

/** A word standing for a loop's variable where its body runs it: at a command's start, or handed to an interpreter. */
const LOOP_VAR = "__bunker_loop__/f";
const FOR_LOOP = /\bfor\s+([A-Za-z_]\w*)\s+in\s+([^;\n]*?)\s*(?:;|\n)\s*do\b([\s\S]*?)\bdone\b/g;
const GLOB = /[*?[]/;

/**
 * The folders a `for f in DIR/*; do "$f"; done` loop runs every (matching) file of (red team 11's F09): a glob whose
 * last part alone is a pattern, in a loop whose body runs the variable as a command or through an interpreter (`sh
 * "$f"`, `. "$f"`), not one that hands it to a tool as data (`for f in src/*.py; do black "$f"; done`). A file a
 * command adds there runs at the next commit. A glob without a folder (`for f in *.sh`) is the work tree's own
 * files: not taken (the work tree is not made read-only whole).
 */
export function loopedFolders(text: string): string[] {
  const out = new Set<string>();
  for (const [, name, list, body] of text.matchAll(FOR_LOOP)) {
    const v = new RegExp(String.raw`"?\$(?:\{${name}\}|${name}\b)"?`, "g");
    const run = namedPaths(body!.replace(v, LOOP_VAR)).filter((p) => p === LOOP_VAR || p.endsWith(`/${LOOP_VAR}`));
    if (run.length === 0) continue;
    for (const dir of globFolders(list!)) out.add(dir);
    // `for f in $(ls d); do "d/$f"; done`: the folder the body runs a file of.
    for (const p of run) if (p !== LOOP_VAR) out.add(p.slice(0, -LOOP_VAR.length - 1).replace(/^\.\/+/, "").replace(/\/+$/, ""));
  }
  return [...out].filter((d) => d !== "" && d !== ".");
}

/** The folders of a loop's list's globs whose last part alone is a pattern (`scripts/hooks.d/*`, `"ci/pre.d"/*.sh`). */
function globFolders(list: string): string[] {
  const out: string[] = [];
  for (const raw of list.trim().split(/\s+/)) {
    const word = raw.replace(/["']/g, "");
    const slash = word.lastIndexOf("/");
    if (slash <= 0 || !GLOB.test(word.slice(slash + 1))) continue;
    const dir = word.slice(0, slash).replace(/^\.\/+/, "");
    if (!GLOB.test(dir) && PATHLIKE.test(dir) && dir !== ".") out.push(dir);
  }
  return out;
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
