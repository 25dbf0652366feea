// Where a command's words lead: the directories a line may run in (after its
// `cd`s) and whether a word, every way it can expand, resolves inside the
// workspace (through links, globs and `~`). Reads the file system (stat,
// realpath, glob scans); never writes.
import { existsSync, statSync } from "node:fs";
import { homedir } from "../../fs/home.ts";
import { basename, isAbsolute, join } from "node:path";
import { isLiteral, type SimpleCommand, type Word } from "../../shell/parse.ts";
import { matchesPathRules } from "../path-rules.ts";
import type { PathRules } from "../policy.ts";
import { runsLaterReason, type RunsLaterRule } from "../runs-later.ts";
import { isProtectedPath, isWithin, joinRaw, realpathLoose, resolveFrom } from "../workspace.ts";

/** Devices a read-only command may write to or read from. */
export const SAFE_WRITE_DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"]);
const SAFE_READ_DEVICES = new Set(["/dev/null", "/dev/stdin", "/dev/fd/0"]);
const MAX_GLOB_MATCHES = 2000;

/** Deny rules that also hold for what commands read and write. */
export interface PathDenies {
  read?: PathRules;
  write?: PathRules;
  /** Settings' "protect" entries: with runs-later.ts's list, files no command writes unasked. */
  protect?: readonly RunsLaterRule[];
}

/** `cd` and `pushd` both move the shell: paths after them resolve from elsewhere. */
export function isCd(cmd: SimpleCommand): boolean {
  const w = cmd.argv[0];
  return (w?.text === "cd" || w?.text === "pushd") && isLiteral(w);
}

/**
 * Every directory the shell could be in when a command runs, given the `cd`s
 * in the line. Over-approximates (a `cd` inside a subshell counts for the
 * rest of the line too), which only makes checks stricter.
 */
export function possibleDirectories(commands: SimpleCommand[], root: string): string[] {
  const dirs = new Set([root]);
  for (const cmd of commands) {
    if (!isCd(cmd)) continue;
    const target = cdTarget(cmd);
    if (!target) continue;
    for (const d of [...dirs]) dirs.add(resolveFrom(d, target).real);
  }
  return [...dirs];
}

/** The literal target of `cd DIR`, when it has no `..` and is not `-`. */
export function cdTarget(cmd: SimpleCommand): string | null {
  const args = cmd.argv.slice(1).filter((w) => w.text !== "--");
  const w = args[0];
  if (args.length !== 1 || !w || !isLiteral(w) || w.text === "-" || w.text === "") return null;
  if (w.text.split("/").includes("..")) return null;
  return w.text;
}

export class PathChecker {
  constructor(
    /** Null when no workspace is known: then no path argument or file redirect passes. */
    readonly root: string | null,
    private readonly deny: PathDenies,
    /** Every directory a command in the line may run in. */
    readonly cwds: string[],
    readonly hasCd: boolean,
  ) {}

  /**
   * Some way this word resolves is the root or a folder holding .git or
   * .bunker (copying onto it, or removing it, reaches them). A pattern's
   * matches count, not the folder it is matched in (`o*` is not the root).
   */
  holdsProtected(w: Word): boolean {
    const root = this.root;
    if (!root) return true;
    return !this.all(w, (real) => real !== root && !existsSync(join(real, ".git")) && !existsSync(join(real, ".bunker")), false);
  }

  /** Some way this word resolves is an executable file: a program, however it is named. */
  executable(w: Word): boolean {
    return !this.all(w, (real) => {
      try {
        const st = statSync(real);
        return !(st.isFile() && (st.mode & 0o111) !== 0);
      } catch {
        return true;
      }
    });
  }

  /** Every way this word can resolve is a real path inside the workspace (and not denied). */
  readable(w: Word): boolean {
    if (isLiteral(w) && SAFE_READ_DEVICES.has(w.text)) return true;
    return this.all(w, (real) => matchesPathRules(this.deny.read, real, true) === null);
  }

  /** Same, for writing: also not under .git or .bunker, not a file run later, and not denied. */
  writable(w: Word): boolean {
    return this.writeProblem(w) === null;
  }

  /**
   * Why a command may not write where this word leads, naming the real cause
   * (`names X, …`): outside the workspace, in .git or .bunker, a file other
   * programs run later, or denied. Null when every way it resolves is writable.
   */
  writeProblem(w: Word): string | null {
    if (isLiteral(w) && SAFE_WRITE_DEVICES.has(w.text)) return null;
    const root = this.root;
    const outside = "outside the workspace";
    if (!root) return outside;
    let problem: string = outside;
    const ok = this.all(w, (real) => {
      const later = runsLaterReason(root, real, this.deny.protect);
      if (isProtectedPath(root, real)) problem = "in .git or .bunker (changes there always ask)";
      else if (later) problem = `a file other programs run later (${later}; writing it always asks)`;
      else if (matchesPathRules(this.deny.write, real, true) !== null) problem = "where a --deny-write flag or deny rule forbids writing";
      else return true;
      return false;
    }, true, true);
    return ok ? null : problem;
  }

  cdTargetOk(cmd: SimpleCommand): boolean {
    const target = cdTarget(cmd);
    const root = this.root;
    if (!target || !root) return false;
    return this.cwds.every((d) => isWithin(root, resolveFrom(d, target).real));
  }

  /**
   * `globBase`: a pattern's fixed folder counts as a candidate; `globParts`:
   * so do the matches of its leading parts (for writes: `o*` + `/x`, where `o*`
   * is a link out, leads `x` out even while nothing matches yet).
   */
  private all(w: Word, extra: (real: string) => boolean, globBase = true, globParts = false): boolean {
    const root = this.root;
    if (!root || w.expanded || w.brace) return false;
    let text = w.text;
    if (w.tilde) {
      if (text !== "~" && !text.startsWith("~/")) return false; // ~user
      text = homedir() + text.slice(1); // not join(): that would drop `link/..` as text
    }
    if (text === "" || text.includes("\0")) return false;
    // After a `cd`, `..` could climb from a directory we did not foresee.
    if (this.hasCd && !isAbsolute(text) && text.split("/").includes("..")) return false;
    // `a/../x` where `a` does not exist yet: an earlier command in the line may make `a` a link (`ln -s / a`).
    if (text.split("/").some((part, i, all) => part === ".." && i > 0 && !this.cwds.every((cwd) => resolveFrom(cwd, all.slice(0, i).join("/")).exists))) return false;
    try {
      for (const cwd of this.cwds) {
        const expanded = w.glob ? expandGlob(cwd, text, globParts) : [joinRaw(cwd, text)];
        if (!expanded) return false;
        const candidates = w.glob && !globBase ? expanded.slice(1) : expanded;
        for (const abs of candidates) {
          // bash hands a match named `-R` or `--pre=sh` to the program as an option.
          if (w.glob && basename(abs).startsWith("-")) return false;
          const real = realpathLoose(abs).real;
          if (!isWithin(root, real) || !extra(real)) return false;
        }
      }
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * What a pathname pattern can expand to (its fixed directory prefix first;
 * with `leadingParts`, the matches of each leading part too: for `o*` + `/x`
 * what `o*` matches, as a link there leads `x` elsewhere), or null when that cannot be bounded: a
 * component that could match `..`, or too many matches.
 */
function expandGlob(cwd: string, pattern: string, leadingParts: boolean): string[] | null {
  const parts = pattern.split("/");
  const firstGlob = parts.findIndex((p) => /[*?[]/.test(p));
  if (parts.slice(firstGlob).some((p) => p.startsWith(".") && /[*?[]/.test(p))) return null;
  if (parts.slice(firstGlob).includes("..")) return null;
  // The fixed prefix resolved physically (`link/../*` starts where the link leads, then goes up).
  const base = resolveFrom(cwd, parts.slice(0, firstGlob).join("/") || ".").real;
  // bash's default has no globstar: `**` is `*`, one level; that also keeps a scan through links bounded.
  const rest = parts.slice(firstGlob).map((p) => p.replace(/\*\*+/g, "*"));
  const out = [base];
  for (let n = leadingParts ? 1 : rest.length; n <= rest.length; n++) {
    try {
      // As bash does, through linked directories (`d/*/x` reaches d/link/x): every match is then resolved and checked.
      for (const m of new Bun.Glob(rest.slice(0, n).join("/")).scanSync({ cwd: base, onlyFiles: false, dot: false, followSymlinks: true })) {
        out.push(join(base, m));
        if (out.length > MAX_GLOB_MATCHES) return null;
      }
    } catch {
      // A missing directory matches nothing: bash passes the pattern through literally.
    }
  }
  return out;
}

