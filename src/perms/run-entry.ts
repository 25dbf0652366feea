// What a program runs when it is handed a module or a folder rather than a file: `python -m tools.lint` runs
// tools/__init__.py then tools/lint.py (or the package tools/lint/'s __init__.py and __main__.py), `python3 tools`
// runs tools/__main__.py, `node tools` runs the file tools/package.json's "main" names, else tools/index.js. One
// answer for both places that need it: the files a hook runs (named-scripts.ts, git-guard.ts: red team 10's F11,
// a hook saying `python3 -m tools.lint` left tools/lint.py writable) and a project MCP server's consent hash
// (mcp/config.ts: red team 9's F09).
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { readRegularSync } from "../fs/file-kind.ts";
import { hostProgram } from "../sandbox/host-program.ts";

/** A Python module's dotted name. */
const MODULE = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/;

/**
 * Python's options that take no value, which may come before `m` in one word (`-Im tools.lint`, `-Bmpkg`: Python
 * reads the letters one by one, and `m` takes the rest of the word or the next one: the reviewer's R10-06).
 */
const COMBINED_M = /^-[bBdEiIOPqsSuvx]*m(.*)$/;

/** Whether `word` is `-m` (or `-Im`…) waiting for its module in the next word. */
export function isModuleFlag(word: string): boolean {
  return COMBINED_M.exec(word)?.[1] === "";
}

/** The module `word` names after `-m` (`-m NAME` as two words: `next`), or as `-mNAME` / `-ImNAME`; null when it names none. */
export function moduleArg(word: string, next: string | undefined): string | null {
  const m = COMBINED_M.exec(word);
  const name = m ? (m[1] === "" ? next : m[1]) : undefined;
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
 * enclosing package's `__init__.py`, or the module file of its name beside it (`tools.py` for `-m tools.lint`:
 * Python takes a module file before a namespace package, a folder without `__init__.py`, and one that sets
 * `__path__` still finds tools/lint.py: red team 12's F14; its .pyc and extension modules follow it, pythonSiblings),
 * and the module as a file, or as a package (its `__init__.py` and `__main__.py`, which Python takes before a
 * file of the same name).
 */
export function moduleFiles(name: string): string[] {
  if (!MODULE.test(name)) return [];
  const parts = name.split(".");
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) out.push(`${parts.slice(0, i).join("/")}/__init__.py`, `${parts.slice(0, i).join("/")}.py`);
  const whole = parts.join("/");
  out.push(`${whole}.py`, `${whole}/__init__.py`, `${whole}/__main__.py`);
  return out;
}

/** What node tries for a path without a file there: its name with these (Module._findPath), or a folder's index. */
const NODE_EXTS = [".js", ".json", ".node", ".mjs", ".cjs"];

/**
 * The files node tries for a word it is handed before the word as a folder (`node tools`: tools.js, tools.json,
 * tools.node, then tools/; `node tools/x`: tools/x.js…): one a command makes beside a guarded folder runs instead
 * (the reviewer's R10-14).
 */
export function nodeCandidates(path: string): string[] {
  return NODE_EXTS.map((e) => path + e);
}
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

/** Why Python's cached bytecode of a guarded module is removed after a command (Python compiles it anew from the source). */
export const BYTECODE_WHY = "Python runs this cached bytecode in place of";

/**
 * What Python may run in place of the source NAME.py (the reviewer's R10-06): its cached bytecode
 * `__pycache__/NAME.<tag>.pyc` (taken when its header records the source's time and size, which a command can
 * write), an extension module NAME.so / NAME.<tag>.so / NAME.pyd (taken before the source), a sourceless NAME.pyc
 * (taken when the source is gone). Those there now, from the listings `list` gives (a folder's names, or []); each
 * with whether it is a cache (removed after a command) or a file that wins over the source (set aside).
 */
export function pythonSiblings(file: string, list: (dir: string) => readonly string[] = folderNames, isLink: (p: string) => boolean = isLinkPath): { path: string; cache: boolean }[] {
  if (!file.endsWith(".py")) return [];
  const dir = dirname(file);
  const stem = basename(file).slice(0, -3);
  const out: { path: string; cache: boolean }[] = [];
  for (const name of list(dir)) if (isPythonSibling(stem, name)) out.push({ path: join(dir, name), cache: false });
  // A __pycache__ that is a link leads Python to bytecode kept elsewhere: the link itself counts (set aside whole).
  const cache = join(dir, "__pycache__");
  if (isLink(cache)) out.push({ path: cache, cache: false });
  else for (const name of list(cache)) if (name.startsWith(`${stem}.`) && name.endsWith(".pyc")) out.push({ path: join(cache, name), cache: true });
  return out;
}

/** `name` (in NAME.py's folder) is one Python takes for the module NAME other than its source. */
function isPythonSibling(stem: string, name: string): boolean {
  if (name === `${stem}.pyc`) return true;
  return name.startsWith(`${stem}.`) && /\.(so|pyd)$/.test(name);
}

/**
 * The guarded source `path` stands in for, when it is one of pythonSiblings' names (there or not: a command's new
 * one is asked about by the name alone), or null.
 */
export function pythonSourceOf(path: string): { source: string; cache: boolean } | null {
  const dir = dirname(path);
  const name = basename(path);
  if (name === "__pycache__") return null;
  if (basename(dir) === "__pycache__") {
    const m = /^([^.]+)\.[^/]*\.pyc$/.exec(name);
    return m ? { source: join(dirname(dir), `${m[1]}.py`), cache: true } : null;
  }
  const m = /^([^.]+)(\.[^/]*)?\.(so|pyd)$/.exec(name) ?? /^([^.]+)\.pyc$/.exec(name);
  return m ? { source: join(dir, `${m[1]}.py`), cache: false } : null;
}

/** Whether `path` is a symbolic link (not followed). */
function isLinkPath(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** A folder's names, or none (not there, not a folder). */
export function folderNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A top-level module's name: what Python imports by `import NAME`. */
const MODULE_NAME = /^[A-Za-z_]\w*$/;

/** The folder of which `p` is a top-level module (NAME.py, NAME.pyc, NAME*.so, NAME/__init__.py), or null. */
export function moduleIn(p: string): { dir: string } | null {
  const name = basename(p);
  if (/^__init__\.(py|pyc)$/.test(name) && MODULE_NAME.test(basename(dirname(p)))) return { dir: dirname(dirname(p)) };
  const stem = name.split(".")[0]!;
  return MODULE_NAME.test(stem) && /^[^.]+(\.py|\.pyc|(\.[^/]*)?\.(so|pyd))$/.test(name) ? { dir: dirname(p) } : null;
}

/**
 * Python's standard library, by top-level module name (sys.stdlib_module_names of CPython 3.11, the private ones
 * too): a module of one of these names where a hook's python looks first is imported in place of the standard one,
 * by the hook's code or the standard library's own. Any other new module there (utils.py, an api/ package) is the
 * project's ordinary work, imported only where its own code names it (reviewer's R11-02).
 */
const PYTHON_STDLIB = new Set([
  "__future__ _abc _aix_support _ast _asyncio _bisect _blake2 _bootsubprocess _bz2 _codecs _codecs_cn _codecs_hk",
  "_codecs_iso2022 _codecs_jp _codecs_kr _codecs_tw _collections _collections_abc _compat_pickle _compression",
  "_contextvars _crypt _csv _ctypes _curses _curses_panel _datetime _dbm _decimal _elementtree _frozen_importlib",
  "_frozen_importlib_external _functools _gdbm _hashlib _heapq _imp _io _json _locale _lsprof _lzma _markupbase",
  "_md5 _msi _multibytecodec _multiprocessing _opcode _operator _osx_support _overlapped _pickle _posixshmem",
  "_posixsubprocess _py_abc _pydecimal _pyio _queue _random _scproxy _sha1 _sha256 _sha3 _sha512 _signal",
  "_sitebuiltins _socket _sqlite3 _sre _ssl _stat _statistics _string _strptime _struct _symtable _thread",
  "_threading_local _tkinter _tokenize _tracemalloc _typing _uuid _warnings _weakref _weakrefset _winapi",
  "_zoneinfo abc aifc antigravity argparse array ast asynchat asyncio asyncore atexit audioop base64 bdb",
  "binascii bisect builtins bz2 cProfile calendar cgi cgitb chunk cmath cmd code codecs codeop collections",
  "colorsys compileall concurrent configparser contextlib contextvars copy copyreg crypt csv ctypes curses",
  "dataclasses datetime dbm decimal difflib dis distutils doctest email encodings ensurepip enum errno",
  "faulthandler fcntl filecmp fileinput fnmatch fractions ftplib functools gc genericpath getopt getpass gettext",
  "glob graphlib grp gzip hashlib heapq hmac html http idlelib imaplib imghdr imp importlib inspect io ipaddress",
  "itertools json keyword lib2to3 linecache locale logging lzma mailbox mailcap marshal math mimetypes mmap",
  "modulefinder msilib msvcrt multiprocessing netrc nis nntplib nt ntpath nturl2path numbers opcode operator",
  "optparse os ossaudiodev pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix posixpath",
  "pprint profile pstats pty pwd py_compile pyclbr pydoc pydoc_data pyexpat queue quopri random re readline",
  "reprlib resource rlcompleter runpy sched secrets select selectors shelve shlex shutil signal site smtpd",
  "smtplib sndhdr socket socketserver spwd sqlite3 sre_compile sre_constants sre_parse ssl stat statistics",
  "string stringprep struct subprocess sunau symtable sys sysconfig syslog tabnanny tarfile telnetlib tempfile",
  "termios textwrap this threading time timeit tkinter token tokenize tomllib trace traceback tracemalloc tty",
  "turtle turtledemo types typing unicodedata unittest urllib uu uuid venv warnings wave weakref webbrowser",
  "winreg winsound wsgiref xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo",
].join(" ").split(" "));

/**
 * Whether the module at `p` (moduleIn's reading) has the name of one python imports from elsewhere: the standard
 * library's, or a package installed where the host's python3 looks (site-packages, dist-packages, the user's).
 */
export function shadowsStandardModule(p: string, folder: string = moduleIn(p)?.dir ?? dirname(p)): boolean {
  const name = basename(p);
  const top = /^__init__\.(py|pyc)$/.test(name) ? basename(dirname(p)) : name.split(".")[0]!;
  if (PYTHON_STDLIB.has(top) || installedPythonModules().has(top)) return true;
  // The folder python puts first, and the two above it (a script's tools/ folder in a project with .venv/ at its top).
  for (let d = folder, up = 0; up < 3; d = dirname(d), up++) if (venvModulesBeside(d).has(top)) return true;
  return false;
}

const venvNames = new Map<string, Set<string>>();

/**
 * The top-level names installed in the virtual environments in `folder` (`.venv/`, `venv/`: a folder holding a
 * pyvenv.cfg), whose python a hook may run (`.venv/bin/python -m tools.lint`) and which imports them by name
 * (reviewer's R11-16). Read once a folder.
 */
function venvModulesBeside(folder: string): Set<string> {
  const known = venvNames.get(folder);
  if (known) return known;
  const names = new Set<string>();
  venvNames.set(folder, names);
  for (const e of folderNames(folder)) {
    if (!existsSync(join(folder, e, "pyvenv.cfg"))) continue;
    const libs = folderNames(join(folder, e, "lib")).filter((l) => l.startsWith("python"));
    for (const l of libs) addModuleNames(join(folder, e, "lib", l, "site-packages"), names, { left: MAX_INSTALLED_ENTRIES });
  }
  return names;
}

/** The top-level module names in one folder of python's path, within the budget left. */
function addModuleNames(dir: string, into: Set<string>, budget: { left: number }): void {
  for (const n of folderNames(dir)) {
    if (--budget.left < 0) return;
    if (n.endsWith(".dist-info") || n.endsWith(".egg-info") || n === "__pycache__") continue;
    const top = n.split(".")[0]!;
    if (MODULE_NAME.test(top)) into.add(top);
  }
}

/** Most entries read from the folders python3 looks in for installed packages. */
const MAX_INSTALLED_ENTRIES = 20_000;
let installed: Set<string> | undefined;

/**
 * The top-level names installed for the host's python3 (one no command can have put on PATH: host-program.ts), asked of
 * it once (-E: no PYTHON* variables; run from /, whose entry is left out), then read from its path's folders. Empty when
 * there is no python3 to ask (then nothing installed can be shadowed either).
 */
function installedPythonModules(): Set<string> {
  if (installed) return installed;
  installed = new Set();
  const python = hostProgram("python3");
  if (!python) return installed;
  const r = Bun.spawnSync([python, "-E", "-c", "import sys; print('\\n'.join(p for p in sys.path if p))"], { cwd: "/", stdout: "pipe", stderr: "ignore", timeout: 5_000 });
  if (r.exitCode !== 0) return installed;
  const budget = { left: MAX_INSTALLED_ENTRIES };
  for (const dir of r.stdout.toString().split("\n")) if (dir.startsWith("/")) addModuleNames(dir, installed, budget);
  return installed;
}

/** The top-level modules in `dir` now (a package by its __init__), as moduleIn reads them. */
export function pythonModulesIn(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    const p = join(dir, e.name);
    // A package (through a link too, as Python follows it), or a module file.
    if ((e.isDirectory() || e.isSymbolicLink()) && MODULE_NAME.test(e.name)) for (const init of ["__init__.py", "__init__.pyc"]) if (existsSync(join(p, init))) out.push(join(p, init));
    if (!e.isDirectory() && moduleIn(p)) out.push(p);
  }
  return out;
}

/**
 * What an interpreter's option's value is, when it is more than a setting: a file of code it loads first or a file
 * that decides what runs (red team 11's R11-06). `node`: a module node requires (`-r ./setup`: a path resolved as
 * require does; a bare name is a package from node_modules); `file`: a file read as it is written (`--env-file .env`,
 * whose NODE_OPTIONS runs code; a config); `dir`: a folder put on the load path (ruby's and perl's -I), where the
 * `ruby` / `perl` / `lua` modules named by -r / -M / -l are looked for; `ini`: php's `-d auto_prepend_file=x`;
 * `script`: the script itself (`php -f x.php`); `chdir`: the folder it runs in, which its script's path is read from (`ruby -C tools lint.rb`).
 */
export type OptionLoads = "node" | "file" | "dir" | "ruby" | "perl" | "lua" | "ini" | "script" | "chdir";

/** One interpreter's options: the one table the hook reader skips values by (named-scripts.ts). */
export interface InterpreterOptions {
  /** Options whose value is the next word (also written `--opt=value`, and a short one's attached: `-Ilib`). */
  valued: ReadonlySet<string>;
  /** Of those, the ones whose value is code or a file that decides what runs (OptionLoads). */
  loads: Readonly<Record<string, OptionLoads>>;
  /** Options that run code given inline (`-e CODE`, `-c CODE`): the interpreter then runs no script file. */
  inline: ReadonlySet<string>;
  /** Subcommands after which options are still the interpreter's (`bun run --preload x`, `deno run --config x`). */
  subcommands?: ReadonlySet<string>;
  /** Options of `loads` whose value is only ever attached (perl's `-MFoo`): they never take the next word. */
  attachedOnly?: ReadonlySet<string>;
}

const words = (s: string) => s.split(" ").filter(Boolean);
const opts = (valued: string, loads: Record<string, OptionLoads> = {}, inline = "", subcommands = "", attachedOnly = ""): InterpreterOptions => ({
  valued: new Set([...words(valued), ...Object.keys(loads).filter((o) => !words(attachedOnly).includes(o))]),
  loads,
  inline: new Set(words(inline)),
  ...(subcommands ? { subcommands: new Set(words(subcommands)) } : {}),
  ...(attachedOnly ? { attachedOnly: new Set(words(attachedOnly)) } : {}),
});

const NODE_LOADS: Record<string, OptionLoads> = {
  "-r": "node", "--require": "node", "--import": "node", "--loader": "node", "--experimental-loader": "node",
  "--env-file": "file", "--env-file-if-exists": "file", "--experimental-config-file": "file", "--openssl-config": "file",
  "--snapshot-blob": "file", "--experimental-policy": "file",
};
const NODE_VALUED =
  "--input-type --conditions -C --title --stack-size --max-old-space-size --max-semi-space-size --inspect-port --icu-data-dir " +
  "--redirect-warnings --diagnostic-dir --report-dir --report-directory --report-filename --report-signal --cpu-prof-dir " +
  "--cpu-prof-name --cpu-prof-interval --heap-prof-dir --heap-prof-name --heap-prof-interval --watch-path --disable-warning " +
  "--secure-heap --secure-heap-min --unhandled-rejections --dns-result-order --tls-cipher-list --tls-keylog " +
  "--trace-event-categories --trace-event-file-pattern --policy-integrity --test-reporter --test-reporter-destination " +
  "--test-name-pattern --test-skip-pattern --test-concurrency --localstorage-file --run --watch-kill-signal --use-largepages " +
  "--heapsnapshot-signal --heapsnapshot-near-heap-limit --experimental-sea-config --env-file-if-exists";
const NODE = opts(NODE_VALUED, NODE_LOADS, "-e --eval -p --print");

/** By the program's name (its path's last part). */
const INTERPRETER_OPTIONS: Record<string, InterpreterOptions> = {
  python: opts("-W -X -Q --check-hash-based-pycs", {}, "-c"),
  node: NODE,
  tsx: opts(`${NODE_VALUED} --tsconfig`, NODE_LOADS, "-e --eval -p --print"),
  "ts-node": opts(`${NODE_VALUED} -O --compiler-options --scope-dir -I --ignore --compiler-host`, { ...NODE_LOADS, "-P": "file", "--project": "file", "-C": "node", "--compiler": "node", "--cwd": "chdir", "--dir": "chdir" }, "-e --eval -p --print"),
  bun: opts(
    "-d --define -l --loader --port --main-fields --conditions --extension-order --jsx-factory --jsx-fragment --jsx-import-source " +
      "--jsx-runtime --elide-lines --filter -F --console-depth --fetch-preconnect --max-http-header-size --dns-result-order --shell " +
      "--user-agent --install -i --unhandled-rejections --title --timeout -t --test-name-pattern --rerun-each --seed",
    { "-r": "node", "--require": "node", "--preload": "node", "--import": "node", "--env-file": "file", "-c": "file", "--config": "file", "--tsconfig-override": "file", "--cwd": "chdir" },
    "-e --eval -p --print",
    "run test x exec",
  ),
  deno: opts("--location --seed --cert --lock --inspect --allow-read --allow-write --allow-net --allow-env --allow-run --allow-ffi --allow-sys --unstable --ext --reload -L --log-level", { "-c": "file", "--config": "file", "--import-map": "file", "--env-file": "file", "--preload": "node" }, "", "run test eval serve task"),
  ruby: opts("-E --encoding --external-encoding --internal-encoding --enable --disable --dump --backtrace-limit --crash-report", { "-I": "dir", "-r": "ruby", "-C": "chdir" }, "-e"),
  // (-C, -x, -l, -0, -i and -D take only an attached value, if any.)
  perl: opts("", { "-I": "dir", "-M": "perl", "-m": "perl" }, "-e -E", "", "-M -m"),
  php: opts("-t -S -a", { "-c": "file", "-d": "ini", "-z": "file", "-f": "script" }, "-r -B -R -E"),
  sh: opts("-o +o -O +O", { "--rcfile": "file", "--init-file": "file" }, "-c"),
  lua: opts("", { "-l": "lua" }, "-e"),
  Rscript: opts("--default-packages", {}, "-e"),
};

/** The options table of the program `word` runs (by its name: python3.12, /usr/bin/node, bash), or null. */
export function interpreterOptions(word: string): InterpreterOptions | null {
  const name = word.slice(word.lastIndexOf("/") + 1);
  if (/^(python|pypy)[0-9.]*$/.test(name)) return INTERPRETER_OPTIONS.python!;
  if (/^(ba|z|da|k|fi)?sh$/.test(name)) return INTERPRETER_OPTIONS.sh!;
  if (name === "nodejs") return INTERPRETER_OPTIONS.node!;
  if (/^lua(jit|[0-9.]*)$/.test(name)) return INTERPRETER_OPTIONS.lua!;
  if (/^(ruby|perl|php)[0-9.]*$/.test(name)) return INTERPRETER_OPTIONS[name.replace(/[0-9.]+$/, "")]!;
  return Object.hasOwn(INTERPRETER_OPTIONS, name) ? INTERPRETER_OPTIONS[name]! : null;
}

/**
 * Programs that run the command after them (`timeout 60 node x`, `nice -n 10 x`, `env -u A x`): their options that
 * take a value, and how many words they take before the command (timeout's duration, flock's lock file, taskset's
 * mask, chrt's priority). The hook reader steps over them to the command (R11-06); a value of WRAPPER_CHDIR's is the
 * folder the command runs in.
 */
export const WRAPPER_CHDIR = new Set(["-C", "--chdir", "-D"]);

export const WRAPPER_OPTIONS: Readonly<Record<string, { valued: ReadonlySet<string>; positional: number }>> = Object.fromEntries(
  (
    [
      ["exec", "-a", 0],
      ["env", "-u --unset -C --chdir -S --split-string --block-signal --default-signal --ignore-signal", 0],
      ["command", "", 0],
      ["builtin", "", 0],
      ["nohup", "", 0],
      ["setsid", "", 0],
      ["time", "-f --format -o --output", 0],
      ["nice", "-n --adjustment", 0],
      ["ionice", "-c --class -n --classdata", 0],
      ["stdbuf", "-i -o -e --input --output --error", 0],
      ["timeout", "-s --signal -k --kill-after", 1],
      ["xargs", "-a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs -s --max-chars --process-slot-var", 0],
      ["sudo", "-u --user -g --group -C --close-from -D --chdir -h --host -p --prompt -r --role -t --type -T --command-timeout -U --other-user", 0],
      ["doas", "-u -C", 0],
      ["chrt", "", 1],
      ["taskset", "", 1],
      ["flock", "-w --timeout --wait -E --conflict-exit-code", 1],
      ["unbuffer", "", 0],
      ["chronic", "", 0],
    ] as const
  ).map(([name, valued, positional]) => [name, { valued: new Set(valued.split(" ").filter(Boolean)), positional }]),
);
