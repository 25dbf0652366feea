// The conversation as the API sees it. Keeps it valid at every point: roles
// alternate, and a user message after a failed or interrupted turn merges
// into the trailing user message instead of making two in a row.
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";

export interface HistoryMark {
  length: number;
  last: MessageParam | undefined;
  lastContent: MessageParam["content"] | undefined;
}

export class History {
  messages: MessageParam[] = [];

  addUser(content: string | ContentBlockParam[]): void {
    const blocks: ContentBlockParam[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
    const last = this.messages[this.messages.length - 1];
    if (last?.role === "user") {
      const prior: ContentBlockParam[] = typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
      last.content = [...prior, ...blocks];
      return;
    }
    this.messages.push({ role: "user", content: blocks });
  }

  /** After pause_turn the next reply continues the same assistant turn: merge it in. */
  addAssistant(content: MessageParam["content"]): void {
    const blocks: ContentBlockParam[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
    const last = this.messages[this.messages.length - 1];
    if (last?.role === "assistant") {
      const prior: ContentBlockParam[] = typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
      last.content = [...prior, ...blocks];
      return;
    }
    this.messages.push({ role: "assistant", content });
  }

  /** The tool_use ids already sent: a reply may not reuse one. */
  toolUseIds(): Set<string> {
    const ids = new Set<string>();
    for (const m of this.messages) {
      if (m.role !== "assistant" || typeof m.content === "string") continue;
      for (const b of m.content) if (b.type === "tool_use") ids.add(b.id);
    }
    return ids;
  }

  /** A point to roll back to: the length, and the last message's blocks (addUser may extend them). */
  mark(): HistoryMark {
    const last = this.messages[this.messages.length - 1];
    return { length: this.messages.length, last, lastContent: last?.content };
  }

  rollback(mark: HistoryMark): void {
    this.messages.length = mark.length;
    if (mark.last && mark.lastContent !== undefined) mark.last.content = mark.lastContent;
  }

  /** Back to before the turn whose prompt is in message `index` (/rewind N conversation): see messagesBefore. */
  truncateTurn(index: number): void {
    this.messages = messagesBefore(this.messages, index);
  }

  /** Drop everything after `length` (used when a turn is abandoned mid-stream). */
  truncate(length: number): void {
    this.messages.length = length;
  }

  clear(): void {
    this.messages = [];
  }

  /**
   * A saved conversation, made safe to send: it starts with the person, and a
   * tool call left unanswered (a crash mid-round) is answered as interrupted.
   */
  load(messages: MessageParam[]): void {
    const start = messages.findIndex((m) => m.role === "user");
    this.messages = [];
    for (const m of start < 0 ? [] : messages.slice(start)) {
      if (m.role === "user") this.addUser(m.content);
      else this.addAssistant(m.content);
    }
    this.answerOpenToolUses("Interrupted: bunker stopped before this ran.");
  }

  /** Tool calls at the end left without results (a crash, a bug) get `note` as their result: the API rejects them unanswered. */
  answerOpenToolUses(note: string): void {
    const last = this.messages[this.messages.length - 1];
    if (last?.role !== "assistant" || typeof last.content === "string") return;
    const open = last.content.filter((b) => b.type === "tool_use");
    if (open.length > 0) this.addUser(open.map((b) => ({ type: "tool_result" as const, tool_use_id: b.id, content: note, is_error: true })));
  }
}

/**
 * What bunker itself tells the model between the person's messages (an interrupted reply, files taken back
 * with /undo): one text block in brackets, "[The person …]", never the person's own words.
 */
export function bunkerNote(text: string): ContentBlockParam {
  return { type: "text", text: `[${text}]` };
}

export function isBunkerNote(block: ContentBlockParam): boolean {
  return block.type === "text" && (/^\[The person [^]*\]$/.test(block.text) || block.text.startsWith(TODO_REMINDER));
}

/** The reminder injected after rounds with no todo call (src/agent/todo.ts): bunker's words in a user message, not the person's. */
export const TODO_REMINDER = "<reminder>Update your todos.</reminder>";
/** How the plan kept by `/clear keep-todos` begins, at the end of the person's next message. */
export const KEPT_TODOS_HEAD = "<reminder>Your todo list, kept from before the conversation was cleared:\n";

/** The person's own words in a text block: the plan `/clear keep-todos` put after them taken off (new user 12's N12-01). */
export function personsText(text: string): string {
  const at = text.lastIndexOf(`\n\n${KEPT_TODOS_HEAD}`);
  return at >= 0 && text.endsWith("</reminder>") ? text.slice(0, at) : text;
}

/**
 * A file the person attached with `@path` (src/agent/attachments.ts), as one text block after their prompt: its
 * lines as read_file shows them, under a first line that names it.
 */
export function attachedFile(display: string, lines: string): ContentBlockParam {
  return { type: "text", text: `${ATTACHED_HEAD}${display}, as read_file shows it:\n${lines}` };
}

const ATTACHED_HEAD = "The person attached the file ";
const ATTACHED = /^The person attached the file (.*), as read_file shows it:\n/;

/** The file an attachedFile block names, or null for any other block. */
export function attachedFileName(block: ContentBlockParam): string | null {
  return block.type === "text" ? (ATTACHED.exec(block.text)?.[1] ?? null) : null;
}

/** Whether a user message holds something the person sent (not only tool results and bunker's notes): it starts a turn. */
export function holdsPrompt(m: MessageParam): boolean {
  if (m.role !== "user") return false;
  if (typeof m.content === "string") return true;
  return m.content.some((b) => b.type !== "tool_result" && !isBunkerNote(b));
}

/**
 * The conversation as it was before the turn whose prompt is in `messages[index]`: the messages before it, and
 * of that message the tool results and notes that came before the prompt (an earlier turn's last results, a note
 * that files were taken back), which belong to what came before.
 */
export function messagesBefore(messages: MessageParam[], index: number): MessageParam[] {
  const kept = messages.slice(0, index);
  const at = messages[index];
  if (at?.role !== "user" || typeof at.content === "string") return kept;
  const first = at.content.findIndex((b) => b.type !== "tool_result" && !isBunkerNote(b));
  const before = first < 0 ? at.content : at.content.slice(0, first);
  if (before.length > 0) kept.push({ role: "user", content: before });
  return kept;
}
