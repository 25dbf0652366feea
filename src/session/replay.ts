// What a continued session (`-c`, `-r`, the --resume picker) shows of the
// conversation so far, so the person knows where they were, as Claude Code
// replays it: each of their prompts as it stood after `›`, each tool call as
// its one dim line (the line shown live), and the model's answers rendered as
// they were. Compact: only the last turns, each answer and prompt cut to a
// few rows with a line saying how much more there was. Every character that
// does not show itself is escaped (the render function the caller gives
// escapes what it renders).
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { attachedFileName, holdsPrompt, isBunkerNote, personsText } from "../agent/history.ts";
import pc from "../ui/colors.ts";
import { escapeControl } from "../ui/escape.ts";

export interface ReplayOptions {
  /** The one-line summary shown live for a tool call (`read_file src/a.ts`), unescaped. */
  summarize: (name: string, input: unknown) => string;
  /** An answer as the terminal showed it (markdown rendered, or escaped and wrapped). */
  render: (text: string) => string;
  /** Turns shown, the newest (default 10); the rest are counted above them. */
  turns?: number;
  /** Rows of one answer shown before the rest is counted (default 12). */
  answerRows?: number;
  /** Lines of one prompt shown before the rest is counted (default 3). */
  promptLines?: number;
}

/** One thing said in a turn, in order: the person's prompt, a tool call, an answer. */
type Item = { kind: "prompt"; text: string } | { kind: "tool"; id: string; name: string; input: unknown; failed?: string } | { kind: "answer"; text: string } | { kind: "taken back"; text: string };

/** The note /undo and /rewind leave for the model (takeBackNote in src/change/checkpoints.ts): how, which message, which files. */
const TAKE_BACK = /^\[The person took back file changes with (.+?), to before their message (\d+) \("(.*?)"\): (.+?)\. On disk /s;

/** A failed tool call's line in the replay is cut here: its first line, as the live ✗ line begins. */
const FAILED_CHARS = 160;

/** The person's prompts in `messages` (what a session's "N prompts" counts): not tool results, not bunker's own notes. */
export function countPrompts(messages: MessageParam[]): number {
  let n = 0;
  for (const m of messages) if (holdsPrompt(m)) n++;
  return n;
}

/**
 * What the person typed in `message`, as they typed it: its text without bunker's notes, the files their @s attached,
 * the plan /clear keep-todos added, tool results; "" when there is none.
 */
export function typedText(message: MessageParam | undefined): string {
  if (!message) return "";
  if (typeof message.content === "string") return personsText(message.content);
  const parts: string[] = [];
  for (const b of message.content) if (b.type === "text" && !isBunkerNote(b) && attachedFileName(b) === null) parts.push(personsText(b.text));
  return parts.join("\n");
}

/** The conversation's turns, each a list of items, oldest first. */
export function turnsOf(messages: MessageParam[]): Item[][] {
  const turns: Item[][] = [];
  for (const m of messages) {
    if (m.role === "user") {
      const turn = turns[turns.length - 1];
      if (turn && typeof m.content !== "string") {
        markFailures(turn, m.content);
        // An /undo or /rewind between two messages: said where it happened, after the turn before it.
        for (const b of m.content) {
          const took = b.type === "text" ? TAKE_BACK.exec(b.text) : null;
          if (took) turn.push({ kind: "taken back", text: `${took[1]} took back turn ${took[2]} ("${took[3]}"): ${took[4]}.` });
        }
      }
      if (!holdsPrompt(m)) continue;
      turns.push([{ kind: "prompt", text: promptText(m.content) }]);
      continue;
    }
    const turn = turns[turns.length - 1];
    if (!turn) continue;
    const blocks = typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content;
    for (const b of blocks) {
      if (b.type === "text" && b.text.trim()) turn.push({ kind: "answer", text: b.text.trim() });
      else if (b.type === "tool_use") turn.push({ kind: "tool", id: b.id, name: b.name, input: b.input });
    }
  }
  return turns;
}

/**
 * The calls of `turn` whose results in `blocks` are errors (a refused edit, a command's exit 128, an interrupted
 * run) get the first line of what the model was told: the replay showed each as if it had gone through (new user
 * 12's N12-22).
 */
function markFailures(turn: Item[], blocks: ContentBlockParam[]): void {
  for (const b of blocks) {
    if (b.type !== "tool_result" || !b.is_error) continue;
    const call = turn.find((i) => i.kind === "tool" && i.id === b.tool_use_id);
    if (call?.kind !== "tool") continue;
    const text = typeof b.content === "string" ? b.content : (b.content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("\n");
    const line = text.split("\n").find((l) => l.trim() !== "")?.trim() ?? "failed";
    call.failed = line.length > FAILED_CHARS ? `${line.slice(0, FAILED_CHARS - 1)}…` : line;
  }
}

/** What the person sent: their text, an attached image as `[image]`; tool results and bunker's notes are not theirs. */
function promptText(content: string | ContentBlockParam[]): string {
  if (typeof content === "string") return content;
  const parts: string[] = [];
  for (const b of content) {
    if (b.type === "tool_result" || isBunkerNote(b)) continue;
    const attached = attachedFileName(b);
    if (attached !== null) parts.push(`[${attached} attached]`);
    else if (b.type === "text") parts.push(personsText(b.text));
    else if (b.type === "image") parts.push("[image]");
    else if (b.type === "document") parts.push("[document]");
  }
  return parts.join("\n").trim();
}

/** The transcript to print above the prompt: "" when there is no turn to show. Ends with a newline otherwise. */
export function replayTranscript(messages: MessageParam[], opts: ReplayOptions): string {
  const all = turnsOf(messages);
  const keep = opts.turns ?? 10;
  const shown = all.slice(Math.max(0, all.length - keep));
  const earlier = all.length - shown.length;
  const out: string[] = [];
  if (earlier > 0) out.push(pc.dim(`… ${earlier} earlier turn${earlier === 1 ? "" : "s"} not shown`));
  for (const turn of shown) {
    for (const item of turn) {
      if (item.kind === "prompt") out.push(...promptRows(item.text, opts.promptLines ?? 3));
      else if (item.kind === "tool") {
        out.push(pc.dim(`  ${escapeControl(opts.summarize(item.name, item.input))}`));
        if (item.failed !== undefined) out.push(pc.red(`  ✗ ${escapeControl(item.failed)}`));
      } else if (item.kind === "taken back") out.push(pc.dim(escapeControl(item.text)));
      else out.push(...cutRows(opts.render(item.text).split("\n"), opts.answerRows ?? 12));
    }
  }
  return out.length > 0 ? `${out.join("\n")}\n` : "";
}

function promptRows(text: string, max: number): string[] {
  const lines = escapeControl(text, { keepNewlines: true }).split("\n");
  const rows = lines.slice(0, max).map((l, i) => (i === 0 ? `${pc.cyan("›")} ${l}` : `  ${l}`));
  if (lines.length > max) rows.push(pc.dim(`  … (${lines.length - max} more line${lines.length - max === 1 ? "" : "s"})`));
  return rows;
}

function cutRows(rows: string[], max: number): string[] {
  if (rows.length <= max) return rows;
  const more = rows.length - max;
  const kept = rows.slice(0, max);
  // A colour opened in the rows kept and closed in the rows cut must not run on into what follows.
  if (kept.some((r) => r.includes("\x1b["))) kept[kept.length - 1] += "\x1b[0m";
  return [...kept, pc.dim(`… (${more} more line${more === 1 ? "" : "s"} of this answer)`)];
}
