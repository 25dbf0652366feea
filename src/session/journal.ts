// A new headless session is saved as a journal of its own, not in the SQLite
// store: one append-only file in the state directory, beside the store
// (`sessions.db.pending/ID.PID-START.jsonl`). Opening the store costs a
// one-shot turn about 2 ms: bun:sqlite, the log, and the checkpoint SQLite
// makes when the last connection closes at exit (two fsyncs). The journal costs
// a file made beside the first request (its folder flushed then, while the
// request is out), one write per save and one fdatasync at the end. Whoever
// opens the store next folds every journal into it (SessionStore.open, the one
// place), so every reader of sessions sees them; the fold is idempotent and
// keeps a running writer's file until it has exited.
//
// Each save appends one line: the JSON of what changed since the line before
// (the messages from an index on, the todos, usage, whether the turn is
// running). A line cut short (a kill or a power cut mid-write: no newline, or
// not JSON) or out of sequence is ignored with every line after it: the lines
// before it stand.
import { closeSync, constants, fdatasyncSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { FileKindError, readRegularSync } from "../fs/file-kind.ts";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type { TodoItem } from "../agent/session-state.ts";
import type { UsageTotals } from "../agent/usage.ts";
import { syncDir, syncDirLater } from "../fs/durable.ts";

/**
 * Past this many journals waiting, a headless run folds them into the store at its end (once the
 * answer is out), so runs that never open the store (a script calling `bunker -p` in a loop) do
 * not pile up files for the next reader to take in at once.
 */
export const FOLD_WHEN_WAITING = 64;

/** The most of a journal read back (a session with many pictures runs to tens of MB; more is not one of ours). */
export const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;
/** How long a journal that could not be read is kept aside (for a person, or a newer bunker, to take up) before it is removed. */
export const KEEP_UNREAD_MS = 30 * 86_400_000;

/** Where `sessionsPath`'s journals wait to be folded in. */
export function pendingDir(sessionsPath: string): string {
  return `${sessionsPath}.pending`;
}

/** A journal's file name: the session, and its writer (pid:start) so a folder knows whether it is still running. */
function journalName(id: string, writer: string): string {
  return `${id}.${writer.replace(":", "-")}.jsonl`;
}

/** The writer (pid:start) a journal's name carries; null when the name is not a journal's. */
export function journalWriter(name: string): string | null {
  const m = /^[0-9a-z]+\.(\d+)-([0-9]*)\.jsonl$/.exec(name);
  return m ? `${m[1]}:${m[2]}` : null;
}

/** The name a journal that could not be read is kept under: no longer a journal's (never folded or counted), dated. */
export function unreadName(name: string, now = Date.now()): string {
  return `${name}.unread-${now}`;
}

/** When a journal kept aside by unreadName was set aside (ms), or null when `name` is not one. */
export function unreadSince(name: string): number | null {
  const m = /\.jsonl\.unread-(\d+)$/.exec(name);
  return m ? Number(m[1]) : null;
}

/**
 * How many journals wait in `dir`. Only journals count: one kept aside as unreadable (unreadName) is not waiting
 * to be folded. By their ending, not journalWriter's pattern: this runs in every headless turn, over up to
 * FOLD_WHEN_WAITING names, and nothing but bunker writes in its folder (at worst a stray name folds them sooner).
 */
function waitingIn(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) if (name.endsWith(".jsonl")) n++;
  return n;
}

/** Lines for the person about journals set aside, said by whichever opening of the store has a way to say them. */
const notices: string[] = [];

/** The lines waiting to be said (each once). */
export function takeJournalNotices(): string[] {
  return notices.splice(0);
}

/**
 * A journal that cannot be read (damaged, not a file, or a newer bunker's), renamed aside so it is neither folded
 * nor counted again, and said once. Null when it could not be renamed (it stays, and is tried again next time).
 */
export function setAsideUnread(dir: string, name: string, why: string): string | null {
  const to = join(dir, unreadName(name));
  try {
    renameSync(join(dir, name), to);
  } catch {
    return null;
  }
  notices.push(`A saved headless session could not be read (${why}): it is kept as ${to} for ${KEEP_UNREAD_MS / 86_400_000} days, then removed.`);
  return to;
}

/** What a save hands the journal. */
export interface JournalSnapshot {
  messages: MessageParam[];
  todos: TodoItem[];
  running: string | null;
  usage?: UsageTotals;
  contextTokens?: number;
}

/** A journal read back: the session as its last whole line left it. */
export interface JournalState {
  id: string;
  root: string;
  model: string;
  /** When the journal's first and last lines were written (ms). */
  created: number;
  updated: number;
  /** Lines read (1, 2, …): what a fold has taken in. */
  seq: number;
  messages: MessageParam[];
  todos: TodoItem[];
  running: string | null;
  usage: UsageTotals | null;
  contextTokens: number | null;
}

/** One line: what the session is now, as a change to the line before. */
interface Line {
  seq: number;
  id: string;
  root: string;
  model: string;
  at: number;
  /** The messages before this index are those of the line before; from it on, `add`. */
  from: number;
  add: MessageParam[];
  todos: TodoItem[];
  running: string | null;
  usage: UsageTotals | null;
  contextTokens: number | null;
}

export class JournalWriter {
  private seq = 0;
  /** Each message as last written (JSON), to write only what changed. */
  private written: string[] = [];

  private constructor(
    private fd: number,
    readonly path: string,
    private readonly meta: { id: string; root: string; model: string },
    /** Journals waiting to be folded when this one was made, itself included. */
    readonly waiting: number,
    /** The folder's flush of this journal's entry: awaited before the data's, so both are on disk before the answer. */
    private readonly entrySynced: Promise<void>,
  ) {}

  /**
   * Makes the journal of session `id` (written by `writer`, pid:start) for the store at
   * `sessionsPath`: owner-only, in an owner-only folder, whose entry for it is flushed to
   * disk beside the first request (on Bun's thread pool: on the main thread, a disk busy with
   * other processes' writes held up the reply for milliseconds). Throws with the reason.
   */
  static create(sessionsPath: string, meta: { id: string; root: string; model: string }, writer: string): JournalWriter {
    const dir = pendingDir(sessionsPath);
    const path = join(dir, journalName(meta.id, writer));
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND;
    let fd: number;
    let made: string | undefined;
    try {
      fd = openSync(path, flags, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      made = mkdirSync(dir, { recursive: true, mode: 0o700 });
      fd = openSync(path, flags, 0o600);
    }
    // The new entry, and those of any folder made for it (the first run only, at once), on disk.
    if (made) {
      syncDir(dir);
      for (let d = dir; d !== made && dirname(d) !== d; d = dirname(d)) syncDir(dirname(d));
      syncDir(dirname(made));
    }
    const entrySynced = made ? Promise.resolve() : syncDirLater(dir);
    return new JournalWriter(fd, path, meta, made ? 1 : waitingIn(dir), entrySynced);
  }

  /** Whether anything was written: a journal with nothing in it is removed at the end. */
  get empty(): boolean {
    return this.seq === 0;
  }

  /** Appends the session as it is now (one write; on disk once `sync` has run). Throws when it cannot be written. */
  append(snap: JournalSnapshot): void {
    // A loop, not .map: a read-only headless turn calls none (jit.ts).
    const json: string[] = [];
    for (const m of snap.messages) json.push(JSON.stringify(m));
    let from = 0;
    while (from < json.length && from < this.written.length && json[from] === this.written[from]) from++;
    this.seq++;
    const head = {
      seq: this.seq, id: this.meta.id, root: this.meta.root, model: this.meta.model, at: Date.now(), from,
      todos: snap.todos, running: snap.running, usage: snap.usage ?? null, contextTokens: snap.contextTokens ?? null,
    };
    // The messages go in as already serialized: each is turned into JSON once a save.
    const line = new TextEncoder().encode(`${JSON.stringify(head).slice(0, -1)},"add":[${json.slice(from).join(",")}]}\n`);
    let off = 0;
    while (off < line.length) off += writeSync(this.fd, line, off);
    this.written = json;
  }

  /** Flushes the journal to disk; then closes it. A journal with nothing in it is removed. */
  async finish(): Promise<void> {
    if (this.fd < 0) return;
    const fd = this.fd;
    this.fd = -1;
    try {
      if (this.seq === 0) {
        unlinkSync(this.path);
        return;
      }
      await this.entrySynced;
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/** Errors that say nothing of the file: too many open files (bunker's or the machine's), a call to try again. */
const PASSING = new Set(["EMFILE", "ENFILE", "EAGAIN", "EWOULDBLOCK", "EINTR", "ENOMEM"]);

/**
 * A journal file read back: the session it holds (null when no line of it reads) and whether it has a whole line at
 * all (one with none lost nothing when removed: its writer died before its first save); or why it cannot be read
 * (a link, a FIFO or another non-file, or over MAX_JOURNAL_BYTES: never followed, opened blocking or read whole);
 * or `busy`, why it could not be read this time (too many open files): nothing wrong with it, read again later.
 */
export function readJournalFile(path: string): { state: JournalState | null; hasLine: boolean } | { unreadable: string } | { busy: string } {
  let text: string;
  try {
    const read = readRegularSync(path, basename(path), { max: MAX_JOURNAL_BYTES });
    if (!read) return { state: null, hasLine: false };
    text = read.bytes.toString("utf8");
  } catch (err) {
    const code = err instanceof FileKindError ? err.code : (err as NodeJS.ErrnoException).code;
    if (code && PASSING.has(code)) return { busy: (err as Error).message };
    return { unreadable: err instanceof FileKindError ? err.message : `it cannot be read: ${(err as Error).message}` };
  }
  return { state: parseJournal(text), hasLine: text.includes("\n") };
}

/** The session a journal holds, from its whole lines up to the first that is cut short or damaged; null when none is whole. */
export function readJournal(path: string): JournalState | null {
  const read = readJournalFile(path);
  return "state" in read ? read.state : null;
}

function parseJournal(text: string): JournalState | null {
  let state = null as JournalState | null;
  let start = 0;
  for (let end = text.indexOf("\n"); end >= 0; start = end + 1, end = text.indexOf("\n", start)) {
    const before = state;
    const line = parseLine(text.slice(start, end), (before?.seq ?? 0) + 1, before?.messages.length ?? 0);
    if (!line || (before && (line.id !== before.id || line.root !== before.root))) break;
    state = {
      id: line.id, root: line.root, model: line.model, created: before?.created ?? line.at, updated: line.at, seq: line.seq,
      messages: (before?.messages ?? []).slice(0, line.from).concat(line.add), todos: line.todos, running: line.running, usage: line.usage, contextTokens: line.contextTokens,
    };
  }
  return state;
}


/** One line, checked: its place in the sequence and its shape; null when either is wrong. */
function parseLine(text: string, seq: number, messagesBefore: number): Line | null {
  let line: Line;
  try {
    line = JSON.parse(text) as Line;
  } catch {
    return null;
  }
  const ok = typeof line === "object" && line !== null && line.seq === seq && typeof line.id === "string" && typeof line.root === "string" && typeof line.model === "string" &&
    typeof line.at === "number" && Number.isInteger(line.from) && line.from >= 0 && line.from <= messagesBefore && Array.isArray(line.add) && Array.isArray(line.todos);
  return ok ? line : null;
}
