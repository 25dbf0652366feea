// Which session this run records into: a new one, the newest in this
// workspace (-c) or a named one (-r ID); and the list for a bare --resume.
import { realpathSync } from "node:fs";
import type { Config } from "../config.ts";
import { escapeControl } from "../ui/escape.ts";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { idRunning } from "../fs/process-id.ts";
import { fsProblem } from "../fs/errno-words.ts";
import { selfId } from "../fs/process-id.ts";
import { SessionError } from "./error.ts";
import { JournalWriter, pendingDir, takeJournalNotices } from "./journal.ts";

export { takeJournalNotices };
import { finishedLength, SessionRecorder, unfinished } from "./recorder.ts";
import type { SavedSession, SessionStore, SessionSummary } from "./store.ts";
import { shellQuote } from "../shell/quote.ts";

export interface OpenedSession {
  recorder: SessionRecorder;
  /** The conversation picked up with -c or -r, if any. */
  resumed: SavedSession | null;
  /** Something to tell the person at start (e.g. -c found nothing to continue). */
  notice?: string;
  /** The model to talk to: a continued session keeps its own unless -m or BUNKER_MODEL names one. */
  model: string;
}

/** The session store's module (bun:sqlite), loaded only by the runs that read or write the store itself. */
const storeModule = () => import("./store.ts");

/** `store`, once what its opening set aside (an unreadable journal) has been said. */
function said(store: SessionStore, warn: (message: string) => void): SessionStore {
  for (const line of takeJournalNotices()) warn(line);
  return store;
}

/** Throws SessionError when -c/-r cannot be honoured; a store that cannot open for a new session only warns (when it is first needed). */
export async function openSession(config: Config, warn: (message: string) => void): Promise<OpenedSession> {
  const request = config.resume;
  const meta = { root: config.root, model: config.model };
  // --no-session-persistence: a recorder with no store saves nothing, and says nothing about it.
  if (!config.persist) return { recorder: new SessionRecorder(null, meta, warn), resumed: null, model: config.model };
  // A new headless session writes its own journal (made beside the first request), folded into the store by whoever opens it next.
  if (!request && config.print) return { recorder: new SessionRecorder(journalMode(config, warn), meta, warn), resumed: null, model: config.model };
  const { SessionStore } = await storeModule();
  if (!request || request.kind === "list") {
    // A new session's store is opened when first needed: beside the first request (the agent's besideRequest), not before it.
    const open = (): SessionStore | null => {
      try {
        return said(SessionStore.open(config.sessionsPath, { startLog: true }), warn);
      } catch (err) {
        warn(`This session will not be saved: ${(err as Error).message}`);
        return null;
      }
    };
    return { recorder: new SessionRecorder(open, meta, warn), resumed: null, model: config.model };
  }
  const store = said(SessionStore.open(config.sessionsPath), warn);
  if (request.kind === "latest") {
    const latest = store.latest(config.root);
    if (!latest) return { recorder: new SessionRecorder(store, meta, warn), resumed: null, notice: "No earlier session in this workspace: starting a new one.", model: config.model };
    const opened = resumed(config, store, latest, warn);
    const unsaved = laterUnsaved(store, config.root, latest);
    if (unsaved) opened.notice = opened.notice ? `${opened.notice} ${unsaved}` : unsaved;
    return opened;
  }
  return resumed(config, store, findHere(config, store, request.id), warn);
}

/**
 * What -c says when a message was sent here after the newest saved session's last save: its run saved nothing (killed
 * in its first round, a first request that got no answer, or still running), so -c continues an older conversation.
 * It did so without a word (new user 12's N12-18: 'Continuing session kvs6…' after a kill -9 of the session after it).
 */
function laterUnsaved(store: SessionStore, root: string, latest: SavedSession): string {
  let later: { text: string; at: number } | null = null;
  try {
    later = store.promptAfter(root, latest.updated);
  } catch {
    return ""; // the Up arrow's history is a convenience: a store that cannot read it says nothing here
  }
  if (!later) return "";
  const line = later.text.trim().split("\n")[0]!;
  const shown = line.length > 60 ? `${line.slice(0, 59)}…` : line;
  return `Continuing ${latest.id}, the newest saved session here: your later message "${shown}" (${ago(Date.now() - later.at)}) is in no saved session, as no round of it finished (Up brings it back).`;
}

/** The session `-r ID` names, in this workspace: throws SessionError (unknown, ambiguous, another workspace's) otherwise. */
function findHere(config: Config, store: SessionStore, id: string): SavedSession {
  const found = store.find(id);
  if (found.root !== config.root) {
    throw new SessionError(`session ${found.id} was in ${found.root}, not here: run bunker -C ${shellQuote(found.root)} -r ${found.id}`, 2);
  }
  return found;
}

/**
 * Throws the SessionError `-r ID` would meet (an unknown id, another workspace's session), without
 * opening the session: a run that must stop anyway (no prompt) names the real problem first.
 */
export async function checkResumable(config: Config): Promise<void> {
  if (config.resume?.kind !== "id" || !config.persist) return;
  const { SessionStore } = await storeModule();
  let store: SessionStore;
  try {
    store = SessionStore.open(config.sessionsPath);
  } catch {
    return; // a store that cannot open is not this run's problem to report: it stops for its own reason
  }
  try {
    findHere(config, store, config.resume.id);
  } finally {
    store.close();
  }
}

function journalMode(config: Config, warn: (message: string) => void): ConstructorParameters<typeof SessionRecorder>[0] {
  return {
    journal: (id) => {
      try {
        return JournalWriter.create(config.sessionsPath, { id, root: config.root, model: config.model }, selfId());
      } catch (err) {
        // In the words a store that cannot open uses: the journal is where the store's new sessions wait.
        warn(`This session will not be saved: cannot open the session store ${config.sessionsPath}: ${fsProblem(err, pendingDir(config.sessionsPath)) ?? (err as Error).message}`);
        return null;
      }
    },
    store: async (quiet) => {
      const { SessionStore } = await storeModule();
      try {
        return said(SessionStore.open(config.sessionsPath), warn);
      } catch (err) {
        if (!quiet) warn(`This session's file changes will not be kept for --undo: ${(err as Error).message}`);
        return null;
      }
    },
  };
}

function resumed(config: Config, store: SessionStore, saved: SavedSession, warn: (message: string) => void): OpenedSession {
  const model = config.modelExplicit ? config.model : saved.model;
  const recorder = new SessionRecorder(store, { root: config.root, model }, warn, saved.id, saved.version);
  recorder.continuesFrom(saved.usage);
  // Another bunker is still running this session's last turn: its prompt and rounds are its own, not to be
  // taken up here (that would run its task twice). Go on from the turn before; saving then forks a new session.
  if (saved.running && idRunning(saved.running) && unfinished(saved.messages)) {
    const keep = finishedLength(saved.messages);
    const prompt = firstText(saved.messages[keep]);
    const notice = `The last turn of session ${saved.id}${prompt ? ` ("${escapeControl(prompt)}")` : ""} is still running in another bunker (pid ${saved.running.split(":")[0]}); continuing from the turn before it.`;
    return { recorder, resumed: { ...saved, messages: saved.messages.slice(0, keep) }, model, notice };
  }
  return { recorder, resumed: saved, model };
}

function firstText(m: MessageParam | undefined): string {
  if (!m) return "";
  const text = typeof m.content === "string" ? m.content : (m.content.find((b) => b.type === "text") as { text: string } | undefined)?.text ?? "";
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** `bunker -r ID`, with `-C ROOT` when run from elsewhere: what continues this session; "" when it is not saved. */
export function continueCommand(root: string, recorder: SessionRecorder, cwd = process.cwd()): string {
  if (!recorder.saving) return "";
  let here = cwd;
  try {
    here = realpathSync(cwd);
  } catch {
    // a cwd that is gone: name the workspace
  }
  return `bunker${here === root ? "" : ` -C ${shellQuote(root)}`} -r ${recorder.id}`;
}

/** "1 prompt", "12 prompts": the person's messages in a session. */
function promptCount(n: number): string {
  return `${n} prompt${n === 1 ? "" : "s"}`;
}

/** bunker --resume: the sessions of this workspace, newest first, on stdout. */
export async function listSessions(config: Config, now = Date.now()): Promise<{ text: string; code: number }> {
  let sessions: (SessionSummary & { prompts: number })[];
  let total: number;
  const { SessionStore } = await storeModule();
  try {
    const store = SessionStore.open(config.sessionsPath);
    sessions = store.list(config.root).map((s) => ({ ...s, prompts: store.glance(s.id).prompts }));
    total = store.count(config.root);
    store.close();
  } catch (err) {
    return { text: `bunker: ${(err as Error).message}\n`, code: 1 };
  }
  if (sessions.length === 0) return { text: `No saved sessions in ${config.root}.\n`, code: 0 };
  const rows = sessions.map((s) => `  ${s.id}  ${ago(now - s.updated).padEnd(11)} ${promptCount(s.prompts).padEnd(11)} ${escapeControl(s.title)}`);
  const more = total > sessions.length ? `(and ${total - sessions.length} older)\n` : "";
  return { text: `Sessions in ${config.root}, newest first:\n${rows.join("\n")}\n${more}Continue one with: bunker -r ID  (the newest: bunker -c)\n`, code: 0 };
}

/**
 * bunker --resume on a terminal: the sessions of this workspace to choose
 * from, newest first, each named by its first prompt and the last reply.
 * Returns the id picked, or what to print and the exit code when there is
 * nothing to pick or the person cancels (Escape: 0, Ctrl+C: 130).
 */
export async function pickSession(config: Config, now = Date.now()): Promise<{ id: string } | { text: string; code: number }> {
  let sessions: (SessionSummary & { lastReply: string; prompts: number })[];
  const { SessionStore } = await storeModule();
  try {
    const store = SessionStore.open(config.sessionsPath);
    sessions = store.list(config.root).map((s) => ({ ...s, ...store.glance(s.id) }));
    store.close();
  } catch (err) {
    return { text: `bunker: ${(err as Error).message}\n`, code: 1 };
  }
  if (sessions.length === 0) return { text: `No saved sessions in ${config.root}.\n`, code: 0 };
  // Age and size first (as Claude Code's rows: "2 hours ago · 12 messages"), then what it was about.
  const labels = sessions.map((s) => `${ago(now - s.updated).padEnd(11)} ${promptCount(s.prompts).padEnd(11)} ${s.title}${s.lastReply ? `  → ${s.lastReply}` : ""}`);
  const { pick } = await import("../ui/picker.ts");
  const index = await pick("Resume which session?", labels);
  if (typeof index === "number") return { id: sessions[index]!.id };
  // Escape is a choice (not resuming), not a failure: exit 0, as Claude Code's picker does; Ctrl+C is an interrupt (130).
  const next = "bunker starts a new session, bunker -c continues the newest";
  return index === "escape" ? { text: `No session chosen; nothing started (${next}).\n`, code: 0 } : { text: `Interrupted; no session chosen.\n`, code: 130 };
}

export interface PromptHistory {
  /** Earlier messages in this workspace, newest first. */
  earlier: string[];
  add(text: string): void;
  close(): void;
}

/** The workspace's prompt history in the session store; empty and forgetful when the store cannot open. */
export async function promptHistory(config: Config): Promise<PromptHistory> {
  if (!config.persist) return { earlier: [], add: () => {}, close: () => {} };
  const { SessionStore } = await storeModule();
  let store: SessionStore;
  try {
    store = SessionStore.open(config.sessionsPath);
  } catch {
    // openSession has already said the session is not being saved.
    return { earlier: [], add: () => {}, close: () => {} };
  }
  let broken = false;
  const guard = <T>(fn: () => T, fallback: T): T => {
    if (broken) return fallback;
    try {
      return fn();
    } catch {
      // A full disk or a locked store costs the history, never the session.
      broken = true;
      return fallback;
    }
  };
  return {
    earlier: guard(() => store.prompts(config.root), []),
    add: (text) => guard(() => store.addPrompt(config.root, text), undefined),
    close: () => store.close(),
  };
}

export function ago(ms: number): string {
  const min = Math.floor(ms / 60_000);
  if (min < 1) return "just now";
  if (min < 60) return `${min} min ago`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} days ago`;
}

