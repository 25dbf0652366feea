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
    // Continue this conversation with: bunker -r SESSION_ID -p "…"
    ...(r.sessionId ? { session_id: r.sessionId } : {}),
    model: r.model,
    usage: r.usage,
    total_cost_usd: r.costUSD,
    // What was refused: the run may have "succeeded" without doing what was asked.
    permission_denials: r.permissionDenials,
  };
}

/** `base`'s events, with the ones a script follows written as stream-json lines by `emit`. */
export function streamJsonEvents<E extends LoopEvents>(base: E, emit: (event: object) => void, sessionId: () => string | null): E {
  return Object.assign(Object.create(base) as E, {
    // Replies come whole, as assistant events; partial text is not repeated.
    onText: () => {},
    onToolStart: () => {},
    onToolEnd: () => {},
    onAssistant: (message: Message, content: ContentBlock[]) => emit(assistantEvent(message, content, sessionId())),
    onToolResults: (results: ToolResultBlockParam[]) => emit(toolResultsEvent(results, sessionId())),
    onNotice: (message: string) => emit({ type: "system", subtype: "notice", message, session_id: sessionId() }),
    onRetry: (message: string) => emit({ type: "system", subtype: "retry", message, session_id: sessionId() }),
  });
}
