// The intent journal of a multi-file commit: written and flushed in the state
// directory (never the workspace) before the first temp file, rewritten when
// every temp file is ready and before the first rename, removed when done.
// A bunker killed in between leaves it behind; the next start in that
// workspace reads it and puts the files back as they were (or finishes the
// commit, if every rename had happened), then removes bunker's temp files.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { readRegularSync } from "./file-kind.ts";
import { join } from "node:path";
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

/** Journals of `root` whose writer is no longer running. */
export function orphanedJournals(dir: string, root: string): { path: string; entry: JournalEntry }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const prefix = `${Bun.hash(root).toString(16)}-`;
  const out: { path: string; entry: JournalEntry }[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const path = join(dir, name);
    if (name.endsWith(".json.tmp")) {
      // A journal killed while being first written: nothing had been created yet.
      const pid = Number(name.slice(prefix.length).split("-")[0]);
      if (!isRunning(pid, null)) removeQuietly(path);
      continue;
    }
    if (!name.endsWith(".json")) continue;
    let entry: JournalEntry;
    try {
      const read = readRegularSync(path, path, { max: 64 * 1024 * 1024 });
      if (!read) continue;
      entry = JSON.parse(read.bytes.toString("utf8")) as JournalEntry;
    } catch {
      continue; // unreadable: leave it for a person to look at
    }
    if (entry.v !== 1 || entry.root !== root || isRunning(entry.pid, entry.started)) continue;
    out.push({ path, entry });
  }
  return out;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}
