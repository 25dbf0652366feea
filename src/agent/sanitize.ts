// A reply goes back to the API unchanged, unless the API would reject it:
// then one bad block would make every later request of the session fail.
// Whitespace-only text is dropped, a bad or repeated tool_use id gets a fresh
// one, and a tool call whose input is not a JSON object (or is nested past
// what can be serialised safely) keeps `{}` as its input and is answered
// with an error instead of being run.
import type { ContentBlock, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";

export interface SanitizedReply {
  content: ContentBlock[];
  /** Tool calls that must not run, by id: the error to send back instead. */
  refused: Map<string, string>;
  /** What was changed, for --verbose. */
  changes: string[];
}

/** [a-zA-Z0-9_-]+, the API's rule for tool ids and names: a loop, not a pattern (a regular expression costs its compile in every run, see jit.ts). */
function isToolWord(s: string, max: number): boolean {
  if (s.length === 0 || s.length > max) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45)) return false;
  }
  return true;
}
const TOOL_ID = { test: (s: string) => isToolWord(s, Infinity) };
const TOOL_NAME = { test: (s: string) => isToolWord(s, 128) };
/** Deeper input than any tool schema needs; deep enough nesting overflows JSON.stringify. */
const MAX_INPUT_DEPTH = 64;

/** `earlierIds`: the tool_use ids already in the conversation (ids must be unique across it). */
export function sanitizeReply(content: ContentBlock[], earlierIds: ReadonlySet<string> = new Set()): SanitizedReply {
  const refused = new Map<string, string>();
  const changes: string[] = [];
  const seen = new Set<string>(earlierIds);
  const out: ContentBlock[] = [];
  for (const block of content) {
    if (block.type === "text" && block.text.trim() === "") {
      changes.push("dropped an empty text block");
      continue;
    }
    if (block.type !== "tool_use") {
      out.push(block);
      continue;
    }
    let b: ToolUseBlock = block;
    if (typeof b.id !== "string" || !TOOL_ID.test(b.id) || seen.has(b.id)) {
      const id = `toolu_bunker_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
      changes.push(`tool call id ${JSON.stringify(b.id)} was ${seen.has(b.id) ? "repeated" : "invalid"}; renamed ${id}`);
      b = { ...b, id };
    }
    seen.add(b.id);
    const problem = inputProblem(b.input) ?? (typeof b.name === "string" && TOOL_NAME.test(b.name) ? null : "its tool name is not a valid name");
    if (problem) {
      const name = typeof b.name === "string" && TOOL_NAME.test(b.name) ? b.name : "invalid_tool_name";
      refused.set(b.id, `Error: this ${name} call was not run: ${problem}. Call the tool again with a JSON object matching its schema.`);
      changes.push(`tool call ${b.id} not run: ${problem}`);
      b = { ...b, name, input: {} };
    }
    out.push(b);
  }
  return { content: out, refused, changes };
}

function inputProblem(input: unknown): string | null {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return `its input must be a JSON object, not ${input === null ? "null" : Array.isArray(input) ? "an array" : `a ${typeof input}`}`;
  }
  return depthOver(input, MAX_INPUT_DEPTH) ? `its input is nested more than ${MAX_INPUT_DEPTH} levels deep` : null;
}

/** Iterative, so a hostile input cannot overflow the stack while being measured. */
function depthOver(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
