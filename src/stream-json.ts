// --output-format stream-json: one JSON object a line, in the shape scripts
// written for `claude -p --output-format stream-json` already parse: a
// system/init event, each reply as an `assistant` message (tool_use blocks
// with id, name, input), each round of results as a `user` message
// (tool_result blocks with tool_use_id, content, is_error), then `result`.
import type { ContentBlock, Message, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import type { LoopEvents } from "./agent/loop.ts";
import type { UsageTotals } from "./agent/usage.ts";
import type { Denial } from "./perms/permissions.ts";

/** How bunker decides what it may do unasked: the `permissionMode` of the init event. */
export type PermissionMode = "ask" | "no-prompt" | "allow-all";

export interface InitInfo {
  sessionId: string | null;
  cwd: string;
  model: string;
  tools: string[];
  permissionMode: PermissionMode;
  /** The --thinking level in effect ("off" when the model does not think). */
  thinking: string;
  version: string;
}

export function initEvent(i: InitInfo): object {
  return {
    type: "system",
    subtype: "init",
    session_id: i.sessionId,
    cwd: i.cwd,
    model: i.model,
    tools: i.tools,
    permissionMode: i.permissionMode,
    thinking: i.thinking,
    bunker_version: i.version,
  };
}

export function assistantEvent(message: Message, content: ContentBlock[], sessionId: string | null): object {
  const { id, type, role, model, stop_reason, stop_sequence, usage } = message;
  return {
    type: "assistant",
    // The reply as it went into the conversation (a repaired tool id is the one its result answers).
    message: { id, type, role, model, content, stop_reason, stop_sequence, usage },
    parent_tool_use_id: null,
    session_id: sessionId,
  };
}

export function toolResultsEvent(results: ToolResultBlockParam[], sessionId: string | null): object {
  // is_error always present: a script can test it without knowing the API leaves it out on success.
  const content = results.map((r) => ({ ...r, is_error: r.is_error === true }));
  return { type: "user", message: { role: "user", content }, parent_tool_use_id: null, session_id: sessionId };
}

export type ResultSubtype = "success" | "error_max_turns" | "error_during_execution";

export interface ResultInfo {
  end: string;
  isError: boolean;
  text: string;
  error?: string;
  turns: number;
  durationMs: number;
  apiMs: number;
  sessionId: string | null;
  model: string;
  usage: UsageTotals;
  costUSD: number;
  permissionDenials: Denial[];
}

/** The last line of stream-json, and the one object of --output-format json. */
export function resultEvent(r: ResultInfo): object {
  const subtype: ResultSubtype = r.end === "max_turns" ? "error_max_turns" : r.isError ? "error_during_execution" : "success";
  return {
    type: "result",
    subtype,
    is_error: r.isError,
    result: r.text,
    end: r.end,
    ...(r.error ? { error: r.error } : {}),
    num_turns: r.turns,
    duration_ms: Math.round(r.durationMs),
    duration_api_ms: Math.round(r.apiMs),
    // Continue this conversation with: bunker -r SESSION_ID -p "…"; null when the run was not saved (no answer came),
    // the key always there, as in the init event (new user 13's N13-03).
    session_id: r.sessionId,
    model: r.model,
    usage: r.usage,
    total_cost_usd: r.costUSD,
    // What was refused: the run may have "succeeded" without doing what was asked.
    permission_denials: r.permissionDenials,
  };
}

/** An event made with the session id it is to carry. */
type Made = (sessionId: string | null) => object;

/**
 * The stream-json lines of one run. The init event names the session the run is saved as, and a run is saved from
 * its first reply on (one that got none, a bad key or no server, is not: there is nothing to continue). So init
 * goes out with the first reply, or for a run that got none, before its result with no id: an id init gave is
 * always one `-r` finds. A notice before it waits for it: init is always the first line. A retry does not wait
 * (a script follows it as it happens, reviewer's R11-12): init goes out then, with no id, since nothing is saved
 * yet; the events after it and the result carry the id once the run is saved.
 */
export class StreamJsonLines {
  private held: Made[] | null = [];
  /** The run has a reply, from which on it is saved: until then an event that goes out carries no id. */
  private isSaved = false;

  constructor(
    private readonly emit: (event: object) => void,
    private readonly init: Made,
    private readonly sessionId: () => string | null,
  ) {}

  /** An event now, or once init has gone out. */
  write(make: Made): void {
    if (this.held) this.held.push(make);
    else this.emit(make(this.id()));
  }

  private id(): string | null {
    return this.isSaved ? this.sessionId() : null;
  }

  /** An event now: init first (with no id when the run is not saved yet), then what waited, then this one. */
  now(make: Made): void {
    this.flush(null);
    this.emit(make(this.id()));
  }

  /** The run has a reply in its conversation, from which on it is saved: init goes out, then what waited. */
  saved(): void {
    this.isSaved = true;
    this.flush(this.sessionId());
  }

  /** The last line: init first if it has not gone out (with the id only of a session that was saved). */
  result(make: Made, savedId: string | null): void {
    this.flush(savedId);
    this.emit(make(savedId));
  }

  private flush(id: string | null): void {
    if (!this.held) return;
    const held = this.held;
    this.held = null;
    this.emit(this.init(id));
    for (const make of held) this.emit(make(id));
  }
}

/** `base`'s events, with the ones a script follows written as stream-json lines. */
export function streamJsonEvents<E extends LoopEvents>(base: E, lines: StreamJsonLines): E {
  return Object.assign(Object.create(base) as E, {
    // Replies come whole, as assistant events; partial text is not repeated.
    onText: () => {},
    onToolStart: () => {},
    onToolEnd: () => {},
    onAssistant: (message: Message, content: ContentBlock[]) => {
      // A reply with content goes into the conversation, which is saved from then on (an empty one does not).
      if (content.length > 0) lines.saved();
      lines.write((id) => assistantEvent(message, content, id));
    },
    onToolResults: (results: ToolResultBlockParam[]) => lines.write((id) => toolResultsEvent(results, id)),
    onNotice: (message: string) => lines.write((id) => ({ type: "system", subtype: "notice", message, session_id: id })),
    // A mention not attached is a notice here, as before the terminal drew it as a ✗ line (N12-05).
    onNotAttached: (message: string) => lines.write((id) => ({ type: "system", subtype: "notice", message, session_id: id })),
    onRetry: (message: string) => lines.now((id) => ({ type: "system", subtype: "retry", message, session_id: id })),
  });
}
