// Checkpoints: every committed change kept in the session store with its
// before and after bytes, by turn, so /undo and /rewind (and the headless
// --undo / --rewind) can take the workspace back. Taking back goes through
// the same change pipeline as any write: its own diff, asked like any write.
// A file changed since (by the person or a command) is named and left alone
// unless the person says "force". Changes made by commands are not tracked.
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { holdsPrompt, isBunkerNote } from "../agent/history.ts";
import { FileKindError, MAX_WORKSPACE_FILE_BYTES, readRegularSync } from "../fs/file-kind.ts";
import type { SessionStore, StoredChange } from "../session/store.ts";
import { ToolError, type ToolContext } from "../tools/tool.ts";
import type { CommittedFile } from "./change-set.ts";
import { sha256 } from "./delta.ts";

/** One turn that changed files, as /rewind lists it. */
export interface TurnSummary {
  /**
   * Which of the person's messages in this conversation started it (1 = the first): a number that stays the same
   * when other turns are taken back, so the list, /rewind N and what bunker says of a turn agree.
   */
  number: number;
  turn: number;
  at: number;
  prompt: string;
  files: string[];
  added: number;
  removed: number;
}

export class Checkpoints {
  /** Where in the conversation the running turn's prompt is (its turn id). */
  private turnStart = 0;

  constructor(
    /** The store, or where to get it when first needed (a new session's is opened beside its first request). */
    private readonly storeOf: SessionStore | null | (() => SessionStore | null),
    /** The session being recorded (changes with /clear or a fork). */
    private readonly sessionId: () => string,
    private readonly history: () => MessageParam[],
  ) {}

  private get store(): SessionStore | null {
    return typeof this.storeOf === "function" ? this.storeOf() : this.storeOf;
  }

  /**
   * A round hook: a turn starts, its prompt goes at the end of the history: into the last message when that is
   * the person's already (an earlier turn's interrupted results, a note that files were taken back), so the turn
   * is that message, with what came before the prompt in it kept by a rewind (messagesBefore).
   */
  onTurnStart(): void {
    const history = this.history();
    this.turnStart = history[history.length - 1]?.role === "user" ? history.length - 1 : history.length;
  }
  afterRound(): string | null {
    return null;
  }

  get enabled(): boolean {
    return this.store !== null;
  }

  /** Called by the change pipeline after every commit. Never throws: a checkpoint that cannot be kept is said once. */
  record(tool: string, files: CommittedFile[], warn: (line: string) => void): void {
    if (!this.store) return;
    try {
      const at = Date.now();
      const prompt = promptText(this.history()[this.turnStart]);
      const rows = files.map((f) => {
        const before = f.before ? this.store!.putBlob(f.before, null) : null;
        const after = f.after ? this.store!.putBlob(f.after, before && f.before ? { hash: before, bytes: f.before } : null) : null;
        return {
          session: this.sessionId(), turn: this.turnStart, prompt, message_index: this.turnStart, at, tool, path: f.real, display: f.display,
          before_hash: before, after_hash: after, before_mode: f.beforeMode, after_mode: f.afterMode, added: f.added, removed: f.removed,
        };
      });
      this.store.recordChange(rows);
    } catch (err) {
      warn(`This change could not be kept for /undo: ${(err as Error).message}`);
    }
  }

  /** Turns of this session whose changes are still in effect, oldest first. */
  turns(): TurnSummary[] {
    if (!this.store) return [];
    const byTurn = new Map<number, TurnSummary>();
    for (const c of this.store.changesSince(this.sessionId(), 0)) {
      let t = byTurn.get(c.turn);
      if (!t) byTurn.set(c.turn, (t = { number: 0, turn: c.turn, at: c.at, prompt: c.prompt, files: [], added: 0, removed: 0 }));
      if (!t.files.includes(c.display)) t.files.push(c.display);
      t.added += c.added;
      t.removed += c.removed;
    }
    const messages = this.history();
    return [...byTurn.values()].map((t) => ({ ...t, number: promptNumber(messages, t.turn) }));
  }

  /**
   * Takes the workspace back to before `turn` (every later change too):
   * shows the diff and asks, through the change pipeline. Returns what to say.
   */
  async undo(ctx: ToolContext, turn: TurnSummary, opts: { force: boolean }): Promise<UndoResult> {
    const store = this.store;
    if (!store) return { said: "Nothing to undo: this session's changes are not being kept.", restored: [] };
    const changes = store.changesSince(this.sessionId(), turn.turn);
    const plan = planUndo(changes);
    const leftAlone: string[] = [];
    /** Files not taken back because of what they are now (a FIFO, a link, too large): each with why. */
    const couldNot: string[] = [];
    const restored: string[] = [];
    const undoneIds: number[] = [];
    // Which files are taken back, decided first: a file that would be removed is kept when what it holds is what a
    // file not taken back held before (a move a → b, with a new a.txt made since: removing b.txt would leave the
    // moved content nowhere on disk; red team 8).
    const decided = plan.map((f): { f: UndoFile; now: ReturnType<typeof currentHash>; skip: string | null } => {
      const now = currentHash(f.real, f.display);
      // Not even "force" replaces what bunker cannot read: it could be the person's, and a FIFO or a link is not bunker's.
      if ("problem" in now) return { f, now, skip: now.problem };
      if (!opts.force && now.hash !== f.expected) return { f, now, skip: "left" };
      return { f, now, skip: null };
    });
    const stranded = new Set(decided.filter((d) => d.skip !== null && d.f.restore !== null).map((d) => d.f.restore));
    const keptFor: string[] = [];
    for (const d of decided) {
      if (d.skip === null && d.f.restore === null && !("problem" in d.now) && d.now.hash !== null && stranded.has(d.now.hash)) {
        d.skip = "kept";
        keptFor.push(d.f.display);
      }
    }
    // "force" over a file changed since bunker's change (a hand edit, a command's): that work is lost, so the
    // person is shown the diff and asked, even under --allow-write.
    const overwritten = decided.filter((d) => d.skip === null && !("problem" in d.now) && d.now.hash !== d.f.expected).map((d) => d.f.display);
    const loses = overwritten.length > 0
      ? `${overwritten.join(", ")} ${overwritten.length === 1 ? "was" : "were"} changed after bunker's change (by you or a command); taking ${overwritten.length === 1 ? "it" : "them"} back with "force" loses those changes`
      : undefined;
    // The change pipeline is loaded with the first change, not with every session.
    const { ChangeSet } = await import("./change-set.ts");
    const change = new ChangeSet(ctx, "undo", { checkpoint: false, byPerson: true, ...(loses ? { loses } : {}) });
    for (const { f, skip } of decided) {
      if (skip === "left") leftAlone.push(f.display);
      else if (skip !== null && skip !== "kept") couldNot.push(skip);
      if (skip !== null) continue;
      try {
        const target = change.target(f.real);
        const snap = change.snapshot(target);
        const bytes = f.restore ? store.getBlob(f.restore) : null;
        if (bytes === null) {
          if (snap.text !== null) change.delete(snap);
          restored.push(`removed ${f.display}`);
        } else {
          change.write(snap, new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes), f.mode ?? undefined);
          restored.push(`${f.created ? "brought back" : "restored"} ${f.display}`);
        }
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        couldNot.push(err.message.replace(/[.;]?\s*$/, ""));
        continue;
      }
      undoneIds.push(...f.ids);
    }
    if (change.size > 0) await change.commit();
    store.markUndone(undoneIds);
    const what = `turn ${turn.number} ("${turn.prompt}")${changes.some((c) => c.turn > turn.turn) ? " and the turns after it" : ""}`;
    const said = restored.length > 0 ? `Took back ${what}: ${restored.join(", ")}.` : `Nothing of ${what} was taken back.`;
    const left =
      leftAlone.length > 0
        ? ` Left alone, because ${leftAlone.length === 1 ? "it was" : "they were"} changed after bunker's change (by you or a command): ${leftAlone.join(", ")}. Add "force" to take ${leftAlone.length === 1 ? "it" : "them"} back too.`
        : "";
    const failed = couldNot.length > 0 ? ` Not taken back (still kept for /undo): ${couldNot.join("; ")}.` : "";
    const kept = keptFor.length > 0 ? ` Kept ${keptFor.join(", ")}: ${keptFor.length === 1 ? "it holds" : "they hold"} what a file left alone held before, which would otherwise be nowhere on disk.` : "";
    return { said: said + left + failed + kept, restored };
  }
}

/** What a take-back did: the line for the person, and each file it changed ("restored a.txt", "removed b.txt"). */
export interface UndoResult {
  said: string;
  restored: string[];
}

/**
 * The note the model gets with the person's next message after files were taken back, so it does not go on
 * believing its edits are there: which files, and how (`how`: "/undo", "/rewind 3", "bunker --undo").
 */
export function takeBackNote(turn: TurnSummary, restored: string[], how: string): string {
  const later = restored.length === 1 ? "this file no longer holds" : "these files no longer hold";
  return (
    `The person took back file changes with ${how}, to before their message ${turn.number} ("${turn.prompt}"): ${restored.join(", ")}. ` +
    `On disk ${later} the changes made from that message on; read ${restored.length === 1 ? "it" : "them"} again before relying on or editing ${restored.length === 1 ? "it" : "them"}.`
  );
}

/** Which of the person's messages the turn in message `index` is (1 = the first); past the end (the conversation was rewound since), the next one. */
function promptNumber(messages: MessageParam[], index: number): number {
  let n = 0;
  for (let i = 0; i <= index && i < messages.length; i++) if (holdsPrompt(messages[i]!)) n++;
  return index >= messages.length ? n + 1 : Math.max(1, n);
}

interface UndoFile {
  real: string;
  display: string;
  /** What the file should hold now (bunker's last change): null when absent. */
  expected: string | null;
  /** What it held before the first of these changes: null when it did not exist. */
  restore: string | null;
  mode: number | null;
  /** It did not exist after the changes (deleted, or moved away): it comes back. */
  created: boolean;
  ids: number[];
}

/** Per file: the content before the earliest change and after the latest one. */
export function planUndo(changes: StoredChange[]): UndoFile[] {
  const files = new Map<string, UndoFile>();
  for (const c of changes) {
    const f = files.get(c.path);
    if (!f) {
      files.set(c.path, { real: c.path, display: c.display, expected: c.after_hash, restore: c.before_hash, mode: c.before_mode, created: c.after_hash === null && c.before_hash !== null, ids: [c.id] });
      continue;
    }
    f.expected = c.after_hash;
    f.created = f.expected === null && f.restore !== null;
    f.ids.push(c.id);
  }
  // A file bunker created and then removed again needs nothing.
  return [...files.values()].filter((f) => !(f.restore === null && f.expected === null));
}

/** What `real` holds now (null: nothing), or why bunker cannot tell (a FIFO, a link, a device, too large). */
function currentHash(real: string, display: string): { hash: string | null } | { problem: string } {
  try {
    const read = readRegularSync(real, display, { max: MAX_WORKSPACE_FILE_BYTES });
    return { hash: read ? sha256(read.bytes) : null };
  } catch (err) {
    if (err instanceof FileKindError) return { problem: err.message };
    throw err;
  }
}

function promptText(m: MessageParam | undefined): string {
  if (!m) return "";
  let text = "";
  if (typeof m.content === "string") text = m.content;
  else for (const b of m.content) if (b.type === "text" && !isBunkerNote(b)) { text = b.text; break; }
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** For callers that must not throw into the loop. */
export function undoError(err: unknown): string {
  return err instanceof ToolError ? err.message : `unexpected failure: ${(err as Error).message}`;
}
