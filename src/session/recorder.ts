// Keeps the current session saved: after every round and at the end of each
// turn. A store that fails (full disk, read-only home) is reported once and
// then left alone: the conversation goes on unsaved rather than stopping.
// When a second bunker has saved the same session meanwhile, this one's
// conversation is kept as a new session instead of overwriting the other's.
// A new headless session writes a journal of its own instead (journal.ts),
// which the store folds in when it is next opened: a one-shot turn then never
// loads bun:sqlite.
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { addUsage, emptyUsage, type UsageTotals } from "../agent/usage.ts";
import { selfId } from "../fs/process-id.ts";
import { newSessionId } from "./id.ts";
import { FOLD_WHEN_WAITING, type JournalWriter } from "./journal.ts";
import type { SessionSnapshot, SessionStore } from "./store.ts";

/** How a new headless session is saved: its own journal, and the store itself only for what the journal does not hold (checkpoints). */
export interface JournalMode {
  /** Makes this session's journal; null (having said why) when it cannot be written. */
  journal: (id: string) => JournalWriter | null;
  /** Loads and opens the store (bun:sqlite), for a change's checkpoint, or (`quiet`: a failure is not this run's to report) to fold journals. */
  store: (quiet?: boolean) => Promise<SessionStore | null>;
}

/** A conversation whose last turn has not ended: it does not close on an answer without tool calls. */
export function unfinished(messages: MessageParam[]): boolean {
  return finishedLength(messages) < messages.length;
}

/** How many messages the finished turns take: up to the last answer without tool calls. */
export function finishedLength(messages: MessageParam[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && (typeof m.content === "string" || !hasToolUse(m.content))) return i + 1;
  }
  return 0;
}

// Loops, not .some: see jit.ts.
function hasToolUse(blocks: readonly { type: string }[]): boolean {
  for (const b of blocks) if (b.type === "tool_use") return true;
  return false;
}

function hasAssistant(messages: MessageParam[]): boolean {
  for (const m of messages) if (m.role === "assistant") return true;
  return false;
}

export class SessionRecorder {
  private broken = false;
  /** The store once opened (null: none could be); undefined until first needed. */
  private store: SessionStore | null | undefined;
  private readonly openStore: (() => SessionStore | null) | undefined;
  /** Tokens the session used in earlier runs (a continued one), not in `live`. */
  private usageBefore: UsageTotals = emptyUsage();
  /** This run's running totals (the model's), saved with the session added to `usageBefore`. */
  private live: UsageTotals | null = null;
  /** The part of `live` an earlier session of this run used (before /clear): not this session's. */
  private counted: UsageTotals = emptyUsage();

  /** In journal mode: how the journal and the store are made. */
  private readonly journalMode: JournalMode | undefined;
  /** The journal once made (null: it could not be); undefined until first needed. */
  private journal: JournalWriter | null | undefined;

  constructor(
    /** The store, or how to open it when first needed (a new session opens it beside its first request), or a journal to write instead. */
    store: SessionStore | null | (() => SessionStore | null) | JournalMode,
    private readonly meta: { root: string; model: string },
    private readonly warn: (message: string) => void,
    /** The session's id; a new session's is drawn when first needed (beside the first request, where its journal is made). */
    id?: string,
    /** The version last saved or loaded; null while this session has never been saved. */
    private version: number | null = null,
  ) {
    this.givenId = id;
    if (typeof store === "function") this.openStore = store;
    else if (store && "journal" in store) this.journalMode = store;
    else this.store = store;
  }

  private givenId: string | undefined;

  get id(): string {
    return (this.givenId ??= newSessionId());
  }

  set id(id: string) {
    this.givenId = id;
  }

  /** This process as a save marks a running turn (pid:start, read from /proc): found once, when the store opens. */
  private self: string | undefined;

  /** Opens the store (or makes the journal) now if that is done lazily and not yet done (work that need not hold up a request). */
  open(): SessionStore | null {
    if (this.journalMode) {
      if (this.journal === undefined) {
        this.self ??= selfId();
        this.journal = this.journalMode.journal(this.id);
      }
      return this.store ?? null;
    }
    if (this.store === undefined) {
      this.store = this.openStore!();
      this.self ??= selfId();
    }
    return this.store;
  }

  /** The store, for what is kept beside the conversation (checkpoints); null when there is none (or, with a journal, not yet loaded: see loadStore). */
  get sessionStore(): SessionStore | null {
    return this.open();
  }

  /** With a journal: loads and opens the store for what the journal does not hold (a change's checkpoint). */
  async loadStore(): Promise<void> {
    if (this.journalMode && this.store === undefined) this.store = await this.journalMode.store();
  }

  /** Whether this session is being saved (a store opened, or a journal made, and has not failed). */
  get saving(): boolean {
    const open = this.open();
    return (this.journalMode ? this.journal !== null : open !== null) && !this.broken;
  }

  /** Whether this session is in the store now (a run that got no answer never is): what `bunker -r ID` can continue. */
  get saved(): boolean {
    return this.saving && this.savedOnce;
  }

  /** Whether this session was ever saved (a version in the store, or a line in its journal). */
  private get savedOnce(): boolean {
    return this.version !== null || (this.journal ? !this.journal.empty : false);
  }

  /** The end of the run: a journal is flushed to disk (a power cut after the run keeps it), or removed if nothing was saved. */
  async finish(): Promise<void> {
    if (!this.journal) return;
    const journal = this.journal;
    try {
      await journal.finish();
    } catch (err) {
      if (!this.broken) this.warn(`This session may not be saved: ${(err as Error).message}`);
      this.broken = true;
    }
  }

  /** After the answer: when many journals are waiting, fold them into the store now (opening it does). */
  async foldIfMany(): Promise<void> {
    if (this.journal && this.journal.waiting > FOLD_WHEN_WAITING) (await this.journalMode!.store(true))?.close();
  }

  /** A continued session: what it used before this run. */
  continuesFrom(usage: UsageTotals | null): void {
    this.usageBefore = usage ? { ...usage } : emptyUsage();
  }

  /**
   * Saves `live` (this run's totals) with the session. With `carry`, `live`
   * first takes in what the session used before, so whoever shows it (the
   * REPL's status line and /cost) counts the whole session; without, it stays
   * this run's (a headless result) and the earlier use is added when saving.
   */
  trackUsage(live: UsageTotals, carry: boolean): void {
    if (carry) {
      addUsage(live, this.usageBefore);
      this.usageBefore = emptyUsage();
    }
    this.live = live;
  }

  /** How many tokens the last request took, read at each save. */
  private context: () => number = () => 0;

  trackContext(context: () => number): void {
    this.context = context;
  }

  private totalUsage(): UsageTotals | undefined {
    if (!this.live) return undefined;
    const total = { ...this.usageBefore };
    addUsage(total, this.live);
    for (const k of Object.keys(total) as (keyof UsageTotals)[]) total[k] -= this.counted[k];
    return total;
  }

  save(snap: SessionSnapshot): void {
    // An empty conversation is saved only over one that was saved (/rewind 1 conversation); a new one starts with its first reply.
    if (this.broken || (snap.messages.length === 0 && !this.savedOnce)) return;
    // A run that never got an answer (a bad key, no server) is nothing to continue: it is saved from its first reply on.
    if (!this.savedOnce && !hasAssistant(snap.messages)) return;
    if (this.journalMode) return this.saveToJournal(snap);
    const store = this.open();
    if (!store) return;
    // A turn still running is marked as this bunker's, so a second one continuing the session does not adopt it.
    snap = { ...snap, running: unfinished(snap.messages) ? (this.self ??= selfId()) : null, usage: this.totalUsage(), contextTokens: this.context() };
    try {
      let saved = store.save(this.id, this.meta, snap, this.version);
      if (saved === "conflict") {
        const old = this.id;
        // The same conversation under a new id: its usage is still all of it.
        this.id = newSessionId();
        this.version = null;
        saved = store.save(this.id, this.meta, snap, null);
        this.warn(`Session ${old} was also continued elsewhere; so nothing is lost, this conversation is now saved as session ${this.id}.`);
      }
      if (saved === "conflict") throw new Error("two sessions got the same id");
      this.version = saved;
    } catch (err) {
      this.broken = true;
      this.warn(`This session is no longer being saved: ${store.explain(err)}`);
    }
  }

  private saveToJournal(snap: SessionSnapshot): void {
    this.open();
    if (!this.journal) return;
    try {
      this.journal.append({ messages: snap.messages, todos: snap.todos, running: unfinished(snap.messages) ? (this.self ??= selfId()) : null, usage: this.totalUsage(), contextTokens: this.context() });
    } catch (err) {
      this.broken = true;
      this.warn(`This session is no longer being saved: ${(err as Error).message}`);
    }
  }

  /** /clear: what follows is a new session; the old one stays saved, and so do the tokens it used. */
  startNew(): void {
    this.id = newSessionId();
    this.version = null;
    this.usageBefore = emptyUsage();
    if (this.live) this.counted = { ...this.live };
  }
}
