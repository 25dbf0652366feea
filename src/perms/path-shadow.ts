// Folders on the person's PATH that lie inside a writable root (an active
// .venv/bin, node_modules/.bin from direnv's `layout node`, `PATH_add bin`):
// a program a command puts there under the name of one found later on PATH
// runs in its place the next time the person types that name, in any folder,
// unconfined. Such a file runs later, like an .envrc. Names found nowhere
// later on PATH (what `pip install` and `npm install` add: pytest, tsc when
// there is no global one) are the project's own tools and stay usable.
// A version manager's shims folder (pyenv, rbenv, nodenv, goenv, jenv, plenv,
// asdf, mise, volta's bin) is not looked in: a shim only forwards to a tool
// the manager's runtime installed (pyenv's `pytest`), which is exactly what a
// project's own environment is meant to override. A program of that name in
// a real folder later on PATH (/usr/bin/git) still counts.
import { readFileSync, statSync } from "node:fs";
import { homedir } from "../fs/home.ts";
import { basename, delimiter, dirname, isAbsolute, join, normalize, resolve, sep } from "node:path";
import { isWithin, realpathLoose } from "./workspace.ts";

/**
 * PATH's entries as the person's bash reads them when it looks a name up: an entry that starts with `~` (quoted in
 * `export PATH="~/bin:$PATH"`, so left as written) is tilde-expanded then (`~/bin` is $HOME/bin, `~ann/bin` ann's),
 * red team 6's F10g. Other shells and execvp read it as a relative folder named `~`, so the entry stays too, after
 * its expansion. Every place that judges PATH folders reads them through here.
 */
export function pathEntries(path: string, home: string): string[] {
  return path.split(delimiter).flatMap((e) => {
    const expanded = e.startsWith("~") ? expandTilde(e, home) : null;
    return expanded && expanded !== e ? [expanded, e] : [e];
  });
}

/** bash's tilde expansion of one PATH entry, or null when it leaves it (an unknown user). */
function expandTilde(entry: string, home: string): string | null {
  const slash = entry.indexOf("/");
  const user = slash === -1 ? entry.slice(1) : entry.slice(1, slash);
  const rest = slash === -1 ? "" : entry.slice(slash);
  if (user === "") return home + rest;
  // `~+` is the folder the shell is in: a relative entry.
  if (user === "+") return `.${rest}`;
  const dir = userHome(user);
  return dir === null ? null : dir + rest;
}

/** A user's home directory from /etc/passwd, or null. */
function userHome(user: string): string | null {
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const f = line.split(":");
      if (f[0] === user && f[5]) return f[5];
    }
  } catch {
    // no passwd file (macOS keeps users elsewhere): bash would find the user there; not followed
  }
  return null;
}

/**
 * Why `real` runs later because it shadows a program on `path` (a PATH
 * value), or null. A folder counts by the name PATH gives it and by where it
 * leads now. A relative entry (`./node_modules/.bin`, `bin`, `.`, or an
 * empty one) is read by the shell from the folder the person is in, so it
 * counts in every folder of the roots: `<any folder>/node_modules/.bin/git`
 * is the person's `git` there.
 */
export function pathShadowMatcher(roots: readonly string[], path: string, home: string = process.env.HOME || homedir()): (real: string) => string | null {
  const base = roots[0] ?? "/";
  const raw = pathEntries(path, home);
  const entries = raw.map((e) => {
    const written = resolve(base, e || ".");
    return { written, real: realpathLoose(written).real };
  });
  // Relative entries as the tail a folder ends with ("" for `.` and an empty entry); one with `..` is read from the workspace only.
  const relatives = raw.flatMap((e, i) => {
    if (isAbsolute(e)) return [];
    const tail = normalize(e || ".").replace(/\/+$/, "");
    return tail === ".." || tail.startsWith("../") ? [] : [{ i, tail: tail === "." ? "" : tail }];
  });
  // Each folder inside a root → the index of its first PATH entry (the one the shell's lookup reaches).
  const inRoots = new Map<string, number>();
  entries.forEach((e, i) => {
    for (const f of [e.written, e.real]) if (!inRoots.has(f) && roots.some((r) => isWithin(r, f))) inRoots.set(f, i);
  });
  if (inRoots.size === 0 && relatives.length === 0) return () => null;
  const seen = new Map<string, string | null>();
  return (real) => {
    const dir = dirname(real);
    if (!roots.some((r) => isWithin(r, dir))) return null;
    // The first entry that reaches this folder: named outright, or a relative one from the folder above it.
    let i = inRoots.get(dir);
    let from = base;
    for (const r of relatives) {
      if (i !== undefined && i <= r.i) break;
      const cwd = r.tail === "" ? dir : dir.endsWith(`${sep}${r.tail}`) ? dir.slice(0, -r.tail.length - 1) : null;
      if (cwd !== null && roots.some((root) => isWithin(root, cwd))) {
        i = r.i;
        from = cwd;
        break;
      }
    }
    if (i === undefined) return null;
    const name = basename(real);
    const own = from === base ? entries[i]! : { written: dir, real: dir };
    const key = `${i}\0${from}\0${name}`;
    if (!seen.has(key)) {
      // Later relative entries are read from the same folder the person is in.
      const later = from === base ? entries.slice(i + 1) : raw.slice(i + 1).map((e, k) => (isAbsolute(e) ? entries[i + 1 + k]! : { written: resolve(from, e || "."), real: realpathLoose(resolve(from, e || ".")).real }));
      const found = later.find((e) => e.real !== own.real && e.written !== own.written && !isShims(e) && isProgram(join(e.written, name)));
      seen.set(key, found ? join(found.written, name) : null);
    }
    const shadowed = seen.get(key);
    return shadowed ? `your shell runs it instead of ${shadowed} when you type ${name}: ${own.written} comes before ${dirname(shadowed)} on your PATH` : null;
  };
}

const SHIM_MANAGERS = new Set(["pyenv", "rbenv", "nodenv", "goenv", "jenv", "plenv", "asdf", "mise", "rtx"]);

/** Whether a PATH folder (by its name or where it leads) is a version manager's shims: `~/.pyenv/shims`, `~/.local/share/mise/shims`, `~/.volta/bin`. */
export function isShims(e: { written: string; real: string }): boolean {
  return [e.written, e.real].some((d) => {
    const parent = basename(dirname(d)).replace(/^\./, "");
    return (basename(d) === "shims" && SHIM_MANAGERS.has(parent)) || (basename(d) === "bin" && basename(dirname(d)) === ".volta");
  });
}

/** An executable file (what the shell's PATH lookup would run). */
export function isProgram(p: string): boolean {
  try {
    const st = statSync(p);
    return st.isFile() && (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}
