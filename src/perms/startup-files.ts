// The files in the person's home that their shells and tools read and run
// later without asking (red team 6's F10i): a dotfiles workspace links them
// into itself (GNU stow: ~/.bashrc -> ~/dotfiles/bash/.bashrc), so a command
// that appends to the workspace's file runs in the person's next terminal,
// unconfined. One list, here: git's own config files (git-guard.ts guards
// those with what they include), and the rest, which runs-later.ts counts
// as runs-later wherever they lead (read-only to commands, a new one set
// aside, a write tool asks). A folder entry covers everything in it
// (~/.config/fish holds conf.d/ and functions/, which fish sources).
import { lstatSync, opendirSync, readlinkSync, statSync, type Dir, type Stats } from "node:fs";
import { readRegularSync } from "../fs/file-kind.ts";
import { homedir, xdgConfigHome } from "../fs/home.ts";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { isWithin, realpathLoose } from "./workspace.ts";
import { pathValue } from "./path-value.ts";

type Env = Record<string, string | undefined>;

export interface StartupFile {
  /** The path as the person's tools name it (in the home, or from an environment variable). */
  path: string;
  /** A folder whose every file is read (fish's conf.d, vim's plugin/). */
  folder: boolean;
  /** git's config: guarded by git-guard.ts (with the files it includes), not by this module's matcher. */
  git: boolean;
  /** What runs it, for the prompt and the set-aside line. */
  why: string;
}

const SHELL = "your shell runs it when it starts: what it says runs in your next terminal";
const READLINE = "readline reads it in every shell: a key binding in it can type and run a command";
const EDITOR = "your editor runs it when it starts";
const SESSION = "your desktop session runs it when you log in";
const TMUX = "tmux runs what it names (run-shell, if-shell) when it starts";
const SSH = "ssh runs the ProxyCommand, LocalCommand and Match exec it names";

/** Files (relative to the home) and what reads them. `/` at the end: a folder. */
const HOME_FILES: readonly [string, string][] = [
  ...[".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile", ".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".tcshrc", ".cshrc", ".login"].map((f) => [f, SHELL] as [string, string]),
  [".inputrc", READLINE],
  [".vimrc", EDITOR], [".vim/", EDITOR], [".exrc", EDITOR], [".emacs", EDITOR], [".emacs.d/", EDITOR], [".nanorc", EDITOR],
  [".tmux.conf", TMUX],
  [".ssh/config", SSH],
  [".direnvrc", "direnv runs it before every .envrc"],
  [".psqlrc", "psql runs it when it starts (\\! runs a shell command)"],
  [".xprofile", SESSION], [".xsessionrc", SESSION], [".xinitrc", SESSION],
];

/** Under $XDG_CONFIG_HOME (~/.config). */
const XDG_FILES: readonly [string, string][] = [
  ["fish/", SHELL], ["nushell/", SHELL], ["readline/inputrc", READLINE],
  ["nvim/", EDITOR], ["vim/", EDITOR], ["emacs/", EDITOR],
  ["tmux/", TMUX],
  ["direnv/", "direnv runs its direnvrc and lib/ before every .envrc"],
  ["autostart/", SESSION], ["systemd/user/", "systemd runs the services in it for you"],
  // bunker's own user settings (a dotfiles workspace links them in): their rules and MCP servers hold in every session.
  ["bunker/", "bunker obeys your settings in every session (their allow rules and MCP servers)"],
];

/** Variables that name a file a shell or tool sources (when absolute). */
const ENV_FILES: readonly [string, string][] = [
  ["BASH_ENV", "every non-interactive bash runs it first (BASH_ENV names it)"],
  ["ENV", "sh and bash in POSIX mode run it when they start (ENV names it)"],
  ["INPUTRC", READLINE],
  ["PYTHONSTARTUP", "an interactive python runs it when it starts (PYTHONSTARTUP names it)"],
];

/** git's own config files (global and XDG), not its credential store: `git` works as the person set it up. */
export function gitConfigFiles(env: Env, home: string): string[] {
  return startupFiles(env, home).filter((f) => f.git).map((f) => f.path);
}

/** Every file and folder of the list for this person (home, environment), git's first. */
export function startupFiles(env: Env, home: string): StartupFile[] {
  const xdg = xdgConfigHome(env, home);
  const git = "git obeys it in every repository (core.fsmonitor, hooks, aliases run programs)";
  const out: StartupFile[] = [join(home, ".gitconfig"), ...["config", "ignore", "attributes"].map((f) => join(xdg, "git", f))].map((path) => ({ path, folder: false, git: true, why: git }));
  if (env.GIT_CONFIG_GLOBAL && isAbsolute(env.GIT_CONFIG_GLOBAL)) out.push({ path: env.GIT_CONFIG_GLOBAL, folder: false, git: true, why: git });
  const add = (dir: string, [rel, why]: [string, string]) => out.push({ path: join(dir, rel), folder: rel.endsWith("/"), git: false, why });
  for (const f of HOME_FILES) add(home, f);
  // zsh reads all but .zshenv's first look from $ZDOTDIR when it is set.
  const zdot = env.ZDOTDIR && isAbsolute(env.ZDOTDIR) ? env.ZDOTDIR : null;
  if (zdot) for (const f of [".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout"]) add(zdot, [f, SHELL]);
  for (const f of XDG_FILES) add(xdg, f);
  for (const [name, why] of ENV_FILES) {
    const v = env[name];
    if (v && isAbsolute(v)) out.push({ path: v, folder: false, git: false, why });
  }
  return out;
}

/** Which files run later as one of the person's startup files, with a key that changes when where they lead does. */
export interface StartupMatch {
  key: string;
  match(real: string): string | null;
  /**
   * The folders the person's shell startup files put on PATH (`export PATH="$HOME/dotfiles/bin:$PATH"`), before and
   * after what it had: the PATH of their next terminal, which bunker's own may lack (started from an editor).
   */
  path: { before: string[]; after: string[] };
}

/**
 * Why `real` (a physical path) is, or is in, one of the person's startup files other than git's: by its own name
 * (a workspace that is the home) or where the name leads now (a link into a dotfiles workspace, a link to a folder
 * above it: ~/.config/fish -> ~/dotfiles/fish).
 */
export function startupMatcher(env: Env = process.env, home: string = env.HOME || homedir(), roots: readonly string[] = []): StartupMatch {
  const files = new Map<string, string>();
  const folders: { dir: string; why: string }[] = [];
  // A startup file with a second name (a hard link: `ln ~/dotfiles/bashrc ~/.bashrc`) → what it is.
  const inodes = new Map<string, string>();
  const shownOf = (p: string) => (isWithin(home, p) ? `~/${relative(home, p)}` : p);
  const path = { before: [] as string[], after: [] as string[] };
  // `via`: the startup file that sources it.
  const add = (path_: string, folder: boolean, why: string, depth: number, via?: string) => {
    const real = realOrSelf(path_);
    const what = via ? `${via} sources ${folder ? "what is in it" : "it"}` : `it is ${folder ? "in " : ""}${shownOf(path_)}`;
    for (const p of new Set([path_, real])) {
      if (folder) folders.push({ dir: p, why: `${why} (${what})` });
      else if (!files.has(p)) files.set(p, `${why} (${what})`);
    }
    if (folder) return;
    const st = statOrNull(real);
    if (st && st.nlink > 1) inodes.set(`${st.dev}:${st.ino}`, `${why} (${what}, by a second name)`);
    // What a shell startup file sources runs as it does (`. ~/dotfiles/bash/aliases.sh`, `source $HOME/.bash.d/*`).
    if (why === SHELL && st?.isFile() && depth < MAX_SOURCE_DEPTH) {
      const read = readShellFile(real, home);
      path.before.unshift(...read.pathBefore);
      path.after.push(...read.pathAfter);
      for (const s of read.sourced) if (!files.has(s.path)) add(s.path, s.folder, SHELL, depth + 1, shownOf(path_));
    }
    // What ssh's config includes, and what tmux's sources, are read as they are (red team 8 F23: a ProxyCommand in a
    // file ~/.ssh/config includes ran at the next ssh).
    if ((why === SSH || why === TMUX) && st?.isFile() && depth < MAX_SOURCE_DEPTH) {
      for (const s of readIncludes(real, home, why === SSH ? "ssh" : "tmux")) if (!files.has(s.path)) add(s.path, s.folder, why, depth + 1, shownOf(path_));
    }
  };
  for (const f of startupFiles(env, home)) if (!f.git) add(f.path, f.folder, f.why, 0);
  // Whatever a dot-entry of the home leads to, whatever its name (GNU stow: ~/.gdbinit -> dotfiles/gdbinit,
  // ~/.config/starship.toml -> …): the program that reads it runs what it says (red team 10's F01). Every hop of the
  // way, so a command cannot put a file of its own in place of a link on it.
  for (const link of dotEntryLinks(home, xdgConfigHome(env, home))) {
    for (const hop of linkHops(link)) {
      const folder = statOrNull(hop)?.isDirectory() === true;
      // A link to a folder that holds the folder the person works in (~/.ipython -> the repository bunker runs in, or
      // one above it) makes what a command writes there the program's to run (the reviewer's R10-10): the workspace's
      // part of it runs later as any other dot-entry's target. Not a link to the whole file system or the home
      // (wine's ~/.wine/dosdevices/z: -> /), which no program reads as its own folder.
      if (folder && (holdsHome(realOrSelf(hop), home) || isRepositoryHandle(link, home))) continue;
      const why = `${DOT_ENTRY} (${shownOf(link)} leads here)`;
      for (const p of new Set([hop, realOrSelf(hop)])) {
        if (folder) folders.push({ dir: p, why });
        else if (!files.has(p)) files.set(p, why);
      }
    }
  }
  return {
    key: [...files.keys(), ...folders.map((f) => f.dir), ...inodes.keys(), "PATH", ...path.before, "$PATH", ...path.after].join("\0"),
    path,
    match: (real) => {
      const file = files.get(real);
      if (file) return file;
      const folder = folders.find((f) => real !== f.dir && isWithin(f.dir, real));
      if (folder) return folder.why;
      if (inodes.size === 0) return null;
      const st = statOrNull(real);
      return st ? (inodes.get(`${st.dev}:${st.ino}`) ?? null) : null;
    },
  };
}

const DOT_ENTRY = "a dot-entry of your home: the program that reads it runs what it says";

/**
 * The roots (the workspace, granted write folders) a dot-entry of the home leads into, each with that dot-entry as
 * the person names it (~/.ipython -> the workspace, or to a folder holding it: the reviewer's R10-10). Every file
 * there is one the program reading that folder runs or obeys, so commands get it read-only whole (one mount: a
 * file-by-file guard of a whole repository costs bubblewrap seconds a command), and the write tools ask.
 */
export function rootsDotEntriesLeadTo(roots: readonly string[], env: Env = process.env, home: string = env.HOME || homedir()): { root: string; link: string }[] {
  const out: { root: string; link: string }[] = [];
  for (const link of dotEntryLinks(home, xdgConfigHome(env, home))) {
    for (const hop of linkHops(link)) {
      const real = realOrSelf(hop);
      if (holdsHome(real, home) || isRepositoryHandle(link, home) || statOrNull(hop)?.isDirectory() !== true) continue;
      for (const root of roots) if (isWithin(real, root) && !out.some((o) => o.root === root)) out.push({ root, link: isWithin(home, link) ? `~/${relative(home, link)}` : link });
    }
  }
  return out;
}

/**
 * ~/.dotfiles, ~/.dots and the like: the person's handle on their dotfiles repository, which no program reads as its
 * folder (the files in it that programs read are reached through their own links, ~/.bashrc -> .dotfiles/bashrc, and
 * guarded one by one). Counted as a program's folder, working in that repository could write nothing (reviewer's R11-04).
 * A name missed here only errs the strict way.
 */
const REPOSITORY_HANDLES = new Set([".dots", ".dot", ".cfg", ".homesick", ".homeshick", ".rcs", ".mydotfiles"]);
function isRepositoryHandle(link: string, home: string): boolean {
  if (dirname(link) !== home) return false;
  const name = basename(link);
  return name.startsWith(".dotfiles") || REPOSITORY_HANDLES.has(name);
}

/** Whether `dir` is the home or a folder above it (`/`): a link there leads to everything, not to one program's files. */
function holdsHome(dir: string, home: string): boolean {
  return isWithin(dir, realOrSelf(home));
}

/** How many entries of the home's dot-folders are read looking for links, shallowest first (a link stow makes is near the top). */
const DOT_LINK_BUDGET = 20_000;
/** How deep into a dot-folder (~/.config/nvim/lua/x.lua is 3 below ~/.config). */
const DOT_LINK_DEPTH = 3;
/** Dot-folders no dotfiles manager links into, and that hold the most entries: caches, data (not ~/.local/bin). */
const NOT_CONFIG = new Set([".cache", ".npm", ".rustup", ".m2", ".gradle", ".nvm", ".pyenv", ".bun", ".local/share", ".local/state"]);

let walked: { key: string; links: string[]; dirs: Map<string, number> } | undefined;

/** Whether every folder a walk read is as it was then (a link made in one changes its mtime). */
function unchanged(dirs: ReadonlyMap<string, number>): boolean {
  for (const [dir, mtime] of dirs) if ((lstatOrNull(dir)?.mtimeMs ?? -1) !== mtime) return false;
  return true;
}

/**
 * The symbolic links among the home's dot-entries and in its dot-folders (XDG's config folder first), breadth first,
 * within DOT_LINK_BUDGET entries read; a link to a folder is not walked into (what it leads to is guarded whole).
 * Walked once while the home's and the config folder's own entries stay as they are (every command asks: reviewer's
 * R10-01, 170 ms a command with a big cache before the budget counted what a folder holds).
 */
export function dotEntryLinks(home: string, xdg: string = join(home, ".config")): string[] {
  const key = `${home}\0${xdg}\0${statOrNull(home)?.mtimeMs}\0${statOrNull(xdg)?.mtimeMs}`;
  // Walked again when any folder it read changed: a link an earlier command made deep in a granted dot-folder
  // (~/.config/nvim/lua -> the workspace) counts from the next command on (red team 11's F08). A stat per folder read.
  if (walked?.key === key && unchanged(walked.dirs)) return walked.links;
  const dirs = new Map<string, number>();
  let budget = DOT_LINK_BUDGET;
  type Entry = { path: string; kind: "link" | "dir" | "other" };
  const read = (dir: string, only: (name: string) => boolean = () => true): Entry[] => {
    const out: Entry[] = [];
    // Its mtime before it is read: a change while it is read is seen by the next look.
    dirs.set(dir, lstatOrNull(dir)?.mtimeMs ?? -1);
    let d: Dir;
    try {
      d = opendirSync(dir);
    } catch {
      return out;
    }
    try {
      for (let e = d.readSync(); e !== null && budget > 0; e = d.readSync()) {
        budget--;
        const path = join(dir, e.name);
        if (!only(e.name) || NOT_CONFIG.has(relative(home, path))) continue;
        // A file system that gives no type in the listing: asked of the entry itself.
        const st = e.isSymbolicLink() || e.isDirectory() || e.isFile() ? null : lstatOrNull(path);
        const kind = e.isSymbolicLink() || st?.isSymbolicLink() ? "link" : e.isDirectory() || st?.isDirectory() ? "dir" : "other";
        out.push({ path, kind });
      }
    } catch {
      // unreadable part way: what was read counts
    } finally {
      d.closeSync();
    }
    return out.sort((x, y) => (x.path < y.path ? -1 : 1));
  };
  const xdgEntry = (): Entry[] => {
    const st = lstatOrNull(xdg);
    return st ? [{ path: xdg, kind: st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : "other" }] : [];
  };
  let level: Entry[] = [...xdgEntry(), ...read(home, (n) => n.startsWith(".") && join(home, n) !== xdg)];
  const links: string[] = [];
  for (let depth = 0; depth <= DOT_LINK_DEPTH && level.length > 0; depth++) {
    const next: Entry[] = [];
    for (const e of level) {
      if (e.kind === "link") links.push(e.path);
      else if (e.kind === "dir" && depth < DOT_LINK_DEPTH && budget > 0) next.push(...read(e.path));
    }
    level = next;
  }
  walked = { key, links, dirs };
  return links;
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/** A link and every path its chain of links passes through, to the last (at most 16 hops, as the kernel allows 40). */
function linkHops(link: string): string[] {
  const hops = [link];
  let at = link;
  for (let i = 0; i < 16; i++) {
    let target: string;
    try {
      target = readlinkSync(at);
    } catch {
      break; // not a link: the chain ends here
    }
    at = isAbsolute(target) ? target : join(realOrSelf(dirname(at)), target);
    hops.push(at);
  }
  return hops;
}

/** Where a shell command may start in a line: its start, after `;`, `&&`, `|`, `(`, `{`, `then`, `do`, `else`. */
const AT = String.raw`(?:^|[\s;&|({]|\bthen|\bdo|\belse)\s*`;
/** `PATH=VALUE`, `export PATH=…`, `declare -x PATH=…`. */
const PATH_SET = new RegExp(String.raw`${AT}(?:(?:export|declare\s+-\w*x\w*|typeset\s+-\w*x\w*)\s+)?PATH(\+?)=("[^"]*"|'[^']*'|[^\s;&|)]+)`, "g");
/** zsh's `path=(… $path …)` and `path+=(…)`. */
const ZSH_PATH_SET = new RegExp(String.raw`${AT}path(\+?)=\(([^)]*)\)`, "g");

/**
 * The shell functions in `text` whose body sets PATH with their first argument in it (`pathadd() { … PATH="$1:$PATH"; }`,
 * a body over several lines up to a line that starts with `}`): the name, the value's entries and where what PATH had
 * stands, as pathValue reads them.
 */
function pathFunctions(text: string): { name: string; entries: string[]; old: number }[] {
  const out: { name: string; entries: string[]; old: number }[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*(?:\(\s*\))?\s*\{([^]*?)(?:\n\s*\}|\}\s*(?:\n|$))/g)) {
    const body = m[2]!;
    for (const set of body.matchAll(PATH_SET)) {
      const { entries, old } = pathValue(set[2]!.replace(/["']/g, ""));
      if (entries.some((e) => e === "$1" || e === "${1}")) out.push({ name: m[1]!, entries: set[1] === "+" ? ["$PATH", ...entries] : entries, old: set[1] === "+" ? 0 : old });
    }
  }
  return out;
}

/** How deep `source` is followed from a startup file. */
const MAX_SOURCE_DEPTH = 4;

/**
 * What a shell startup file sources, and the folders it puts on PATH. Sourced: the files it names by a path bunker can read without running it: `. FILE`, `source FILE`
 * (after `&&`, `;`, `then`), FILE absolute, `~/…`, `$HOME/…` or `${HOME}/…`, or relative to the home. A glob
 * (`~/.bash.d/*.sh`, a loop's list) stands for its folder; `$NAME/…` is read through a plain assignment in the same
 * file (`export DOTFILES=~/dotfiles`). A path with any other `$` or a backquote stands for the file's own folder
 * (unless that is the home or above it).
 */
export function readShellFile(file: string, home: string): { sourced: { path: string; folder: boolean }[]; pathBefore: string[]; pathAfter: string[] } {
  let text: string;
  try {
    // Only the head of it (a startup file is often a link into a dotfiles repository: followed, and checked).
    text = readRegularSync(file, file, { max: 512 * 1024, cut: true, follow: true })?.bytes.toString("utf8") ?? "";
  } catch {
    return { sourced: [], pathBefore: [], pathAfter: [] };
  }
  const out: { path: string; folder: boolean }[] = [];
  const pathBefore: string[] = [];
  const pathAfter: string[] = [];
  // Quotes dropped wherever they are (`"$HOME"/.bash.d/*.sh`): what is left is what the shell reads.
  const unquote = (w: string) => w.replace(/["']/g, "");
  const lines = text.split("\n").map((l) => l.replace(/(^|\s)#.*$/, ""));
  // A loop's list (`for f in ~/.bash.d/*.sh; do . "$f"; done`): what `$f` stands for.
  // Plain assignments (`export DOTFILES=~/dotfiles`, `ZSH="$HOME/.oh-my-zsh"`): what `$DOTFILES/…` stands for.
  const vars = new Map<string, string>();
  for (const line of lines) {
    const m = /^\s*(?:export\s+)?(\w+)=("[^"$`]*(?:\$\{?HOME\}?[^"$`]*)?"|'[^']*'|[^\s;&|$`'"]*(?:\$\{?HOME\}?[^\s;&|$`'"]*)?)\s*(?:[;#]|$)/.exec(line);
    if (m) vars.set(m[1]!, unquote(m[2]!));
  }
  const loops = new Map<string, string[]>();
  for (const line of lines) for (const m of line.matchAll(/\bfor\s+(\w+)\s+in\s+([^;\n]*?)\s*(?:;|\bdo\b|$)/g)) loops.set(m[1]!, m[2]!.split(/\s+/).filter(Boolean).map(unquote));
  const expand = (written: string) => {
    const named = written.replace(/^\$\{?(\w+)\}?(?=\/|$)/, (all, name: string) => (name !== "HOME" && vars.has(name) ? vars.get(name)! : all));
    return named.replace(/^~(?=\/|$)/, home).replace(/^\$\{?HOME\}?(?=\/|$)/, home);
  };
  // `PATH=…:$PATH:…` (export too) anywhere in a line (`[ -d ~/tools/bin ] && export PATH=…`, `then PATH=…`), what it
  // had written `$PATH`, `${PATH}` or `${PATH:+:${PATH}}` (red team 10's F07), and zsh's `path=(~/bin $path)` and
  // `path+=(…)`: the folders before and after what PATH had; one bunker cannot read is left out.
  // A value without what PATH had (`PATH=$HOME/tools/bin:/usr/bin:/bin`) is the whole PATH: every entry comes first
  // (reviewer's R10-11).
  const place = (entries: string[], at: number) => {
    entries.forEach((p, i) => {
      const dir = expand(p);
      if (i !== at && isAbsolute(dir) && !/[$`]/.test(dir)) (at === -1 || i < at ? pathBefore : pathAfter).push(dir);
    });
  };
  // A function of the file's own that puts its argument on PATH (`pathadd() { [ -d "$1" ] && PATH="$1:$PATH"; }`,
  // pathmunge, add_to_path): each call's argument is a folder as that assignment places it (red team 10's F07b).
  for (const f of pathFunctions(text)) {
    const call = new RegExp(String.raw`${AT}${f.name}\s+("[^"]*"|'[^']*'|[^\s;&|)]+)`, "g");
    for (const line of lines) {
      for (const m of line.matchAll(call)) {
        const dir = unquote(m[1]!);
        if (dir !== "$1" && dir !== "${1}") place(f.entries.map((e) => (e === "$1" || e === "${1}" ? dir : e)), f.old);
      }
    }
  }
  for (const line of lines) {
    for (const m of line.matchAll(PATH_SET)) {
      const { entries, old } = pathValue(unquote(m[2]!));
      // `PATH+=:DIR` adds after what PATH had.
      if (m[1] === "+") place(["$PATH", ...entries], 0);
      else place(entries, old);
    }
    for (const m of line.matchAll(ZSH_PATH_SET)) {
      const words = m[2]!.trim().split(/\s+/).filter(Boolean).map(unquote);
      const entries = m[1] === "+" ? ["$path", ...words] : words;
      place(entries, entries.findIndex((p) => /^\$\{?path(\[@\])?\}?$/.test(p)));
    }
  }
  for (const line of lines) {
    for (const m of line.matchAll(/(?:^|[;&|({]|\bthen|\bdo|\belse)\s*(?:source|\.)\s+("[^"]*"|'[^']*'|[^\s;&|)]+)/g)) {
      const word = unquote(m[1]!);
      const loop = /^\$\{?(\w+)\}?$/.exec(word);
      for (const w of loop && loops.has(loop[1]!) ? loops.get(loop[1]!)! : [word]) push(w);
    }
  }
  function push(written: string): void {
    const word = expand(written);
    if (word === "") return;
    if (/[$`]/.test(word)) {
      // Not readable without running the shell (`"$(dirname "$BASH_SOURCE")/aliases.sh"`, `$NVM_DIR/nvm.sh`): what
      // such a line most often names is beside the file, so the file's folder counts whole; not the home itself (or above).
      const dir = dirname(file);
      if (dir !== home && !isWithin(dir, home) && !out.some((o) => o.folder && o.path === dir)) out.push({ path: dir, folder: true });
      return;
    }
    const abs = isAbsolute(word) ? word : join(home, word);
    if (/[*?[]/.test(abs)) {
      // The folder the glob's first wild part is in.
      const parts = abs.split("/");
      const wild = parts.findIndex((p) => /[*?[]/.test(p));
      out.push({ path: parts.slice(0, wild).join("/") || "/", folder: true });
    } else out.push({ path: abs, folder: false });
  }
  return { sourced: out, pathBefore, pathAfter };
}

/**
 * The files an ssh config includes (`Include`, relative to ~/.ssh, several per line, globs) or a tmux config sources
 * (`source-file` / `source`, flags skipped; relative to the home): a glob stands for its folder.
 */
export function readIncludes(file: string, home: string, kind: "ssh" | "tmux"): { path: string; folder: boolean }[] {
  let text: string;
  try {
    text = readRegularSync(file, file, { max: 512 * 1024, cut: true, follow: true })?.bytes.toString("utf8") ?? "";
  } catch {
    return [];
  }
  const words: string[] = [];
  for (const line of text.split("\n")) {
    if (kind === "ssh") {
      const m = /^\s*Include\s*=?\s*(.+?)\s*$/i.exec(line);
      if (m) words.push(...(m[1]!.match(/"[^"]*"|\S+/g) ?? []).map((w) => w.replace(/"/g, "")));
    } else {
      const m = /^\s*source(?:-file)?\s+(?:-[A-Za-z]+\s+)*("[^"]*"|'[^']*'|\S+)/.exec(line);
      if (m) words.push(m[1]!.replace(/["']/g, ""));
    }
  }
  const base = kind === "ssh" ? join(home, ".ssh") : home;
  return words.flatMap((w): { path: string; folder: boolean }[] => {
    const expanded = w.replace(/^~(?=\/|$)/, home).replace(/^\$\{?HOME\}?(?=\/|$)/, home);
    if (/[$`%]/.test(expanded)) return [{ path: dirname(file), folder: true }];
    const abs = isAbsolute(expanded) ? expanded : join(base, expanded);
    if (!/[*?[]/.test(abs)) return [{ path: abs, folder: false }];
    const parts = abs.split("/");
    return [{ path: parts.slice(0, parts.findIndex((p) => /[*?[]/.test(p))).join("/") || "/", folder: true }];
  });
}

function realOrSelf(p: string): string {
  try {
    return realpathLoose(p).real;
  } catch {
    return p; // a loop of links, a name too long: nothing reads it
  }
}

function statOrNull(p: string): Stats | null {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}
