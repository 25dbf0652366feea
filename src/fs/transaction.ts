// All-or-nothing multi-file writes. Nothing visible changes until every new
// content is on disk in a temp file next to its target (and every file about
// to be replaced has a backup link); then the renames happen. If one fails,
// the ones already done are undone: replaced files get their old inode back,
// created files are removed, deleted files return, created directories go.
import { copyFileSync, constants, linkSync, lstatSync, mkdirSync, renameSync, rmdirSync, unlinkSync, type Stats } from "node:fs";
import { dirname, sep } from "node:path";
import { safeUnlink, sideName, syncDir, writeTempFile } from "./durable.ts";

export type FileOp =
  | { kind: "write"; path: string; data: string | Uint8Array; mode?: number }
  | { kind: "delete"; path: string };

export interface TransactionOptions {
  /** Called just before each commit step (tests use it to make a step fail for real). */
  beforeCommitStep?: (index: number, op: FileOp) => void;
  /**
   * After success, directories left empty by deletions are removed, up to
   * (not including) this directory, as git does. Unset: nothing is pruned.
   */
  pruneEmptyDirsBelow?: string;
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

interface Staged {
  op: FileOp;
  /** New content, ready to be renamed over the target (writes). */
  tmp?: string;
  /** The original, linked (or copied) aside: writes over an existing file, and deletes once moved. */
  backup?: string;
  existed: boolean;
  committed: boolean;
}

/** Applies every op or none. Throws TransactionError saying what happened. */
export function commitFiles(ops: readonly FileOp[], opts: TransactionOptions = {}): void {
  const seen = new Set<string>();
  for (const op of ops) {
    if (seen.has(op.path)) throw new TransactionError(`${op.path} appears twice in one transaction`, op.path, true, []);
    seen.add(op.path);
  }
  const createdDirs: string[] = [];
  const staged: Staged[] = [];

  // 1. Prepare: temp files and backups only; the targets are untouched.
  for (const op of ops) {
    try {
      staged.push(prepare(op, createdDirs));
    } catch (err) {
      const cleanup = discard(staged, createdDirs);
      throw new TransactionError(
        `${op.path}: ${errText(err)}. Nothing was changed.`,
        op.path,
        cleanup.length === 0,
        cleanup,
      );
    }
  }

  // 2. Commit: one rename per op.
  for (let i = 0; i < staged.length; i++) {
    const s = staged[i]!;
    try {
      opts.beforeCommitStep?.(i, s.op);
      if (s.op.kind === "write") renameSync(s.tmp!, s.op.path);
      else {
        s.backup = sideName(s.op.path, "bak");
        renameSync(s.op.path, s.backup);
      }
      s.committed = true;
    } catch (err) {
      if (s.op.kind === "delete") s.backup = undefined;
      const done = staged.filter((x) => x.committed).length;
      const problems = rollback(staged);
      problems.push(...discard(staged, createdDirs));
      const undone = problems.length === 0;
      throw new TransactionError(
        `${s.op.path}: ${errText(err)}. ` +
          (done === 0
            ? "Nothing was changed."
            : undone
              ? `The ${done} file${done === 1 ? "" : "s"} already changed ${done === 1 ? "was" : "were"} restored; nothing was changed.`
              : `Restoring failed for: ${problems.join("; ")}.`),
        s.op.path,
        undone,
        problems,
      );
    }
  }

  // 3. Done: drop backups, persist the renames.
  const dirs = new Set<string>();
  for (const s of staged) {
    if (s.backup) safeUnlink(s.backup);
    dirs.add(dirname(s.op.path));
  }
  for (const d of dirs) syncDir(d);
  if (opts.pruneEmptyDirsBelow !== undefined) {
    for (const s of staged) if (s.op.kind === "delete") pruneEmptyDirs(dirname(s.op.path), opts.pruneEmptyDirsBelow);
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

function prepare(op: FileOp, createdDirs: string[]): Staged {
  const st = lstatOrNull(op.path);
  if (st?.isDirectory()) throw new Error("it is a directory");
  if (op.kind === "delete") {
    if (!st) throw new Error("it does not exist");
    return { op, existed: true, committed: false };
  }
  const dir = dirname(op.path);
  makeDirs(dir, createdDirs);
  const mode = op.mode ?? (st ? st.mode & 0o7777 : 0o644);
  const s: Staged = { op, existed: st !== null, committed: false };
  s.tmp = sideName(op.path, "tmp");
  // Keep an existing file's exact mode (whatever the umask), owner and group.
  writeTempFile(s.tmp, op.data, mode, st !== null, st ? { uid: st.uid, gid: st.gid } : undefined);
  if (st) {
    s.backup = sideName(op.path, "bak");
    try {
      linkSync(op.path, s.backup);
    } catch {
      copyFileSync(op.path, s.backup, constants.COPYFILE_EXCL);
    }
  }
  return s;
}

/** Undo committed steps, newest first. Returns what could not be undone. */
function rollback(staged: Staged[]): string[] {
  const problems: string[] = [];
  for (const s of [...staged].reverse()) {
    if (!s.committed) continue;
    try {
      if (s.op.kind === "delete" || s.existed) {
        renameSync(s.backup!, s.op.path);
        s.backup = undefined;
      } else unlinkSync(s.op.path);
      s.committed = false;
    } catch (err) {
      problems.push(
        s.backup ? `${s.op.path} (its original content is in ${s.backup}: ${errText(err)})` : `${s.op.path} (${errText(err)})`,
      );
      s.backup = undefined; // keep it on disk: it is the only copy
    }
  }
  return problems;
}

/** Remove temp files, unused backups and the directories made for this transaction. */
function discard(staged: Staged[], createdDirs: string[]): string[] {
  const problems: string[] = [];
  for (const s of staged) {
    if (s.tmp && !s.committed) safeUnlink(s.tmp);
    if (s.backup && !s.committed) safeUnlink(s.backup);
  }
  for (const d of [...createdDirs].reverse()) {
    try {
      rmdirSync(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") problems.push(`${d} (created directory not removed: ${errText(err)})`);
    }
  }
  createdDirs.length = 0;
  return problems;
}

function makeDirs(dir: string, createdDirs: string[]): void {
  const missing: string[] = [];
  let d = dir;
  for (;;) {
    const st = lstatOrNull(d);
    if (st) {
      if (!st.isDirectory()) throw new Error(`${d} is a file, not a directory`);
      break;
    }
    missing.push(d);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const m of missing.reverse()) {
    mkdirSync(m);
    createdDirs.push(m);
  }
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ENOTDIR") throw new Error(`${fileInTheWay(p)} is a file, not a directory`);
    throw err;
  }
}

/** The ancestor of `p` that exists but is not a directory. */
function fileInTheWay(p: string): string {
  for (let d = dirname(p); d !== dirname(d); d = dirname(d)) {
    try {
      if (!lstatSync(d).isDirectory()) {
        const up = dirname(d);
        if (up === d || lstatSync(up).isDirectory()) return d;
      }
    } catch {
      // further up
    }
  }
  return `a parent of ${p}`;
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
