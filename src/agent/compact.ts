// Keeping a long session inside the model's context window. The output of
// old tool calls (file contents, grep hits, command logs) and the bodies of
// old writes are most of a long conversation and the least needed later, so
// they go first. The structure stays valid: every tool_use keeps its
// tool_result and its id; only long text inside them shrinks. Thinking
// blocks are never touched (the API checks their signatures), and the newest
// reply that thought is kept whole: it is the one the API checks across tool use.
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";

/** Text at most this long is kept: eliding it would save little. */
export const ELIDE_MIN_CHARS = 400;

export interface ElideResult {
  /** Tool results and tool inputs shortened. */
  elided: number;
  /** Characters removed (about 4 per token). */
  savedChars: number;
}

const resultNote = (chars: number) =>
  `[Output elided to keep the conversation within the context window (was ${chars} characters). Run the tool again if you need it.]`;
const inputNote = (chars: number) => `[elided: ${chars} characters]`;

/**
 * Shorten tool output and long tool inputs in every round but the last
 * `keepRecentRounds` (a round: a user message carrying tool_result blocks).
 * Mutates `messages`; running it twice elides nothing more.
 */
export function elideOldToolOutput(messages: MessageParam[], keepRecentRounds: number): ElideResult {
  const result: ElideResult = { elided: 0, savedChars: 0 };
  const rounds = messages.flatMap((m, i) => (m.role === "user" && blocksOf(m).some((b) => b.type === "tool_result") ? [i] : []));
  if (rounds.length <= keepRecentRounds) return result;
  // The first round kept whole, and the assistant message whose calls it answers.
  const firstKept = keepRecentRounds === 0 ? messages.length : rounds[rounds.length - keepRecentRounds]!;
  const lastThought = messages.findLastIndex((m) => m.role === "assistant" && blocksOf(m).some(isThinking));
  for (let i = 0; i < firstKept; i++) {
    const m = messages[i]!;
    if (typeof m.content === "string" || (m.role === "assistant" && i === firstKept - 1 && keepRecentRounds > 0) || i === lastThought) continue;
    m.content = m.content.map((b) => elideBlock(b, m.role, result)) as typeof m.content;
  }
  return result;
}

const isThinking = (b: ContentBlockParam) => b.type === "thinking" || b.type === "redacted_thinking";

function blocksOf(m: MessageParam): ContentBlockParam[] {
  return typeof m.content === "string" ? [] : m.content;
}

function elideBlock(b: ContentBlockParam, role: MessageParam["role"], acc: ElideResult): ContentBlockParam {
  if (role === "user" && b.type === "tool_result") {
    const chars = resultChars(b.content);
    if (chars <= ELIDE_MIN_CHARS) return b;
    acc.elided++;
    const note = resultNote(chars);
    acc.savedChars += chars - note.length;
    return { ...b, content: note };
  }
  if (role === "assistant" && b.type === "tool_use" && b.input && typeof b.input === "object" && !Array.isArray(b.input)) {
    let changed = false;
    const input: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(b.input as Record<string, unknown>)) {
      if (typeof v === "string" && v.length > ELIDE_MIN_CHARS) {
        const note = inputNote(v.length);
        acc.savedChars += v.length - note.length;
        input[k] = note;
        changed = true;
      } else input[k] = v;
    }
    if (!changed) return b;
    acc.elided++;
    return { ...b, input };
  }
  return b;
}

function resultChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content as { type?: string; text?: string }[]) {
    // Images and documents count as large: their text length is unknown here.
    n += part.type === "text" ? (part.text?.length ?? 0) : ELIDE_MIN_CHARS + 1;
  }
  return n;
}
