// All-or-nothing multi-file writes. Nothing visible changes until every new
// content is on disk in a temp file next to its target (and every file about
// to be replaced has a backup link); then the renames happen. Every directory
// is held open from the walk that checked it (fs/held-dir.ts), so the renames
// land where the checks looked. With a journal directory the plan is written
// there first (fs/journal.ts): a kill at any point is put right at the next
// start by recoverCommits. If a step fails, the ones already done are undone
// by the same code that recovery runs: replaced files get their old inode
// back, created files are removed, deleted files return, created directories go.
import { copyFileSync, constants, linkSync, lstatSync, renameSync, rmdirSync, unlinkSync } from "node:fs";
import { FileKindError, MAX_WORKSPACE_FILE_BYTES, readRegularSync } from "./file-kind.ts";
import { basename, dirname, join, sep } from "node:path";
import { contentHash } from "../agent/session-state.ts";
import { safeUnlink, syncDir, writeTempFile } from "./durable.ts";
import { fsProblem } from "./errno-words.ts";
import { HeldDir } from "./held-dir.ts";
import { Journal, journalsToRecover, sideFileName, type JournalEntry, type JournalStep } from "./journal.ts";

export type FileOp =
  | { kind: "write"; path: string; data: string | Uint8Array; mode?: number }
  | { kind: "delete"; path: string }
  /** `from` goes away and `path` holds `data`: one step, never both places. */
  | { kind: "move"; from: string; path: string; data: string | Uint8Array; mode?: number };

export interface TransactionOptions {
  /** Called just before each commit step (tests use it to make a step fail for real). */
  beforeCommitStep?: (index: number, op: FileOp) => void;
  /**
   * After success, directories left empty by deletions are removed, up to
   * (not including) this directory, as git does. Unset: nothing is pruned.
   */
  pruneEmptyDirsBelow?: string;
  /** Write an intent journal in `dir` (bunker's state directory) so a kill is put right at the next start. */
  journal?: { dir: string; root: string; label: string };
  /**
   * Called for every path the commit touches once its directory is held and
   * before anything is written, with a reader of its current bytes (null:
   * absent) through the held directory. Throw to refuse: nothing changes.
   */
  check?: (path: string, current: () => Uint8Array | null, dir: HeldDir) => void;
}

export class TransactionError extends Error {
  override name = "TransactionError";
  constructor(
    message: string,
    /** The path whose step failed. */
    readonly path: string,
    /** True when every file is back as it was; false lists what could not be restored in `problems`. */
    readonly restored: boolean,
    readonly problems: string[],
  ) {
    super(message);
  }
}

/** Applies every op or none. Throws TransactionError saying what happened; a `check` refusal is rethrown as it was. */
export function commitFiles(ops: readonly FileOp[], opts: TransactionOptions = {}): void {
  const seen = new Set<string>();
  for (const p of ops.flatMap(pathsOf)) {
    if (seen.has(p)) throw new TransactionError(`${p} appears twice in one transaction`, p, true, []);
    seen.add(p);
  }
  const steps = ops.map(planStep);
  const dirs: string[] = [];
  for (const op of ops) if (op.kind !== "delete") for (const d of missingDirs(dirname(op.path))) if (!dirs.includes(d)) dirs.push(d);
  const journal = opts.journal ? Journal.begin(opts.journal.dir, opts.journal.root, opts.journal.label, steps, dirs) : null;
  const entry: JournalEntry = journal?.entry ?? { v: 1, pid: process.pid, started: "", root: "", label: "", at: Date.now(), phase: "prepare", steps, dirs };
  const held = new DirCache(true);
  try {
    // 1. Prepare: temp files and backups only; the targets are untouched.
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      try {
        steps[i] = prepare(op, steps[i]!, held, opts.check);
      } catch (err) {
        const problems = settle(entry, held, "back").problems;
        journal?.done();
        if (opts.check && !(err instanceof PrepareError)) throw err;
        throw new TransactionError(`${op.path}: ${errText(err, op.path)}. Nothing was changed.`, op.path, problems.length === 0, problems);
      }
    }
    entry.phase = "commit";
    journal?.flush();

    // 2. Commit: one rename per op (two for a move), in order.
    for (let i = 0; i < ops.length; i++) {
      const s = steps[i]!;
      try {
        opts.beforeCommitStep?.(i, ops[i]!);
        commitStep(s, held);
      } catch (err) {
        const r = settle(entry, held, "back");
        if (r.problems.length === 0) journal?.done();
        const done = r.done;
        throw new TransactionError(
          `${s.target}: ${errText(err, s.target)}. ` +
            (done === 0
              ? "Nothing was changed."
              : r.problems.length === 0
                ? `The ${done} file${done === 1 ? "" : "s"} already changed ${done === 1 ? "was" : "were"} restored; nothing was changed.`
                : `Restoring failed for: ${r.problems.join("; ")}.`),
          s.target,
          r.problems.length === 0,
          r.problems,
        );
      }
    }

    // 3. Done: persist the renames, then drop backups and the journal.
    for (const d of held.all()) syncDir(d.path);
    settle(entry, held, "forward");
    journal?.done();
  } finally {
    held.close();
  }
  if (opts.pruneEmptyDirsBelow !== undefined) {
    for (const op of ops) if (op.kind !== "write") pruneEmptyDirs(dirname(op.kind === "move" ? op.from : op.path), opts.pruneEmptyDirsBelow);
  }
}

/**
 * At start: every interrupted commit in `root` (its bunker was killed) is
 * rolled back, or finished when every rename had happened. One line each.
 */
export function recoverCommits(journalDir: string, root: string): string[] {
  const lines: string[] = [];
  const { recover, refused } = journalsToRecover(journalDir, root);
  // A journal bunker did not write (planted, or damaged): nothing of it is done.
  for (const r of refused) {
    lines.push(`bunker did not replay the change journal ${r.path}: ${r.why}. Nothing in it was done; ${r.keptAs ? `it is kept as ${r.keptAs}` : "it could not be moved aside"}.`);
  }
  for (const { path, entry } of recover) {
    const cache = new DirCache(false);
    let r: { way: "back" | "forward"; problems: string[]; done: number };
    try {
      r = settle(entry, cache, entry.phase === "commit" && allDone(entry, cache) ? "forward" : "back");
    } finally {
      cache.close();
    }
    safeUnlink(path);
    const n = entry.steps.length;
    const what = `${entry.label || "a change"} of ${n} file${n === 1 ? "" : "s"} at ${new Date(entry.at).toLocaleTimeString()}`;
    const said =
      r.way === "forward"
        ? `bunker was stopped while writing ${what}; every file had been written, so it was completed.`
        : r.done === 0
          ? `bunker was stopped before writing ${what}; nothing had changed, and its temporary files were removed.`
          : `bunker was stopped while writing ${what}; the ${r.done} file${r.done === 1 ? "" : "s"} already written ${r.done === 1 ? "was" : "were"} put back, so nothing of it is applied.`;
    lines.push(r.problems.length === 0 ? said : `${said} Could not restore: ${r.problems.join("; ")}.`);
  }
  return lines;
}

/** Raised for a prepare failure of the files themselves (not a caller's check). */
class PrepareError extends Error {}

function pathsOf(op: FileOp): string[] {
  return op.kind === "move" ? [op.from, op.path] : [op.path];
}

function side(path: string, ext: "tmp" | "bak"): string {
  return `${dirname(path)}${sep}${sideFileName(path, process.pid, Math.random().toString(36).slice(2, 10) || "0", ext)}`;
}

function planStep(op: FileOp): JournalStep {
  switch (op.kind) {
    case "write":
      return { op: "write", target: op.path, tmp: side(op.path, "tmp"), backup: side(op.path, "bak"), hash: contentHash(op.data) };
    case "delete":
      return { op: "delete", target: op.path, backup: side(op.path, "bak") };
    case "move":
      return { op: "move", from: op.from, fromBackup: side(op.from, "bak"), target: op.path, tmp: side(op.path, "tmp"), backup: side(op.path, "bak"), hash: contentHash(op.data) };
  }
}

/** Directories that do not exist yet on the way to `dir`, outermost first. */
function missingDirs(dir: string): string[] {
  const out: string[] = [];
  for (let d = dir; dirname(d) !== d; d = dirname(d)) {
    try {
      lstatSync(d);
      break;
    } catch {
      out.unshift(d);
    }
  }
  return out;
}

/** Held directories by path, opened on first use. */
class DirCache {
  private readonly dirs = new Map<string, HeldDir>();
  /** Whether missing directories are made (while preparing), not when putting things right. */
  constructor(public create: boolean) {}
  get(dir: string): HeldDir {
    let d = this.dirs.get(dir);
    if (!d) {
      d = HeldDir.open(dir, { create: this.create });
      this.dirs.set(dir, d);
    }
    return d;
  }
  /** `path` named through its held directory. */
  at(path: string): string {
    return this.get(dirname(path)).at(basename(path));
  }
  all(): HeldDir[] {
    return [...this.dirs.values()];
  }
  close(): void {
    for (const d of this.dirs.values()) d.close();
    this.dirs.clear();
  }
}

function prepare(op: FileOp, s: JournalStep, held: DirCache, check: TransactionOptions["check"]): JournalStep {
  for (const p of pathsOf(op)) {
    let dir: HeldDir;
    try {
      dir = held.get(dirname(p));
    } catch (err) {
      throw new PrepareError(errText(err));
    }
    check?.(p, () => readThrough(dir, basename(p)), dir);
  }
  const st = lstatOrNull(held.at(op.path));
  if (st?.isDirectory()) throw new PrepareError("it is a directory");
  if (st && !st.isFile() && !st.isSymbolicLink()) throw new PrepareError("it is not a regular file");
  if (op.kind === "delete") {
    if (!st) throw new PrepareError("it does not exist");
    return s;
  }
  if (op.kind === "move" && !lstatOrNull(held.at(op.from))) throw new PrepareError(`${op.from} does not exist`);
  const tmp = (s as { tmp: string }).tmp;
  const mode = op.mode ?? (st ? st.mode & 0o7777 : 0o644);
  // Keep an existing file's exact mode (whatever the umask), owner and group.
  try {
    writeTempFile(held.at(tmp), op.data, mode, st !== null || op.mode !== undefined, st ? { uid: st.uid, gid: st.gid } : undefined);
  } catch (err) {
    throw new PrepareError(errText(err, op.path));
  }
  if (!st) return { ...s, backup: undefined } as JournalStep;
  const backup = (s as { backup: string }).backup;
  try {
    linkSync(held.at(op.path), held.at(backup));
  } catch {
    copyFileSync(held.at(op.path), held.at(backup), constants.COPYFILE_EXCL);
  }
  return s;
}

function commitStep(s: JournalStep, held: DirCache): void {
  switch (s.op) {
    case "write":
      renameSync(held.at(s.tmp), held.at(s.target));
      return;
    case "delete":
      renameSync(held.at(s.target), held.at(s.backup));
      return;
    case "move":
      renameSync(held.at(s.tmp), held.at(s.target));
      renameSync(held.at(s.from), held.at(s.fromBackup));
  }
}

/**
 * What has happened to each step, read from the disk: the one source of truth
 * for rollback and recovery. Only the renames count (a temp file gone, an old
 * name gone), never a backup's presence: backups are removed once every
 * rename is done, and a kill can land in the middle of that.
 */
function stepState(s: JournalStep, held: DirCache): { started: boolean; done: boolean } {
  switch (s.op) {
    case "write": {
      const renamed = !exists(held, s.tmp);
      return { started: renamed, done: renamed };
    }
    case "delete": {
      const renamed = !exists(held, s.target);
      return { started: renamed, done: renamed };
    }
    case "move": {
      const placed = !exists(held, s.tmp);
      const gone = !exists(held, s.from);
      return { started: placed || gone, done: placed && gone };
    }
  }
}

function allDone(entry: JournalEntry, held: DirCache): boolean {
  return entry.steps.every((s) => {
    try {
      return stepState(s, held).done;
    } catch {
      return false;
    }
  });
}

/**
 * Puts a commit right, from what is on disk. "back": every started step is
 * undone (only where the file still holds what this commit wrote), temp and
 * backup files removed, made directories removed. "forward" (every rename
 * done): backups removed. Before the commit phase nothing was renamed.
 */
function settle(entry: JournalEntry, held: DirCache, way: "back" | "forward"): { way: "back" | "forward"; problems: string[]; done: number } {
  const problems: string[] = [];
  let done = 0;
  held.create = false;
  for (const s of [...entry.steps].reverse()) {
    // Before any rename, a directory that cannot be opened holds nothing of this commit.
    if (entry.phase === "prepare" && !canHold(held, s)) continue;
    try {
      const state = entry.phase === "commit" ? stepState(s, held) : { started: false, done: false };
      if (state.started) done++;
      if (way === "forward") {
        for (const b of backupsOf(s)) rm(held, b);
        continue;
      }
      if (s.op === "delete") {
        if (state.started) renameSync(held.at(s.backup), held.at(s.target));
        continue;
      }
      if (s.op === "move" && exists(held, s.fromBackup) && entry.phase === "commit") renameSync(held.at(s.fromBackup), held.at(s.from));
      if (state.started && !exists(held, s.tmp)) {
        // The new content was renamed into place: take it back, unless something changed it since.
        const now = readThrough(held.get(dirname(s.target)), basename(s.target));
        if (now !== null && contentHash(now) !== s.hash) {
          problems.push(`${s.target} (changed since; left as it is${s.backup && exists(held, s.backup) ? `, its old content is in ${s.backup}` : ""})`);
          continue;
        }
        if (s.backup && exists(held, s.backup)) renameSync(held.at(s.backup), held.at(s.target));
        else rm(held, s.target);
      } else {
        rm(held, s.tmp);
        if (s.backup) rm(held, s.backup);
      }
    } catch (err) {
      problems.push(`${s.target} (${errText(err)})`);
    }
  }
  if (way === "back") {
    for (const d of [...entry.dirs].reverse()) {
      try {
        // Through its parent's held handle: a link on the way (a journal naming `link/made`) leads nowhere.
        rmdirSync(held.at(d));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTEMPTY" && code !== "EEXIST") problems.push(`${d} (created directory not removed: ${errText(err)})`);
      }
    }
  }
  return { way, problems, done };
}

function canHold(held: DirCache, s: JournalStep): boolean {
  try {
    held.get(dirname(s.target));
    if (s.op === "move") held.get(dirname(s.from));
    return true;
  } catch {
    return false;
  }
}

function backupsOf(s: JournalStep): string[] {
  if (s.op === "delete") return [s.backup];
  const out = s.backup ? [s.backup] : [];
  return s.op === "move" ? [...out, s.fromBackup] : out;
}

function exists(held: DirCache, path: string): boolean {
  return lstatOrNull(held.at(path)) !== null;
}

function rm(held: DirCache, path: string): void {
  try {
    unlinkSync(held.at(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** The bytes of `name` in `dir` without following a link, blocking on a FIFO or reading past 64 MiB; null when absent. */
export function readThrough(dir: HeldDir, name: string): Uint8Array | null {
  const display = join(dir.path, name);
  try {
    return readRegularSync(dir.at(name), display, { max: MAX_WORKSPACE_FILE_BYTES })?.bytes ?? null;
  } catch (err) {
    if (!(err instanceof FileKindError)) throw err;
    // ELOOP: the last component is a link now (O_NOFOLLOW); the reader's sentence for the rest.
    if (lstatOrNull(dir.at(name))?.isSymbolicLink()) throw new PrepareError(`${display} is now a symbolic link`);
    throw new PrepareError(err.message);
  }
}

/** Remove `dir` and its parents while they are empty and strictly below `stop`. */
function pruneEmptyDirs(dir: string, stop: string): void {
  for (let d = dir; d !== stop && d.startsWith(stop + sep); d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return; // not empty (or gone): stop here
    }
  }
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function errText(err: unknown, path?: string): string {
  const e = err as NodeJS.ErrnoException;
  const words = path !== undefined ? fsProblem(e, dirname(path)) : null;
  if (words) return words.replace(/\.$/, "");
  if (e.code === "ENOTDIR" || e.code === "EISDIR" || e.code === "ENOTEMPTY") return e.code === "ENOTDIR" ? "a path component is not a directory" : "a directory is in the way";
  return e.message ?? String(err);
}
