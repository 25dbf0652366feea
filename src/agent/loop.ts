// One user turn: stream the model, run the tools it asks for, send back the
// results, until it ends its turn. Every stop_reason is handled; the number
// of model calls is capped; a tool never throws into the loop.
import type { ContentBlock, ContentBlockParam, Message, MessageParam, ToolResultBlockParam, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import { imageBlock } from "../tools/image.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { ToolContext } from "../tools/tool.ts";
import { escapeControl } from "../ui/escape.ts";
import { attachMentions, mayAttach } from "./attachments.ts";
import { elideOldToolOutput, type ElideResult } from "./compact.ts";
import { bunkerNote, History } from "./history.ts";
import { ModelError, type Model, type ModelEvents } from "./model.ts";
import { sanitizeReply } from "./sanitize.ts";

/** Extra text injected after the tool results of a round (e.g. the todo reminder). */
export interface RoundHook {
  afterRound(toolNames: string[]): string | null;
  /** Called when a new user turn starts. */
  onTurnStart?(): void;
}

export interface LoopEvents extends ModelEvents {
  /** A model call is about to start (spinner). */
  onModelStart(): void;
  onToolStart(summary: string): void;
  /** `shown`: what the person sees instead of `content` (a refusal in their words, the line after a change). */
  onToolEnd(summary: string, result: { content: string; isError: boolean; shown?: string }): void;
  /** Something the person should know (continuations, caps, refusals). */
  onNotice(message: string): void;
  /** Injected text (reminders): shown only with --verbose. */
  onInjected(text: string): void;
  /** An @file or image path in the prompt that could not be attached, and why; without it, a notice. */
  onNotAttached?(line: string): void;
  /** A reply as it goes into the history (after repair): what --output-format stream-json reports. */
  onAssistant?(message: Message, content: ContentBlock[]): void;
  /** The tool_result blocks of a round, as they go back to the model. */
  onToolResults?(results: ToolResultBlockParam[]): void;
}

export type TurnEnd = "done" | "max_turns" | "refusal" | "interrupted" | "error" | "context_full";

export interface TurnOutcome {
  end: TurnEnd;
  /** The text of the final assistant message: the answer. */
  text: string;
  /** Model calls made in this turn. */
  modelCalls: number;
  error?: string;
}

export interface AgentOptions {
  model: Model;
  registry: ToolRegistry;
  system: string;
  maxTurns: number;
  /** Automatic continuations after max_tokens, per turn. */
  maxContinuations?: number;
  hooks?: RoundHook[];
  /** The model's context window in tokens (default 200,000). */
  contextWindow?: number;
  /** How to tell the person to go on, start afresh or make room: the REPL's words by default. */
  advice?: TurnAdvice;
  /** Called whenever the history is whole (before each model call, and when a turn ends): the session is saved then. */
  onHistoryChange?: () => void;
  /** Work the first request need not wait for, done while each request is on its way (the session store opens then). */
  besideRequest?: () => void;
}

const INTERRUPTED = "Interrupted by the user.";
const INTERRUPTED_REPLY = bunkerNote("The person interrupted your reply before it was complete; it was discarded.");
/** After the results of a round the person stopped (Escape or Ctrl+C at a question or while a tool ran). */
const INTERRUPTED_TOOLS = bunkerNote("The person interrupted this turn during tool use; the results above say what ran and what did not. Their next message says what to do instead.");
export const DEFAULT_CONTEXT_WINDOW = 200_000;
/** Old tool output is elided once a request uses this share of the window. */
const COMPACT_AT = 0.7;
/** Rounds of tool results kept whole when compacting on the way. */
const KEEP_ROUNDS = 2;

/** Advice that depends on where the person is: at the REPL's prompt, or at a shell after `bunker -p`. */
export interface TurnAdvice {
  /** Completes "… to go on": how to let the model continue. */
  goOn: string;
  /** How to start afresh. */
  startAfresh: string;
  /** How to make room when the context window is full. */
  makeRoom: string;
  /** How to send again a message that got no answer (it is not kept in the conversation). */
  sendAgain: string;
}

export const REPL_ADVICE: TurnAdvice = {
  goOn: 'Say "continue"',
  startAfresh: "/clear starts afresh",
  makeRoom: "Use /compact to drop old tool output, or /clear to start afresh",
  sendAgain: "↑ brings it back to send again",
};

/** After `bunker -p`: the exact command that continues this session (`continueWith`), or "" when it is not saved. */
export function headlessAdvice(continueWith: () => string): TurnAdvice {
  return {
    get goOn() {
      const command = continueWith();
      return command ? `Run ${command} -p "continue"` : "Run bunker again (this session could not be saved)";
    },
    startAfresh: "run bunker without -c or -r to start afresh",
    makeRoom: "Start a new session (bunker without -c or -r)",
    sendAgain: "run the same command again",
  };
}

const droppedTurn = (a: TurnAdvice) =>
  `This turn was taken out of the conversation so the session can go on (what its tools changed on disk stays changed). If it happens again, ${a.startAfresh}.`;
const contextFull = (a: TurnAdvice) => `The conversation no longer fits the model's context window. ${a.makeRoom}.`;

export class Agent {
  readonly history = new History();
  /** Tokens the last request took (prompt + reply): how full the context is. */
  private contextTokens = 0;

  constructor(private readonly opts: AgentOptions) {}

  /** How full the context window was at the last request (0–100; 0 before the first): the status line shows it. */
  get contextPercent(): number {
    return (100 * this.contextTokens) / (this.opts.contextWindow ?? DEFAULT_CONTEXT_WINDOW);
  }

  /** Shorten old tool output, keeping the last `keepRecentRounds` rounds whole (/compact). */
  compact(keepRecentRounds = 1): ElideResult {
    const r = elideOldToolOutput(this.history.messages, keepRecentRounds);
    this.contextTokens = Math.max(0, this.contextTokens - Math.round(r.savedChars / 4));
    return r;
  }

  clear(): void {
    this.history.clear();
    this.contextTokens = 0;
  }

  /** Before a request: once the context is mostly full, elide old tool output and say so. */
  private compactIfNearlyFull(events: LoopEvents): void {
    const window = this.opts.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
    if (this.contextTokens < window * COMPACT_AT) return;
    const pct = Math.round((100 * this.contextTokens) / window);
    const r = this.compact(KEEP_ROUNDS);
    if (r.elided > 0) events.onNotice(`Context ${pct}% full: ${describeElision(r)}.`);
  }

  /** Tokens the last request took (saved with the session, so a continued one starts from it). */
  get contextUsed(): number {
    return this.contextTokens;
  }

  /**
   * Pick up a saved conversation (bunker -c / -r), with what its last request took: the status line shows
   * that before the first request, and a conversation already past the threshold is compacted before it.
   */
  load(messages: MessageParam[], contextTokens = 0): void {
    this.history.load(messages);
    this.contextTokens = contextTokens;
  }

  /** `imagesFrom`: the part of `userText` the person wrote, where images they name are looked for (not piped input). */
  async runTurn(userText: string, ctx: ToolContext, events: LoopEvents, imagesFrom = userText): Promise<TurnOutcome> {
    try {
      return await this.turn(userText, ctx, events, imagesFrom);
    } catch (err) {
      // A bug mid-round must not leave a tool call unanswered: every later request would be refused.
      this.history.answerOpenToolUses(`Result lost: bunker failed unexpectedly (${err instanceof Error ? err.message : String(err)}); the call may or may not have run, so check before repeating it.`);
      throw err;
    } finally {
      this.opts.onHistoryChange?.();
    }
  }

  private async turn(userText: string, ctx: ToolContext, events: LoopEvents, imagesFrom: string): Promise<TurnOutcome> {
    const { model, registry, system, maxTurns } = this.opts;
    const advice = this.opts.advice ?? REPL_ADVICE;
    const maxContinuations = this.opts.maxContinuations ?? 3;
    let continuations = 0;
    let lastText = "";
    // After pause_turn the next reply continues the same answer.
    let paused = false;
    for (const h of this.opts.hooks ?? []) h.onTurnStart?.();
    const turnStart = this.history.mark();
    // Most prompts name no file: attachMentions (4 KB of bytecode with its finders) is not run for them.
    const attached = mayAttach(imagesFrom) ? await attachMentions(userText, imagesFrom, ctx) : null;
    for (const line of attached?.attachedLines ?? []) ctx.ui.info(`  ${escapeControl(line)}`);
    for (const line of attached?.failedLines ?? []) (events.onNotAttached ? events.onNotAttached(line) : events.onNotice(line));
    this.history.addUser(attached?.content ?? userText);

    let shrinkAttempts = 0;
    for (let call = 1; call <= maxTurns; call++) {
      this.opts.onHistoryChange?.();
      const before = this.history.messages.length;
      let message: Message;
      this.compactIfNearlyFull(events);
      events.onModelStart();
      try {
        const reply = model.send(system, this.history.messages, registry.apiTools(), events, ctx.signal);
        this.opts.besideRequest?.();
        message = await reply;
      } catch (err) {
        this.history.truncate(before);
        if (ctx.signal.aborted) {
          // The partial reply is dropped: say so, or the next message reads as if nothing happened.
          this.history.addUser([INTERRUPTED_REPLY]);
          return { end: "interrupted", text: lastText, modelCalls: call };
        }
        if (err instanceof ModelError && err.tooLong) {
          // Over the window: elide harder each time (keep 1 round, then none), then give up.
          const r = shrinkAttempts < 2 ? this.compact(1 - shrinkAttempts) : { elided: 0, savedChars: 0 };
          shrinkAttempts++;
          if (r.elided > 0) {
            events.onNotice(`The request was too long for the model: ${describeElision(r)}; trying again.`);
            call--;
            continue;
          }
          return { end: "context_full", text: lastText, modelCalls: call, error: `${err.message}. ${contextFull(advice)}` };
        }
        if (err instanceof ModelError && err.badConversation) {
          // Resending a conversation the API rejects fails forever: drop this turn from it.
          this.history.rollback(turnStart);
          return { end: "error", text: lastText, modelCalls: call, error: `${err.message}. ${droppedTurn(advice)}` };
        }
        const error = err instanceof ModelError ? err.message : `unexpected error: ${(err as Error).message}`;
        // Nothing of the turn happened (no reply, no tool ran): the message is taken out, so sending it again does
        // not send it twice (new user 12's N12-08: ↑ Enter after a refused connection sent "anyone there?" twice).
        if (call === 1) {
          this.history.rollback(turnStart);
          return { end: "error", text: lastText, modelCalls: call, error: `${error}. Your message got no answer and is not in the conversation: ${advice.sendAgain}.` };
        }
        return { end: "error", text: lastText, modelCalls: call, error };
      }
      const u = message.usage;
      this.contextTokens = u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + u.output_tokens;

      let content: ContentBlock[] = message.content;
      if (message.stop_reason === "max_tokens" || message.stop_reason === "model_context_window_exceeded") {
        // The last block may be a tool call cut off mid-input: never run it.
        const last = content.at(-1);
        if (last?.type === "tool_use") content = content.slice(0, -1);
      }
      const clean = sanitizeReply(content, this.history.toolUseIds());
      content = clean.content;
      for (const change of clean.changes) events.onInjected(`(reply repaired: ${change})`);
      const text = textOf(content);
      if (paused) lastText = [lastText, text].filter(Boolean).join("\n\n");
      else if (text) lastText = text;
      paused = message.stop_reason === "pause_turn";
      if (content.length > 0) this.history.addAssistant(content);
      events.onAssistant?.(message, content);

      // Loops, not .filter and .map: a read-only headless turn calls neither (jit.ts).
      const toolUses: ToolUseBlock[] = [];
      for (const b of content) if (b.type === "tool_use") toolUses.push(b);
      const results = toolUses.length > 0 ? await this.runTools(toolUses, ctx, events, clean.refused) : [];
      if (results.length > 0) events.onToolResults?.(results);
      const injected: ContentBlockParam[] = [];
      if (toolUses.length > 0) {
        for (const hook of this.opts.hooks ?? []) {
          const names: string[] = [];
          for (const t of toolUses) names.push(t.name);
          const extra = hook.afterRound(names);
          if (extra) {
            events.onInjected(extra);
            injected.push({ type: "text", text: extra });
          }
        }
      }
      if (ctx.signal.aborted) {
        // Every call answered, then the note: the next message reads as the person stepping in, not as a reply to the results.
        if (results.length > 0) this.history.addUser([...results, INTERRUPTED_TOOLS]);
        return { end: "interrupted", text: lastText, modelCalls: call };
      }

      if (content.length === 0 && (message.stop_reason === "tool_use" || message.stop_reason === "pause_turn")) {
        // Resending the same conversation would get the same nothing back: a bounded retry, then stop.
        if (continuations >= maxContinuations) {
          const error = `the model sent ${continuations + 1} empty replies (stop_reason ${message.stop_reason}); stopping. ${advice.goOn} to try again.`;
          return { end: "error", text: lastText, modelCalls: call, error };
        }
        continuations++;
        events.onNotice(`The model sent an empty reply (stop_reason ${message.stop_reason}); asking again (${continuations}/${maxContinuations}).`);
        continue;
      }

      switch (message.stop_reason) {
        case "tool_use":
          if (toolUses.length === 0) {
            // "tool_use" with no tool call: nothing to answer, so the reply is the answer.
            if (results.length > 0) this.history.addUser(results);
            return { end: "done", text: lastText, modelCalls: call };
          }
          this.history.addUser([...results, ...injected]);
          continue;
        case "max_tokens": {
          if (continuations >= maxContinuations) {
            if (results.length > 0) this.history.addUser(results);
            events.onNotice(`The reply hit the output limit ${continuations + 1} times; stopping here. ${advice.goOn} to go on.`);
            return { end: "done", text: lastText, modelCalls: call };
          }
          continuations++;
          events.onNotice(`The reply hit the output token limit; continuing (${continuations}/${maxContinuations}).`);
          this.history.addUser([
            ...results,
            ...injected,
            { type: "text", text: "Your reply was cut off by the output token limit. Continue exactly where you left off; if you were calling a tool, call it again." },
          ]);
          continue;
        }
        case "pause_turn":
          // The server paused a long turn: send the conversation back as it is.
          if (results.length > 0) this.history.addUser([...results, ...injected]);
          continue;
        case "refusal":
          if (results.length > 0) this.history.addUser(results);
          events.onNotice("The model declined to continue this request.");
          return { end: "refusal", text: lastText, modelCalls: call };
        case "model_context_window_exceeded": {
          // The reply filled the window: make room and let it go on, like max_tokens.
          const r = continuations < maxContinuations ? this.compact(1) : { elided: 0, savedChars: 0 };
          if (r.elided === 0) {
            if (results.length > 0) this.history.addUser(results);
            events.onNotice(contextFull(advice));
            return { end: "context_full", text: lastText, modelCalls: call };
          }
          continuations++;
          events.onNotice(`The context window filled during the reply: ${describeElision(r)}; continuing.`);
          this.history.addUser([
            ...results,
            ...injected,
            { type: "text", text: "Your reply was cut off because the context window filled; old tool output has been elided. Continue where you left off; if you were calling a tool, call it again." },
          ]);
          continue;
        }
        default:
          // end_turn, stop_sequence, or a reason this version does not know.
          if (results.length > 0) this.history.addUser([...results, ...injected]);
          if (!lastText && toolUses.length === 0) events.onNotice("The model ended its turn without saying anything.");
          return { end: "done", text: lastText, modelCalls: call };
      }
    }
    events.onNotice(`Stopped after ${maxTurns} model call${maxTurns === 1 ? "" : "s"} (--max-turns ${maxTurns}). ${advice.goOn} to let it go on.`);
    return { end: "max_turns", text: lastText, modelCalls: maxTurns };
  }

  /** Run each tool call in order; once interrupted, answer the rest without running them. */
  private async runTools(calls: ToolUseBlock[], ctx: ToolContext, events: LoopEvents, refused: Map<string, string>): Promise<ToolResultBlockParam[]> {
    const { registry } = this.opts;
    const results: ToolResultBlockParam[] = [];
    for (const call of calls) {
      if (ctx.signal.aborted) {
        results.push({ type: "tool_result", tool_use_id: call.id, content: INTERRUPTED, is_error: true });
        continue;
      }
      const refusal = refused.get(call.id);
      if (refusal !== undefined) {
        events.onToolStart(`${call.name} (malformed call)`);
        events.onToolEnd(`${call.name} (malformed call)`, { content: refusal, isError: true });
        results.push({ type: "tool_result", tool_use_id: call.id, content: refusal, is_error: true });
        continue;
      }
      await registry.ready(call.name);
      const summary = registry.summarize(call.name, call.input);
      events.onToolStart(summary);
      const result = await registry.run(call.name, call.input, ctx);
      events.onToolEnd(summary, result);
      // The API rejects empty text; say so instead.
      const text = result.content === "" ? "(no output)" : result.content;
      results.push({
        type: "tool_result",
        tool_use_id: call.id,
        content: result.images?.length ? [{ type: "text", text }, ...result.images.map(imageBlock)] : text,
        ...(result.isError ? { is_error: true } : {}),
      });
    }
    return results;
  }
}

/** The reply's text. Adjacent text blocks (split by citations) join as they are; text on either side of a tool block is a new paragraph. */
function textOf(content: ContentBlock[]): string {
  let out = "";
  let gap = false;
  for (const b of content) {
    if (b.type !== "text") {
      gap = out !== "";
      continue;
    }
    out += gap ? `\n\n${b.text}` : b.text;
    gap = false;
  }
  return out.trim();
}

function describeElision(r: ElideResult): string {
  const kb = Math.max(1, Math.round(r.savedChars / 1024));
  return `elided the output of ${r.elided} earlier tool call${r.elided === 1 ? "" : "s"} (${kb} KB); the model can run them again`;
}
