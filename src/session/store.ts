// Saved sessions (bun:sqlite): the conversation and the todo list of each
// session, so `bunker -c` and `bunker -r ID` can pick one up again. One row a
// session, rewritten after every round, so a crash loses at most the round
// that was running. The file holds file contents the model read: it is
// created owner-only (0600, in a 0700 directory).
import { constants, Database } from "bun:sqlite";
import { chmodSync, mkdirSync, readdirSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { holdsPrompt } from "../agent/history.ts";
import type { TodoItem } from "../agent/session-state.ts";
import type { UsageTotals } from "../agent/usage.ts";
import { newSessionId, sessionIdProblem } from "./id.ts";
import { SessionError } from "./error.ts";

export { newSessionId, SessionError };
import { shellQuote } from "../shell/quote.ts";
import { applyDelta, makeDelta, sha256 } from "../change/delta.ts";
import { fsProblem, isDamagedDatabase } from "../fs/errno-words.ts";
import { idRunning } from "../fs/process-id.ts";
import { journalWriter, KEEP_UNREAD_MS, pendingDir, readJournalFile, setAsideUnread, unreadSince, type JournalState } from "./journal.ts";

export interface SessionSummary {
  id: string;
  root: string;
  model: string;
  title: string;
  created: number;
  updated: number;
  /** Messages in the conversation (a user turn with tool rounds counts each message). */
  messageCount: number;
  /** Bumped by every save: a save that expects another version lost a race with a second bunker. */
  version: number;
}

export interface SavedSession extends SessionSummary {
  messages: MessageParam[];
  todos: TodoItem[];
  /** While a turn is unfinished, the bunker running it (pid:start); null otherwise. */
  running: string | null;
  /** Tokens the session used over all its runs; null when none were saved (an older bunker's session). */
  usage: UsageTotals | null;
  /** Tokens its last request took (how full the context was): what the status line and compaction start from. */
  contextTokens: number | null;
}

/** What a round leaves to save. */
export interface SessionSnapshot {
  messages: MessageParam[];
  todos: TodoItem[];
  /** The bunker whose turn is still running in `messages` (pid:start), so another one does not adopt it. */
  running?: string | null;
  /** Tokens used so far over all the session's runs (kept as they were when not given). */
  usage?: UsageTotals;
  /** Tokens the last request took (saved with the usage). */
  contextTokens?: number;
}


const SCHEMA_VERSION = 2;
/** How long a bunker waits for another one's lock on the store. */
const BUSY_MS = 5000;

/** SQLite's "database is locked": another connection holds the lock. */
function isBusy(err: Error): boolean {
  return (err as { code?: string }).code === "SQLITE_BUSY" || /database is locked/.test(err.message);
}
/** A version is stored whole at least every this many deltas, so reading one back stays cheap. */
const MAX_DELTA_DEPTH = 100;

export class SessionStore {
  private constructor(
    private readonly db: Database,
    /** Where the store lives, for what a failure says. */
    readonly path: string,
  ) {}

  /**
   * Opens (creating if needed) the store at `path`. Throws SessionError with the reason.
   * `startLog`: for a session that will write: the first write after the write-ahead log was
   * emptied writes the log's header and flushes it and its folder to disk (two fsyncs). A new
   * session opens the store beside its first request, and starts the log then (rewriting the
   * schema version as it is), so its first save, before the second request, does not wait for them.
   */
  static open(path: string, opts: { startLog?: boolean } = {}): SessionStore {
    // Two bunkers making a new store at once: the second one's switch to the write-ahead log is refused
    // as "database is locked" without waiting for the lock (SQLite's busy timeout does not cover it):
    // it tries again, as long as the busy timeout would have waited.
    for (const deadline = Date.now() + BUSY_MS; ; ) {
      try {
        return SessionStore.openOnce(path, opts);
      } catch (err) {
        if (!(err instanceof SessionError && err.cause instanceof Error && isBusy(err.cause)) || Date.now() > deadline) throw err;
        Bun.sleepSync(5 + Math.random() * 20);
      }
    }
  }

  private static openOnce(path: string, opts: { startLog?: boolean }): SessionStore {
    let db: Database | undefined;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      db = new Database(path, { create: true, strict: true });
      // The write-ahead log and its index stay between runs: the last one to close empties the log
      // (journal_size_limit 0: cut to zero bytes, no conversation left in it) once the store file has
      // everything and is flushed to disk, as before, but deletes neither file, and the next run does
      // not make them again (0.3 to 0.5 ms of CPU off every headless turn).
      db.fileControl(constants.SQLITE_FCNTL_PERSIST_WAL, 1);
      chmodSync(path, 0o600);
      // Two bunkers in one project write at once: wait for the lock rather than fail.
      db.exec(`PRAGMA busy_timeout = ${BUSY_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 0;`);
      migrate(db);
      if (opts.startLog) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    } catch (err) {
      db?.close();
      throw new SessionError(`cannot open the session store ${path}: ${explainStoreError(err, path)}`, 1, { cause: err });
    }
    const store = new SessionStore(db, path);
    store.foldPending();
    return store;
  }

  /**
   * Folds the journals of headless runs (src/session/journal.ts) into the store: every
   * reader opens the store through here, so every reader sees them. A journal is taken in
   * up to its last whole line, in one transaction that also notes how far (`journal_folds`),
   * so folding again, or two bunkers folding at once, changes nothing twice. A journal whose
   * writer has exited is removed once folded (or when it holds not one whole line: its writer died
   * before its first save); a running one's stays and is folded again later.
   * A session that another bunker continued meanwhile is not overwritten: the journal's
   * conversation is kept as a new session, as a conflicting save is. A journal that cannot be
   * folded (the store is locked past the wait, the disk is full) stays for the next opening.
   */
  private foldPending(): void {
    const dir = pendingDir(this.path);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    this.foldsTable();
    // Each fold reaches the disk before its journal is removed (FULL: the log is flushed at every commit; NORMAL
    // leaves that to the next checkpoint, and a power cut before it would lose a session whose journal is gone).
    this.db.exec("PRAGMA synchronous = FULL");
    try {
      this.foldEach(dir, names);
    } finally {
      this.db.exec("PRAGMA synchronous = NORMAL");
    }
    this.pruneFolds(new Set(names));
  }

  private foldEach(dir: string, names: string[]): void {
    const now = Date.now();
    for (const name of names) {
      const file = join(dir, name);
      // One kept aside as unreadable: removed once it has been kept long enough.
      const since = unreadSince(name);
      if (since !== null) {
        if (now - since > KEEP_UNREAD_MS) {
          try {
            unlinkSync(file);
          } catch {
            // gone already, or not ours to remove: tried again at the next opening
          }
        }
        continue;
      }
      const writer = journalWriter(name);
      if (writer === null) continue;
      try {
        const running = idRunning(writer);
        const read = readJournalFile(file);
        // Not read this time (too many open files): nothing wrong with it, left in place for the next opening.
        if ("busy" in read) continue;
        // Not a file, too big, or a first line that is whole but cannot be read (damaged, or a newer bunker's): kept
        // aside, said once, neither folded nor counted again (before, kept in place and read at every opening).
        if ("unreadable" in read || (read.state === null && read.hasLine)) {
          if (!running) setAsideUnread(dir, name, "unreadable" in read ? read.unreadable : "its lines are damaged, or written by a newer bunker");
          continue;
        }
        if (read.state) this.fold(name, read.state);
        if (!running) unlinkSync(file);
      } catch {
        // left for the next opening: nothing is lost
      }
    }
  }

  private foldsTableMade = false;
  /** Which journals were folded how far, and into which session at which version. */
  private foldsTable(): void {
    if (this.foldsTableMade) return;
    this.usageTable();
    this.db.exec(`CREATE TABLE IF NOT EXISTS journal_folds (name TEXT PRIMARY KEY, seq INTEGER NOT NULL, session TEXT NOT NULL, version INTEGER NOT NULL, at INTEGER NOT NULL)`);
    this.foldsTableMade = true;
  }

  /** One journal into the store, in one transaction; nothing when it was folded this far before. */
  private fold(name: string, state: JournalState): void {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const done = this.db.query(`SELECT seq, session, version FROM journal_folds WHERE name = $name`).get({ name }) as { seq: number; session: string; version: number } | null;
      if (!done || done.seq < state.seq) {
        let id = done?.session ?? state.id;
        const row = this.db.query(`SELECT version FROM sessions WHERE id = $id`).get({ id }) as { version: number } | null;
        // Ours to write: a session only this journal has written, as the last fold left it.
        const ours = done ? row?.version === done.version : row === null;
        if (!ours) id = newSessionId();
        const usage = state.usage ? JSON.stringify({ ...state.usage, ...(state.contextTokens ? { context_tokens: state.contextTokens } : {}) }) : null;
        const values = {
          id, root: state.root, model: state.model, title: titleOf(state.messages), created: state.created, updated: state.updated,
          count: state.messages.length, messages: JSON.stringify(state.messages), todos: JSON.stringify(state.todos), running: state.running,
        };
        const saved = this.write(values, ours ? (row?.version ?? null) : null, usage);
        if (saved === "conflict") throw new Error("two sessions got the same id");
        this.db.query(`INSERT OR REPLACE INTO journal_folds (name, seq, session, version, at) VALUES ($name, $seq, $id, $saved, $at)`).run({ name, seq: state.seq, id, saved, at: Date.now() });
      }
      this.db.exec("COMMIT");
    } finally {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
    }
  }

  /**
   * Forgets folds of journals gone for a day. Not at once: a removal that a power cut
   * undid would bring a journal back, and without its note it would be folded twice.
   */
  private pruneFolds(present: Set<string>): void {
    const old = this.db.query(`SELECT name FROM journal_folds WHERE at < $before`).all({ before: Date.now() - 86_400_000 }) as { name: string }[];
    const gone = old.filter((r) => !present.has(r.name));
    if (gone.length === 0) return;
    const del = this.db.query(`DELETE FROM journal_folds WHERE name = $name`);
    this.db.transaction(() => {
      for (const r of gone) del.run({ name: r.name });
    })();
  }

  /** A failure of this store in words a person can act on (a full disk, a damaged file). */
  explain(err: unknown): string {
    return explainStoreError(err, this.path);
  }

  /**
   * Writes the session. `expected` is the version this process last saw (null:
   * never saved). Returns the new version, or "conflict" when another bunker
   * saved the session since: nothing is written then, and the caller forks.
   */
  save(id: string, meta: { root: string; model: string }, snap: SessionSnapshot, expected: number | null): number | "conflict" {
    const now = Date.now();
    const values = {
      id,
      root: meta.root,
      model: meta.model,
      title: titleOf(snap.messages),
      created: now,
      updated: now,
      count: snap.messages.length,
      messages: JSON.stringify(snap.messages),
      todos: JSON.stringify(snap.todos),
      running: snap.running ?? null,
    };
    // The row and its usage in one transaction: one commit a round, not two.
    this.usageTable();
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const usage = snap.usage ? JSON.stringify({ ...snap.usage, ...(snap.contextTokens ? { context_tokens: snap.contextTokens } : {}) }) : null;
      const saved = this.write(values, expected, usage);
      this.db.exec("COMMIT");
      return saved;
    } finally {
      // A failed statement (a full disk) may have ended the transaction itself.
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
    }
  }

  /** The session's row, and its usage (JSON) when given; inside save's transaction. */
  private write(values: Record<string, string | number | null>, expected: number | null, usage: string | null): number | "conflict" {
    const id = values.id as string;
    let saved: number | "conflict";
    if (expected === null) {
      const r = this.db
        .query(
          `INSERT OR IGNORE INTO sessions (id, root, model, title, created, updated, message_count, messages, todos, version, running)
           VALUES ($id, $root, $model, $title, $created, $updated, $count, $messages, $todos, 1, $running)`,
        )
        .run(values);
      saved = r.changes === 1 ? 1 : "conflict";
    } else {
      const r = this.db
        .query(
          `UPDATE sessions SET model = $model, title = $title, updated = $updated, message_count = $count,
             messages = $messages, todos = $todos, version = version + 1, running = $running
           WHERE id = $id AND version = $expected`,
        )
        .run({ ...values, expected });
      saved = r.changes === 1 ? expected + 1 : "conflict";
    }
    if (saved !== "conflict" && usage !== null) {
      this.db.query(`INSERT OR REPLACE INTO session_usage (id, usage) VALUES ($id, $usage)`).run({ id, usage });
    }
    return saved;
  }

  /** The session usage table, made when first used (an addition any schema version can carry, as prompt_history). */
  private usageTableMade = false;
  private usageTable(): void {
    if (this.usageTableMade) return;
    this.db.exec(`CREATE TABLE IF NOT EXISTS session_usage (id TEXT PRIMARY KEY, usage TEXT NOT NULL)`);
    this.usageTableMade = true;
  }

  /** A session as decoded, with the tokens it used (null when none were saved, or they cannot be read). */
  private withUsage(session: SavedSession): SavedSession {
    this.usageTable();
    const row = this.db.query(`SELECT usage FROM session_usage WHERE id = $id`).get({ id: session.id }) as { usage: string } | null;
    let usage: unknown = null;
    try {
      usage = row ? JSON.parse(row.usage) : null;
    } catch {
      // unreadable: counted as unknown, not as a failure to resume
    }
    const context = (usage as { context_tokens?: unknown } | null)?.context_tokens;
    const contextTokens = typeof context === "number" && Number.isFinite(context) && context >= 0 ? context : null;
    if (isUsage(usage)) delete (usage as { context_tokens?: unknown }).context_tokens;
    return { ...session, usage: isUsage(usage) ? usage : null, contextTokens };
  }

  /** The most recently used session in `root`, or null. */
  latest(root: string): SavedSession | null {
    const row = this.db.query(`SELECT * FROM sessions WHERE root = $root ORDER BY updated DESC, rowid DESC LIMIT 1`).get({ root }) as Row | null;
    return row ? this.withUsage(decode(row)) : null;
  }

  /** The session whose id is `idOrPrefix` or starts with it (at least 4 characters). */
  find(idOrPrefix: string): SavedSession {
    const wanted = idOrPrefix.trim().toLowerCase();
    const problem = sessionIdProblem(idOrPrefix);
    if (problem) throw new SessionError(problem, 2);
    const rows = this.db.query(`SELECT * FROM sessions WHERE substr(id, 1, length($p)) = $p ORDER BY updated DESC LIMIT 2`).all({ p: wanted }) as Row[];
    if (rows.length === 0) throw new SessionError(`no saved session ${idOrPrefix} (bunker --resume lists them)`, 2);
    if (rows.length > 1) throw new SessionError(`${idOrPrefix} matches more than one session: give more of the id`, 2);
    return this.withUsage(decode(rows[0]!));
  }

  /** How many sessions `root` has (the list shows only the newest). */
  count(root: string): number {
    return (this.db.query(`SELECT count(*) AS n FROM sessions WHERE root = $root`).get({ root }) as { n: number }).n;
  }

  /** Sessions in `root`, newest first. */
  list(root: string, limit = 20): SessionSummary[] {
    const rows = this.db
      .query(`SELECT id, root, model, title, created, updated, message_count, version FROM sessions WHERE root = $root ORDER BY updated DESC, rowid DESC LIMIT $limit`)
      .all({ root, limit }) as Row[];
    return rows.map(summaryOf);
  }

  /** The last thing the model said in session `id` (its last text's last non-empty line), "" when nothing. */
  lastReply(id: string): string {
    return this.glance(id).lastReply;
  }

  /**
   * What a session is named by in the picker and the list: the last thing the model said (its last text's last
   * line that says something, "" when nothing) and how many prompts the person sent (not the API's messages,
   * which count every tool round).
   */
  glance(id: string): { lastReply: string; prompts: number } {
    const row = this.db.query(`SELECT messages FROM sessions WHERE id = $id`).get({ id }) as { messages: string } | null;
    let messages: unknown;
    try {
      messages = JSON.parse(row?.messages ?? "[]");
    } catch {
      return { lastReply: "", prompts: 0 };
    }
    if (!Array.isArray(messages)) return { lastReply: "", prompts: 0 };
    const valid = messages.filter(isMessage);
    let prompts = 0;
    for (const m of valid) if (holdsPrompt(m)) prompts++;
    for (const m of [...valid].reverse()) {
      if (m.role !== "assistant") continue;
      const text = typeof m.content === "string" ? m.content : m.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
      // Its last line that says something: not a code fence, a table rule or a lone bracket ("→ ```" told nothing; new user),
      // and outside code: a line of a code block reads as cut from the middle of something (new user's N11-14). A reply
      // that is all code is named by its last code line.
      const prose: string[] = [];
      const code: string[] = [];
      let fence: string | null = null;
      for (const raw of text.split("\n")) {
        const l = raw.trim();
        const mark = /^(`{3,}|~{3,})/.exec(l)?.[1];
        if (mark && (fence === null || (mark[0] === fence[0] && mark.length >= fence.length))) {
          fence = fence === null ? mark : null;
          continue;
        }
        if (/[\p{L}\p{N}]/u.test(l)) (fence === null ? prose : code).push(l);
      }
      // Prose as it reads on screen: markdown's marks taken out (the picker showed "The package is **…": N12-02).
      const line = prose.length > 0 ? plainMarkdown(prose.at(-1)!) : code.at(-1);
      if (line) return { lastReply: line.length > 120 ? `${line.slice(0, 119)}…` : line, prompts };
    }
    return { lastReply: "", prompts };
  }

  /** Remembers a message the person sent in `root`, for the Up arrow in later sessions. */
  addPrompt(root: string, text: string): void {
    this.promptTable();
    this.db.query(`INSERT INTO prompt_history (root, text, at) VALUES ($root, $text, $at)`).run({ root, text, at: Date.now() });
    // Only the newest are ever offered: keep the table from growing without end.
    this.db.query(`DELETE FROM prompt_history WHERE root = $root AND rowid NOT IN (SELECT rowid FROM prompt_history WHERE root = $root ORDER BY rowid DESC LIMIT ${PROMPTS_KEPT})`).run({ root });
  }

  /** Messages sent in `root`, newest first, each once. */
  prompts(root: string, limit = PROMPTS_KEPT): string[] {
    this.promptTable();
    const rows = this.db.query(`SELECT text FROM prompt_history WHERE root = $root GROUP BY text ORDER BY max(rowid) DESC LIMIT $limit`).all({ root, limit }) as { text: string }[];
    return rows.map((r) => r.text);
  }

  /**
   * The newest message sent in `root` after `since` (ms since the epoch), not a command ("/cost"; "/tmp/x.png what is
   * this?" is a message), nor exit or quit: its text and when; null when none.
   */
  promptAfter(root: string, since: number): { text: string; at: number } | null {
    this.promptTable();
    const rows = this.db.query(`SELECT text, at FROM prompt_history WHERE root = $root AND at > $since ORDER BY rowid DESC LIMIT 50`).all({ root, since }) as { text: string; at: number }[];
    return rows.find((r) => {
      const text = r.text.trim();
      return text !== "" && text !== "exit" && text !== "quit" && !/^\/[^\s/]*(?:\s|$)/.test(text);
    }) ?? null;
  }

  /** The prompt history table, made when first used (an addition any schema version can carry). */
  private promptTable(): void {
    this.db.exec(`CREATE TABLE IF NOT EXISTS prompt_history (root TEXT NOT NULL, text TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS prompt_history_by_root ON prompt_history (root);`);
  }

  /** Keeps `bytes` (deduplicated by sha256; a delta against `base`, the bytes stored as `base.hash`, when smaller); returns its hash. */
  putBlob(bytes: Uint8Array, base: { hash: string; bytes: Uint8Array } | null): string {
    const hash = sha256(bytes);
    if (this.db.query(`SELECT 1 FROM blobs WHERE hash = $hash`).get({ hash })) return hash;
    const baseRow = base ? (this.db.query(`SELECT depth FROM blobs WHERE hash = $hash`).get({ hash: base.hash }) as { depth: number } | null) : null;
    let row = { hash, base: null as string | null, depth: 0, data: Bun.zstdCompressSync(bytes) };
    if (base && baseRow && baseRow.depth < MAX_DELTA_DEPTH) {
      const delta = Bun.zstdCompressSync(makeDelta(base.bytes, bytes));
      if (delta.length < row.data.length) row = { hash, base: base.hash, depth: baseRow.depth + 1, data: delta };
    }
    this.db.query(`INSERT OR IGNORE INTO blobs (hash, base, depth, data) VALUES ($hash, $base, $depth, $data)`).run(row);
    return hash;
  }

  /** The bytes stored as `hash`; a SessionError when they are missing or damaged. */
  getBlob(hash: string): Uint8Array {
    const chain: { base: string | null; data: Uint8Array }[] = [];
    for (let h: string | null = hash; h !== null; ) {
      const row = this.db.query(`SELECT base, data FROM blobs WHERE hash = $h`).get({ h }) as { base: string | null; data: Uint8Array } | null;
      if (!row) throw new SessionError(`the session store is missing a saved file version (${hash.slice(0, 12)})`);
      chain.push(row);
      h = row.base;
    }
    let bytes: Uint8Array = Bun.zstdDecompressSync(chain.pop()!.data);
    for (const link of chain.reverse()) bytes = applyDelta(bytes, Bun.zstdDecompressSync(link.data));
    if (sha256(bytes) !== hash) throw new SessionError(`a saved file version in the session store is damaged (${hash.slice(0, 12)})`);
    return bytes;
  }

  /** One committed change: a row per file, in one transaction. */
  recordChange(rows: ChangeRow[]): void {
    const insert = this.db.query(
      `INSERT INTO changes (session, turn, prompt, message_index, commit_id, at, tool, path, display, before_hash, after_hash, before_mode, after_mode, added, removed)
       VALUES ($session, $turn, $prompt, $message_index, $commit_id, $at, $tool, $path, $display, $before_hash, $after_hash, $before_mode, $after_mode, $added, $removed)`,
    );
    this.db.transaction(() => {
      const next = (this.db.query(`SELECT coalesce(max(commit_id), 0) + 1 AS n FROM changes`).get() as { n: number }).n;
      for (const r of rows) insert.run({ ...r, commit_id: next });
    })();
  }

  /** The changes of `session` not yet undone, from turn `fromTurn` on, oldest first. */
  changesSince(session: string, fromTurn: number): StoredChange[] {
    return this.db.query(`SELECT * FROM changes WHERE session = $session AND turn >= $fromTurn AND undone = 0 ORDER BY id`).all({ session, fromTurn }) as StoredChange[];
  }

  markUndone(ids: number[]): void {
    const q = this.db.query(`UPDATE changes SET undone = 1 WHERE id = $id`);
    this.db.transaction(() => {
      for (const id of ids) q.run({ id });
    })();
  }

  close(): void {
    this.db.close();
  }
}

/** Prompts kept per workspace. */
const PROMPTS_KEPT = 500;

/** A file of a committed change, as recorded. */
export interface ChangeRow {
  session: string;
  turn: number;
  prompt: string;
  message_index: number;
  at: number;
  tool: string;
  path: string;
  display: string;
  before_hash: string | null;
  after_hash: string | null;
  before_mode: number | null;
  after_mode: number | null;
  added: number;
  removed: number;
}

export interface StoredChange extends ChangeRow {
  id: number;
  commit_id: number;
  undone: number;
}

function explainStoreError(err: unknown, path: string): string {
  const said = (err as Error)?.message ?? String(err);
  if (isDamagedDatabase(err)) return `${said}: the file is damaged. Move it aside (mv ${shellQuote(path)} ${shellQuote(`${path}.damaged`)}) and bunker starts a new store; earlier sessions stay in the moved file`;
  return fsProblem(err, dirname(path)) ?? (/disk is full|SQLITE_FULL/i.test(said) ? `the disk holding ${path} is full. Free some space` : said);
}

interface Row {
  id: string;
  root: string;
  model: string;
  title: string;
  created: number;
  updated: number;
  message_count: number;
  version: number;
  messages?: string;
  todos?: string;
  running?: string | null;
}

function migrate(db: Database): void {
  const { user_version } = db.query("PRAGMA user_version").get() as { user_version: number };
  if (user_version > SCHEMA_VERSION) {
    throw new Error(`it was written by a newer bunker (schema ${user_version}); update bunker`);
  }
  if (user_version === SCHEMA_VERSION) return;
  // Every statement is IF NOT EXISTS: version 1 stores gain the checkpoint tables, and two bunkers may migrate at once.
  db.exec(`
    CREATE TABLE IF NOT EXISTS sessions (
      id TEXT PRIMARY KEY,
      root TEXT NOT NULL,
      model TEXT NOT NULL,
      title TEXT NOT NULL,
      created INTEGER NOT NULL,
      updated INTEGER NOT NULL,
      message_count INTEGER NOT NULL,
      messages TEXT NOT NULL,
      todos TEXT NOT NULL,
      version INTEGER NOT NULL,
      running TEXT
    );
    CREATE INDEX IF NOT EXISTS sessions_by_root ON sessions (root, updated);
    -- File contents before and after each change, by sha256: whole (zstd) or a delta against \`base\`.
    CREATE TABLE IF NOT EXISTS blobs (
      hash TEXT PRIMARY KEY,
      base TEXT,
      depth INTEGER NOT NULL,
      data BLOB NOT NULL
    );
    -- One row per file of each committed change; a move is two rows of one commit.
    CREATE TABLE IF NOT EXISTS changes (
      id INTEGER PRIMARY KEY,
      session TEXT NOT NULL,
      turn INTEGER NOT NULL,
      prompt TEXT NOT NULL,
      message_index INTEGER NOT NULL,
      commit_id INTEGER NOT NULL,
      at INTEGER NOT NULL,
      tool TEXT NOT NULL,
      path TEXT NOT NULL,
      display TEXT NOT NULL,
      before_hash TEXT,
      after_hash TEXT,
      before_mode INTEGER,
      after_mode INTEGER,
      added INTEGER NOT NULL,
      removed INTEGER NOT NULL,
      undone INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS changes_by_session ON changes (session, turn);
  `);
  const columns = db.query("PRAGMA table_info(sessions)").all() as { name: string }[];
  if (!columns.some((c) => c.name === "running")) {
    try {
      db.exec("ALTER TABLE sessions ADD COLUMN running TEXT");
    } catch {
      // a second bunker added it meanwhile
    }
  }
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
}

function summaryOf(row: Row): SessionSummary {
  return {
    id: row.id, root: row.root, model: row.model, title: row.title, created: row.created, updated: row.updated,
    messageCount: row.message_count, version: row.version,
  };
}

/** A row back into a session, checking the shape: a damaged row is an error, never a half-loaded conversation. */
function decode(row: Row): SavedSession {
  let messages: unknown;
  let todos: unknown;
  try {
    messages = JSON.parse(row.messages ?? "");
    todos = JSON.parse(row.todos ?? "[]");
  } catch {
    throw new SessionError(`session ${row.id} is damaged (its saved conversation is not valid JSON)`);
  }
  if (!Array.isArray(messages) || !messages.every(isMessage)) {
    throw new SessionError(`session ${row.id} is damaged (its saved conversation is not a list of messages)`);
  }
  return { ...summaryOf(row), messages, todos: Array.isArray(todos) ? (todos as TodoItem[]) : [], running: row.running ?? null, usage: null, contextTokens: null };
}

function isUsage(u: unknown): u is UsageTotals {
  if (typeof u !== "object" || u === null) return false;
  const r = u as Record<string, unknown>;
  return ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"].every((k) => typeof r[k] === "number" && Number.isFinite(r[k]) && (r[k] as number) >= 0);
}

function isMessage(m: unknown): m is MessageParam {
  if (typeof m !== "object" || m === null) return false;
  const { role, content } = m as { role?: unknown; content?: unknown };
  return (role === "user" || role === "assistant") && (typeof content === "string" || Array.isArray(content));
}

/** The first line of the first thing the person typed, as the session's name in lists. */
function titleOf(messages: MessageParam[]): string {
  const first = messages.find((m) => m.role === "user");
  let text = "";
  if (typeof first?.content === "string") text = first.content;
  else for (const b of first?.content ?? []) if (b.type === "text") { text = b.text; break; }
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/**
 * One line of markdown as it reads rendered: no heading or list mark, no emphasis or code marks, a link as its text
 * (Claude Code's resume picker shows plain text).
 */
export function plainMarkdown(line: string): string {
  return line
    .replace(/^#{1,6}\s+/, "")
    .replace(/^(?:[-*+]|\d+[.)])\s+/, "")
    .replace(/^>\s*/, "")
    .replace(/\[([^\]]+)\]\([^)\s]+\)/g, "$1")
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2")
    .replace(/(^|[^\w*])([*_])(?=\S)(.+?)(?<=\S)\2(?![\w*])/g, "$1$3")
    .replace(/`([^`]+)`/g, "$1")
    .replace(/~~(.+?)~~/g, "$1")
    .trim();
}
