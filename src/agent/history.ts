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
    const last = this.messages.at(-1);
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
    const last = this.messages.at(-1);
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
    const last = this.messages.at(-1);
    return { length: this.messages.length, last, lastContent: last?.content };
  }

  rollback(mark: HistoryMark): void {
    this.messages.length = mark.length;
    if (mark.last && mark.lastContent !== undefined) mark.last.content = mark.lastContent;
  }

  /** Drop everything after `length` (used when a turn is abandoned mid-stream). */
  truncate(length: number): void {
    this.messages.length = length;
  }

  clear(): void {
    this.messages = [];
  }
}
