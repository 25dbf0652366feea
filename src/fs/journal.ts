// The intent journal of a multi-file commit: written and flushed in the state
// directory (never the workspace) before the first temp file, rewritten when
// every temp file is ready and before the first rename, removed when done.
// A bunker killed in between leaves it behind; the next start in that
// workspace reads it and puts the files back as they were (or finishes the
// commit, if every rename had happened), then removes bunker's temp files.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { readRegularSync } from "./file-kind.ts";
import { basename, dirname, isAbsolute, join, normalize, relative, sep } from "node:path";
import { syncDir } from "./durable.ts";
import { isRunning, processStart } from "./process-id.ts";

/** One file of a commit, with the side files it uses (absolute paths). */
export type JournalStep =
  /** `target` gets the content of `tmp`; `backup` is a hard link to the old file (when it existed). */
  | { op: "write"; target: string; tmp: string; backup?: string; hash: string }
  /** `target` is renamed to `backup`, removed when the commit is done. */
  | { op: "delete"; target: string; backup: string }
  /** `tmp` becomes `target` (keeping `backup` of an old one), then `from` is renamed to `fromBackup`. */
  | { op: "move"; from: string; fromBackup: string; target: string; tmp: string; backup?: string; hash: string };

export interface JournalEntry {
  v: 1;
  pid: number;
  /** The process start time (Linux /proc), so a reused pid is not taken for the writer. */
  started: string;
  root: string;
  /** What made the change, for the line said at recovery ("apply_patch"). */
  label: string;
  at: number;
  /** "prepare": temp files being written, nothing renamed yet. "commit": renames under way. */
  phase: "prepare" | "commit";
  steps: JournalStep[];
  /** Directories made for this commit, outermost first. */
  dirs: string[];
}

export class Journal {
  private constructor(
    readonly path: string,
    readonly entry: JournalEntry,
  ) {}

  static begin(dir: string, root: string, label: string, steps: JournalStep[], dirs: string[]): Journal {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const name = `${Bun.hash(root).toString(16)}-${process.pid}-${Math.random().toString(36).slice(2, 10)}.json`;
    const j = new Journal(join(dir, name), { v: 1, pid: process.pid, started: processStart(process.pid), root, label, at: Date.now(), phase: "prepare", steps, dirs });
    j.flush();
    return j;
  }

  /** Rewrites the journal durably (a temp file renamed over it, flushed with its directory). */
  flush(): void {
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, "w", 0o600);
    try {
      writeSync(fd, JSON.stringify(this.entry));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
    syncDir(join(this.path, ".."));
  }

  done(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

/** The name a side file of `target` has (transaction.ts makes them): `.NAME.bunker-PID-RANDOM.tmp` or `.bak`, beside it. */
export function sideFileName(target: string, pid: number, random: string, ext: "tmp" | "bak"): string {
  // At most 60 characters of the name, so name plus suffix stays under 255 bytes.
  return `.${basename(target).slice(0, 60)}.bunker-${pid}-${random}.${ext}`;
}

/** Whether `path` is an absolute, normalized path strictly inside `root` (no `.`, `..` or empty component). */
function strictlyInside(root: string, path: string): boolean {
  if (!isAbsolute(path) || normalize(path) !== path || path.endsWith(sep) || path.includes("\0")) return false;
  const rel = relative(root, path);
  return rel !== "" && !isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`);
}

/** Whether `side` is a side file of `target` by the name bunker gives one (sideFileName). */
function sideOf(target: string, side: unknown, ext: "tmp" | "bak"): boolean {
  if (typeof side !== "string" || dirname(side) !== dirname(target)) return false;
  const m = /^\.(.*)\.bunker-(\d+)-([0-9a-z]{1,8})\.(tmp|bak)$/s.exec(basename(side));
  return m !== null && m[4] === ext && basename(side) === sideFileName(target, Number(m[2]), m[3]!, ext);
}

/**
 * Why a journal read back from disk is not bunker's for `root`, or null. Recovery renames and removes what it names:
 * every path must lie (by a link-free path, which the held directories then walk) inside the workspace, each temp
 * and backup file beside its file under bunker's own name, each directory one on the way to a file of it.
 */
export function journalProblem(entry: unknown, root: string): string | null {
  if (typeof entry !== "object" || entry === null) return "it is not a journal";
  const e = entry as Partial<JournalEntry>;
  if (e.v !== 1) return "it was written by another version of bunker";
  if (e.root !== root) return "it belongs to another workspace";
  if (typeof e.pid !== "number" || typeof e.started !== "string" || typeof e.at !== "number" || (e.phase !== "prepare" && e.phase !== "commit")) return "it is damaged";
  if (!Array.isArray(e.steps) || !Array.isArray(e.dirs) || e.steps.length === 0) return "it is damaged";
  const files: string[] = [];
  for (const s of e.steps as unknown[]) {
    if (typeof s !== "object" || s === null) return "it is damaged";
    const step = s as Record<string, unknown>;
    const target = step.target;
    if (typeof target !== "string" || !strictlyInside(root, target)) return `it names ${String(target)}, outside the workspace`;
    files.push(target);
    const backupOk = (b: unknown) => b === undefined || sideOf(target, b, "bak");
    if (step.op === "write") {
      if (!sideOf(target, step.tmp, "tmp") || !backupOk(step.backup) || typeof step.hash !== "string") return `its temporary files for ${target} are not bunker's`;
    } else if (step.op === "delete") {
      if (!sideOf(target, step.backup, "bak")) return `its temporary files for ${target} are not bunker's`;
    } else if (step.op === "move") {
      const from = step.from;
      if (typeof from !== "string" || !strictlyInside(root, from)) return `it names ${String(from)}, outside the workspace`;
      files.push(from);
      if (!sideOf(target, step.tmp, "tmp") || !backupOk(step.backup) || !sideOf(from, step.fromBackup, "bak") || typeof step.hash !== "string") {
        return `its temporary files for ${target} are not bunker's`;
      }
    } else return "it is damaged";
  }
  for (const d of e.dirs as unknown[]) {
    if (typeof d !== "string" || !strictlyInside(root, d)) return `it names ${String(d)}, outside the workspace`;
    if (!files.some((f) => dirname(f) === d || dirname(f).startsWith(`${d}${sep}`))) return `it names a folder, ${d}, that holds none of its files`;
  }
  return null;
}

/** A journal that recovery refuses, renamed aside (kept for a person to look at, never read again). */
export interface RefusedJournal {
  path: string;
  keptAs: string | null;
  why: string;
}

/**
 * Journals of `root` whose writer is no longer running (to recover), and those bunker did not write as they stand
 * (planted or damaged: journalProblem), each renamed aside (`.refused-TIME`), never read again, removed after 30 days.
 */
export function journalsToRecover(dir: string, root: string): { recover: { path: string; entry: JournalEntry }[]; refused: RefusedJournal[] } {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { recover: [], refused: [] };
  }
  const prefix = `${Bun.hash(root).toString(16)}-`;
  const out: { path: string; entry: JournalEntry }[] = [];
  const refused: RefusedJournal[] = [];
  const refuse = (path: string, why: string) => refused.push({ path, keptAs: setAside(path), why });
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const path = join(dir, name);
    if (name.endsWith(".json.tmp")) {
      // A journal killed while being first written: nothing had been created yet.
      const pid = Number(name.slice(prefix.length).split("-")[0]);
      if (!isRunning(pid, null)) removeQuietly(path);
      continue;
    }
    const refusedAt = /\.json\.refused-(\d+)$/.exec(name);
    if (refusedAt) {
      if (Date.now() - Number(refusedAt[1]) > KEEP_REFUSED_MS) removeQuietly(path);
      continue;
    }
    if (!name.endsWith(".json")) continue;
    let entry: unknown;
    try {
      const read = readRegularSync(path, path, { max: 64 * 1024 * 1024 });
      if (!read) continue;
      entry = JSON.parse(read.bytes.toString("utf8"));
    } catch (err) {
      // Not a file (a link, a FIFO), too big, or not JSON: kept aside for a person to look at.
      refuse(path, err instanceof SyntaxError ? "it is damaged" : `it cannot be read (${(err as Error).message})`);
      continue;
    }
    // Another workspace's journal whose name collides with this one's: not ours to judge.
    if (typeof entry === "object" && entry !== null && (entry as JournalEntry).v === 1 && (entry as JournalEntry).root !== root) continue;
    const problem = journalProblem(entry, root);
    if (problem) {
      refuse(path, problem);
      continue;
    }
    const ok = entry as JournalEntry;
    if (isRunning(ok.pid, ok.started)) continue;
    out.push({ path, entry: ok });
  }
  return { recover: out, refused };
}

/** How long a refused journal is kept for a person to look at. */
export const KEEP_REFUSED_MS = 30 * 86_400_000;

/** `path` renamed to `path.refused-TIME`, or null when it could not be. */
function setAside(path: string): string | null {
  const to = `${path}.refused-${Date.now()}`;
  try {
    renameSync(path, to);
    return to;
  } catch {
    return null;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}
