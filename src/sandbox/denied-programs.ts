// --deny-run at the sandbox's wall (red team 11's F05). The judge refuses a
// command line that names a denied program, but a program it lets run can
// start it (python's subprocess, make, an npm script, xargs). Here each denied
// program's file, wherever the sandbox's PATH and the system's bin folders
// find it, is hidden as a denied read is: /dev/null in its place, which
// nothing can execute (EACCES) nor copy. Every name that links to it is
// covered, since the file itself is masked; and every other name of the same
// file (a hard link: /usr/bin/perl and /usr/bin/perl5.36.0 are one file) is
// masked too, wherever the sandbox shows it (reviewer's R11-11). What no mask
// can reach: a copy the command brings or builds itself, or another program
// that does the same job (an interpreter's own HTTP client in place of curl);
// and an applet of a multi-call binary (wget -> busybox): masking the binary
// would take every other applet with it (ls, cat: the whole system on Alpine),
// so it stays, and the person is told at start that the sandbox does not hold
// that one (reviewer's R11-08). A version manager's shim found on PATH (pyenv,
// rbenv, nodenv, asdf, mise) stands for each installed version's own binary,
// which is masked too (red team 11's F05b).
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import type { RunRules } from "../perms/run/patterns.ts";
import { SYSTEM_BIN_DIRS } from "./host-program.ts";
import { isShims } from "../perms/path-shadow.ts";

/** Binaries that are many programs, chosen by the name they are started by (their applets link to them). */
const MULTI_CALL = new Set(["busybox", "toybox", "coreutils", "box64"]);
/** Folders where programs are installed besides PATH's: a second name of a denied file is looked for in these first. */
const MORE_BIN_DIRS = ["/usr/sbin", "/sbin", "/usr/local/sbin", "/usr/libexec"];

/** A denied program the sandbox does not hold, and why. */
export interface NotHeld {
  name: string;
  file: string;
  /**
   * "multi-call": an applet of a binary other programs are; "kept": bunker's own shell or limiter; "names": other names
   * of it not all found; "package": `file` is its Node
   * package's folder, masked whole, which other programs (`also`) are files of too.
   */
  why: "multi-call" | "kept" | "names" | "package";
  also?: string[];
}

/**
 * The real files of the programs `rules` denies whole (a --deny-run name, or a rules file's `run:NAME *`), found on
 * `path` and in the system's bin folders, with every other name each has (hard links) in the bin folders and in
 * `trees` (what else the sandbox shows); except those in `keep` (the shell and the limiter bunker starts every
 * command with: masking them would stop every command, not the denied one) and a multi-call binary's.
 */
export function deniedProgramFiles(rules: RunRules, path: string, keep: readonly string[] = [], trees: readonly string[] = [], toolchains: readonly string[] = []): string[] {
  return deniedProgramsHeld(rules, path, keep, trees, toolchains).files;
}

/** deniedProgramFiles, with what it cannot hold (said to the person at start: deniedRunNotes). */
export function deniedProgramsHeld(rules: RunRules, path: string, keep: readonly string[] = [], trees: readonly string[] = [], toolchains: readonly string[] | null = null): { files: string[]; notHeld: NotHeld[] } {
  const names = [...rules.programs, ...rules.patterns.flatMap((p) => wholeProgram(p))];
  if (names.length === 0) return { files: [], notHeld: [] };
  const dirs = [...path.split(":").filter((d) => isAbsolute(d)), ...SYSTEM_BIN_DIRS];
  const kept = new Set(keep.map(real).filter((p): p is string => p !== null));
  const out = new Set<string>();
  const notHeld: NotHeld[] = [];
  const say = (n: NotHeld) => {
    if (!notHeld.some((o) => o.name === n.name && o.file === n.file)) notHeld.push(n);
  };
  for (const name of new Set(names)) {
    const candidates = name.includes("/") ? (isAbsolute(name) ? [name] : []) : dirs.map((d) => join(d, name));
    // A version manager's shim runs the selected version's own binary, which a command can also start by its path.
    if (!name.includes("/")) for (const d of dirs) if (isShims({ written: d, real: realOrSelf(d) })) candidates.push(...shimmedBinaries(d, name));
    for (const c of candidates) {
      const file = real(c);
      if (!file) continue;
      if (MULTI_CALL.has(basename(file)) && basename(file) !== basename(name)) {
        say({ name, file, why: "multi-call" });
        continue;
      }
      if (kept.has(file)) {
        say({ name, file, why: "kept" });
        continue;
      }
      const others = otherNames(file, [...dirs, ...MORE_BIN_DIRS, dirname(file)], trees);
      // A multi-call binary installed as hard links (its applets are its other names): only this name is masked (a
      // mount over one name leaves the others), and the binary still runs it (busybox wget).
      const binary = others.names.find((o) => MULTI_CALL.has(basename(o)));
      if (binary) {
        out.add(file);
        say({ name, file: binary, why: "multi-call" });
        continue;
      }
      out.add(file);
      for (const o of others.names) if (!kept.has(o)) out.add(o);
      if (!others.complete) say({ name, file, why: "names" });
      // Another file with the same bytes where programs are installed (git's exec-path copy /usr/lib/git-core/git:
      // red team 12's F07), masked as a name of it is.
      // Not looked for at start (`toolchains` null: only what is said then is wanted, and a session may run no command).
      if (toolchains) for (const c of copiesOf(file, [...dirs, ...MORE_BIN_DIRS], toolchains)) if (!kept.has(c)) out.add(c);
      // A program that is a file of a Node package (npm -> npm/bin/npm-cli.js): its package's folder, so node cannot
      // load the same program from another of its files (require("…/npm/lib/cli.js")).
      const pkg = nodePackageOf(file);
      if (pkg && ![...kept].some((k) => k.startsWith(`${pkg}/`))) {
        out.add(pkg);
        const also = otherBins(pkg, basename(name));
        if (also.length > 0) say({ name, file: pkg, why: "package", also });
      }
    }
  }
  return { files: [...out], notHeld };
}

/** The folder of the Node package `file` is in (`…/node_modules/npm`, `…/node_modules/@scope/name`), or null. */
export function nodePackageOf(file: string): string | null {
  const parts = file.split("/");
  const at = parts.lastIndexOf("node_modules");
  if (at === -1 || at + 1 >= parts.length - 1) return null;
  const end = parts[at + 1]!.startsWith("@") ? at + 3 : at + 2;
  return end < parts.length ? parts.slice(0, end).join("/") : null;
}

/** The other programs a package's package.json names (`npx` beside `npm`): masked with it, which the person is told. */
function otherBins(pkg: string, name: string): string[] {
  try {
    const bin = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).bin;
    const names = typeof bin === "object" && bin ? Object.keys(bin) : [];
    return names.filter((n) => n !== name).slice(0, 8);
  } catch {
    return [];
  }
}

/**
 * Where copies of programs are looked for, besides the bin folders: each program's own folder (git-core,
 * a JDK's bin) down to three levels under these, and the toolchains' trees (five levels: ~/.nvm/versions/node/v20/bin).
 */
const PROGRAM_BASES = ["/usr/lib", "/usr/libexec", "/usr/local/lib", "/usr/local/libexec", "/opt", "/usr/lib64"];
/** Folders that hold no programs, or packages' files rather than programs (a Node package is masked whole instead). */
const NOT_PROGRAMS = new Set(["share", "include", "src", "node_modules", "__pycache__", "locale", "doc", "man", "site-packages", "dist-packages", "firmware", "modules", "terminfo", "zoneinfo", "i18n", ".git"]);
/** Names that are libraries or data, never a program one denies: not looked at (each look is a stat). */
const DATA_NAME = /\.(so(\.\d+)*|a|o|h|hpp|py|pyc|pyi|js|mjs|cjs|ts|map|json|txt|md|html?|css|gz|xz|zst|bz2|png|svg|ico|jpg|xml|ya?ml|toml|mo|pm|pod|rb|jar|class|cfg|conf|ini|pem|crt|properties)$/;
/** The look's bounds: past them, copies further on are not found (docs/security.md says so). */
const COPY_ENTRIES = 200_000;
const COPY_MS = 1_500;

interface ProgramFile {
  path: string;
  size: number;
  id: string;
}
/** The program folders' executable files, walked once per process for a set of folders (about 0.1 s for a Debian /usr). */
const programWalks = new Map<string, { files: ProgramFile[]; complete: boolean }>();
/** File identity → its copies, for the session. */
const copiesFound = new Map<string, string[]>();

function programFiles(dirs: readonly string[], bases: readonly string[]): { files: ProgramFile[]; complete: boolean } {
  const key = `${dirs.join("\0")}\n${bases.join("\0")}`;
  const hit = programWalks.get(key);
  if (hit) return hit;
  const started = performance.now();
  const files: ProgramFile[] = [];
  let seen = 0;
  let complete = true;
  const visited = new Set<string>();
  const walk = (d: string, level: number, max: number): void => {
    if (!complete || visited.has(d)) return;
    visited.add(d);
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > COPY_ENTRIES || ((seen & 1023) === 0 && performance.now() - started > COPY_MS)) {
        complete = false;
        return;
      }
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (level < max && !NOT_PROGRAMS.has(e.name) && !/^python\d/.test(e.name) && !/-linux-gnu[a-z]*$/.test(e.name)) walk(p, level + 1, max);
      } else if (e.isFile() && !DATA_NAME.test(e.name)) {
        try {
          const st = lstatSync(p);
          if (st.mode & 0o111 && st.size > 0) files.push({ path: p, size: st.size, id: `${st.dev}:${st.ino}` });
        } catch {
          // gone meanwhile
        }
      }
    }
  };
  for (const d of dirs) walk(d, 0, 0);
  for (const b of PROGRAM_BASES) walk(b, 0, 3);
  for (const t of bases) walk(t, 0, 5);
  const result = { files, complete };
  programWalks.set(key, result);
  return result;
}

/** Other files with the same bytes as `file` in the program folders (not its hard links: otherNames finds those). */
function copiesOf(file: string, dirs: readonly string[], trees: readonly string[]): string[] {
  let st;
  try {
    st = statSync(file);
  } catch {
    return [];
  }
  const key = `${st.dev}:${st.ino}:${st.ctimeMs}\0${dirs.join("\0")}\0${trees.join("\0")}`;
  const hit = copiesFound.get(key);
  if (hit) return hit;
  const walk = programFiles([...new Set(dirs)], trees);
  const id = `${st.dev}:${st.ino}`;
  const same = walk.files.filter((f) => f.size === st.size && f.id !== id);
  const out: string[] = [];
  if (same.length > 0) {
    let bytes: Buffer | null = null;
    try {
      bytes = readFileSync(file);
    } catch {
      // unreadable: a copy of it cannot be told either
    }
    for (const f of same) {
      try {
        if (bytes && readFileSync(f.path).equals(bytes)) out.push(f.path);
      } catch {
        // unreadable to bunker: not shown to commands either
      }
    }
  }
  const result = [...new Set(out)];
  copiesFound.set(key, result);
  return result;
}

/** A rules-file pattern that names a whole program (`curl *`): its name. `git push` or `curl` alone (no arguments) deny less. */
function wholeProgram(pattern: string): string[] {
  const words = pattern.trim().split(/\s+/);
  return words.length === 2 && words[1] === "*" && words[0] !== "*" ? [words[0]!] : [];
}

/**
 * The binaries a version manager's shim of `name` in the folder `shims` may run (red team 11's F05b: --deny-run=python
 * masked pyenv's shim while ~/.pyenv/versions/3.12.1/bin/python ran): each installed version's, ROOT/versions/VERSION/bin
 * (pyenv, rbenv, nodenv, goenv, plenv, jenv) or ROOT/installs/TOOL/VERSION/bin (asdf, mise).
 */
function shimmedBinaries(shims: string, name: string): string[] {
  const root = dirname(shims);
  const out: string[] = [];
  for (const v of names(join(root, "versions"))) out.push(join(root, "versions", v, "bin", name));
  for (const tool of names(join(root, "installs"))) for (const v of names(join(root, "installs", tool))) out.push(join(root, "installs", tool, v, "bin", name));
  return out;
}

/** A folder's names, or none. */
function names(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The regular file a path leads to, or null. */
function real(p: string): string | null {
  try {
    return statSync(p).isFile() ? realpathSync(p) : null;
  } catch {
    return null;
  }
}

/** Most entries looked at for the other names of one file beyond the bin folders, and the longest that may take. */
const WALK_ENTRIES = 400_000;
const WALK_MS = 2_000;
/** File identity → its other names found, for the session (a walk of /usr takes half a second). */
const found = new Map<string, { names: string[]; complete: boolean }>();

/**
 * The other names (hard links) of `file`: looked for in `dirs` (each folder's own entries), then, while some are not
 * found, through `trees` (bounded). `complete`: every name the file has was found, or the rest are nowhere the
 * sandbox shows (the trees were walked whole).
 */
function otherNames(file: string, dirs: readonly string[], trees: readonly string[]): { names: string[]; complete: boolean } {
  let st;
  try {
    st = statSync(file);
  } catch {
    return { names: [], complete: true };
  }
  if (st.nlink < 2) return { names: [], complete: true };
  const key = `${st.dev}:${st.ino}:${st.ctimeMs}\0${trees.join("\0")}`;
  const hit = found.get(key);
  if (hit) return hit;
  const names = new Set<string>([file]);
  const same = (p: string) => {
    try {
      const s = lstatSync(p);
      return s.isFile() && s.ino === st.ino && s.dev === st.dev;
    } catch {
      return false;
    }
  };
  for (const d of new Set(dirs)) {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) if (e.isFile() && same(join(d, e.name))) names.add(realOrSelf(join(d, e.name)));
  }
  let complete = names.size >= st.nlink;
  if (!complete && trees.length > 0) {
    // Where else the sandbox shows files: walked once for this file (the system's trees, toolchains, the workspace).
    const started = performance.now();
    let seen = 0;
    const stack = [...trees];
    complete = true;
    walk: while (stack.length > 0) {
      const d = stack.pop()!;
      let entries;
      try {
        entries = readdirSync(d, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (++seen > WALK_ENTRIES || ((seen & 4095) === 0 && performance.now() - started > WALK_MS)) {
          complete = false;
          break walk;
        }
        const p = join(d, e.name);
        if (e.isDirectory()) stack.push(p);
        else if (e.isFile() && same(p)) names.add(p);
      }
      if (names.size >= st.nlink) break;
    }
  }
  names.delete(file);
  const result = { names: [...names], complete };
  found.set(key, result);
  return result;
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** What the person is told at start about the --deny-run programs the sandbox does not hold (none: nothing said). */
export function deniedRunNotes(notHeld: readonly NotHeld[]): string[] {
  return notHeld.map((n) =>
    n.why === "multi-call"
      ? `--deny-run=${n.name}: ${n.name} is an applet of ${n.file}, which other programs are too, so the sandbox cannot hide it alone; bunker refuses lines that name it (${n.name} …, ${basename(n.file)} ${n.name} …), but a program bunker lets run can still start it through ${basename(n.file)}. Deny ${basename(n.file)} itself to hold it (every applet of it with it).`
      : n.why === "kept"
        ? `--deny-run=${n.name}: ${n.file} is what bunker starts every command with, so the sandbox does not hide it; bunker refuses lines that name it, but a program bunker lets run can still start it.`
        : n.why === "names"
          ? `--deny-run=${n.name}: ${n.file} has other names (hard links) bunker did not find all of; a program that knows one can still start it.`
          : `--deny-run=${n.name}: ${n.name} is a file of the Node package ${n.file}, hidden whole from commands, so ${n.also!.join(", ")} ${n.also!.length === 1 ? "does" : "do"} not run in the sandbox either.`,
  );
}
