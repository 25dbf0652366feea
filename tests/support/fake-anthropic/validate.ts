// Request validation, as strict as the real Messages API (stricter on one
// point: consecutive same-role turns are rejected, where the API would merge
// them, so that a loop that relies on merging fails in tests). Pure: headers
// and a parsed body in, the first problem out.
import { thinkingSignature } from "./reply.ts";

export interface Rejection {
  status: number;
  type: string;
  message: string;
}

const invalid = (message: string): Rejection => ({ status: 400, type: "invalid_request_error", message });

export function checkHeaders(headers: Record<string, string>, apiKey?: string): Rejection | null {
  const key = headers["x-api-key"];
  const bearer = headers["authorization"]?.replace(/^Bearer\s+/i, "");
  if (!key && !bearer) {
    return { status: 401, type: "authentication_error", message: "x-api-key header is required" };
  }
  if (apiKey !== undefined && key !== apiKey && bearer !== apiKey) {
    return { status: 401, type: "authentication_error", message: "invalid x-api-key" };
  }
  if (!headers["anthropic-version"]) return invalid("anthropic-version: header is required");
  return null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

const USER_BLOCKS = new Set(["text", "image", "document", "search_result", "tool_result"]);
const ASSISTANT_BLOCKS = new Set(["text", "tool_use", "thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result"]);

/** The first thing the real API would reject in this body, or null. */
export function checkBody(body: unknown): Rejection | null {
  if (!isObj(body)) return invalid("request body must be a JSON object");
  if (typeof body.model !== "string" || body.model === "") return invalid("model: Field required");
  if (body.max_tokens === undefined) return invalid("max_tokens: Field required");
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 0) {
    return invalid("max_tokens: Input should be a valid non-negative integer");
  }
  if (body.stream !== undefined && typeof body.stream !== "boolean") return invalid("stream: Input should be a valid boolean");
  return checkThinkingConfig(body) ?? checkSystem(body.system) ?? checkTools(body) ?? checkMessages(body.messages, Array.isArray(body.tools) && body.tools.length > 0);
}

const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;
const MAX_IMAGE_SIDE = 8000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A base64 image block: the media type is one the API takes, the data is base64 of that kind of image, within the limits. */
function checkImage(b: Obj, at: string): Rejection | null {
  const src = b.source;
  if (!isObj(src)) return invalid(`${at}.source: Field required`);
  if (src.type !== "base64") return invalid(`${at}.source.type: the fake accepts only base64 images, got ${JSON.stringify(src.type)}`);
  if (!IMAGE_TYPES.includes(src.media_type as string)) {
    return invalid(`${at}.source.base64.media_type: Input should be ${IMAGE_TYPES.map((t) => `'${t}'`).join(", ")}`);
  }
  if (typeof src.data !== "string" || src.data.length === 0 || src.data.length % 4 !== 0 || !BASE64.test(src.data)) {
    return invalid(`${at}.source.base64.data: The image data is not valid base64`);
  }
  if (src.data.length > MAX_IMAGE_BASE64) return invalid(`${at}.source.base64: image exceeds 5 MB maximum: ${src.data.length} bytes > ${MAX_IMAGE_BASE64} bytes`);
  const bytes = Buffer.from(src.data, "base64");
  const kind = imageKind(bytes);
  if (kind !== src.media_type) {
    return invalid(`${at}.source.base64.data: Image does not match the provided media type ${String(src.media_type)}${kind ? ` (it is ${kind})` : ""}`);
  }
  const size = imageSize(bytes, kind!);
  if (!size) return invalid(`${at}.source.base64.data: Could not process image`);
  if (size.width > MAX_IMAGE_SIDE || size.height > MAX_IMAGE_SIDE) {
    return invalid(`${at}.source.base64.data: At least one of the image dimensions exceed max allowed size: ${MAX_IMAGE_SIDE} pixels`);
  }
  return null;
}

function imageKind(b: Buffer): string | null {
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (/^GIF8[79]a/.test(b.subarray(0, 6).toString("latin1"))) return "image/gif";
  if (b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP") return "image/webp";
  return null;
}

/** Width and height from the image's header, or null when it is cut short. */
function imageSize(b: Buffer, kind: string): { width: number; height: number } | null {
  try {
    if (kind === "image/png") return b.subarray(12, 16).toString("latin1") === "IHDR" ? { width: b.readUInt32BE(16), height: b.readUInt32BE(20) } : null;
    if (kind === "image/gif") return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
    if (kind === "image/webp") {
      const chunk = b.subarray(12, 16).toString("latin1");
      if (chunk === "VP8X") return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
      if (chunk === "VP8L") return { width: 1 + (b.readUInt16LE(21) & 0x3fff), height: 1 + ((b.readUInt32LE(21) >> 14) & 0x3fff) };
      if (chunk === "VP8 ") return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
      return null;
    }
    // JPEG: walk the markers to a start-of-frame.
    for (let i = 2; i + 9 < b.length; ) {
      if (b[i] !== 0xff) return null;
      const marker = b[i + 1]!;
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
      i += 2 + b.readUInt16BE(i + 2);
    }
    return null;
  } catch {
    return null;
  }
}

const EFFORTS = ["low", "medium", "high", "xhigh", "max"];

/** `thinking` and `output_config.effort`, as the API checks them. */
function checkThinkingConfig(body: Obj): Rejection | null {
  const t = body.thinking;
  if (t !== undefined) {
    if (!isObj(t) || !["enabled", "disabled", "adaptive"].includes(t.type as string)) {
      return invalid("thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'");
    }
    if (t.type === "enabled") {
      if (!Number.isInteger(t.budget_tokens)) return invalid("thinking.enabled.budget_tokens: Field required");
      if ((t.budget_tokens as number) < 1024) return invalid("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
      if ((t.budget_tokens as number) >= (body.max_tokens as number)) {
        return invalid("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size");
      }
    } else if (t.budget_tokens !== undefined) {
      return invalid(`thinking.${t.type}.budget_tokens: Extra inputs are not permitted`);
    }
  }
  const oc = body.output_config;
  if (oc !== undefined) {
    if (!isObj(oc)) return invalid("output_config: Input should be a valid dictionary");
    if (oc.effort !== undefined && oc.effort !== null && !EFFORTS.includes(oc.effort as string)) {
      return invalid(`output_config.effort: Input should be ${EFFORTS.map((e) => `'${e}'`).join(", ")}`);
    }
  }
  return null;
}

/** A thinking block as served: it must come back exactly so. */
export interface ServedThinking {
  thinking: string;
  signature: string;
}

/**
 * Every reply the server sent with thinking and tool calls, by tool_use id:
 * wherever such a reply comes back, its thinking blocks must lead it,
 * present and unmodified, in their order (the API's rule across tool use).
 */
export function checkThinkingKept(messages: unknown, served: ReadonlyMap<string, ServedThinking[]>): Rejection | null {
  if (!Array.isArray(messages) || served.size === 0) return null;
  for (const [i, m] of messages.entries()) {
    if (!isObj(m) || m.role !== "assistant" || !Array.isArray(m.content)) continue;
    const blocks = m.content as Obj[];
    const use = blocks.find((b) => isObj(b) && b.type === "tool_use" && served.has(b.id as string));
    if (!use) continue;
    const expected = served.get(use.id as string)!;
    for (const [j, want] of expected.entries()) {
      const got = blocks[j];
      const at = `messages.${i}.content.${j}`;
      if (!isObj(got) || (got.type !== "thinking" && got.type !== "redacted_thinking")) {
        return invalid(
          `${at}.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${isObj(got) ? String(got.type) : "nothing"}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block: send thinking blocks back exactly as received`,
        );
      }
      if (got.thinking !== want.thinking || got.signature !== want.signature) {
        return invalid(`${at}: thinking block was modified; send thinking blocks back exactly as received`);
      }
    }
  }
  return null;
}

function checkSystem(system: unknown): Rejection | null {
  if (system === undefined || typeof system === "string") return null;
  if (!Array.isArray(system)) return invalid("system: Input should be a valid string or list of text blocks");
  for (const [i, b] of system.entries()) {
    if (!isObj(b) || b.type !== "text") return invalid(`system.${i}: system blocks must be text blocks`);
    if (typeof b.text !== "string" || b.text.trim() === "") return invalid(`system.${i}.text: text content blocks must be non-empty`);
  }
  return null;
}

function checkTools(body: Obj): Rejection | null {
  const names = new Set<string>();
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return invalid("tools: Input should be a valid list");
    for (const [i, t] of body.tools.entries()) {
      if (!isObj(t)) return invalid(`tools.${i}: Input should be a valid dictionary`);
      if (typeof t.type === "string" && t.type !== "custom") continue; // a server tool (web_search, ...)
      if (typeof t.name !== "string" || !TOOL_NAME.test(t.name)) {
        return invalid(`tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
      }
      if (names.has(t.name)) return invalid(`tools: Tool names must be unique. Found "${t.name}" more than once`);
      names.add(t.name);
      if (t.description !== undefined && typeof t.description !== "string") return invalid(`tools.${i}.description: Input should be a valid string`);
      if (!isObj(t.input_schema)) return invalid(`tools.${i}.input_schema: Field required (a JSON Schema object)`);
      if (t.input_schema.type !== "object") return invalid(`tools.${i}.input_schema.type: Input should be 'object'`);
    }
  }
  const choice = body.tool_choice;
  if (choice === undefined) return null;
  if (!isObj(choice) || !["auto", "any", "tool", "none"].includes(choice.type as string)) {
    return invalid("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'");
  }
  if ((choice.type === "any" || choice.type === "tool") && names.size === 0) {
    return invalid(`tool_choice: tool_choice.type '${choice.type}' requires tools to be defined`);
  }
  if (choice.type === "tool" && !names.has(choice.name as string)) {
    return invalid(`tool_choice.name: tool '${String(choice.name)}' is not in tools`);
  }
  return null;
}

/** Content as a block list (a string is shorthand for one text block). */
function blocksOf(content: unknown): Obj[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : (content as Obj[]);
}

function checkMessages(messages: unknown, hasTools: boolean): Rejection | null {
  if (messages === undefined) return invalid("messages: Field required");
  if (!Array.isArray(messages)) return invalid("messages: Input should be a valid list");
  if (messages.length === 0) return invalid("messages: at least one message is required");
  const seenToolUseIds = new Set<string>();
  for (const [i, m] of messages.entries()) {
    const problem = checkMessage(m, i, messages.length, messages[i - 1], seenToolUseIds, hasTools);
    if (problem) return problem;
  }
  return checkToolPairing(messages as Obj[]);
}

function checkMessage(m: unknown, i: number, count: number, prev: unknown, seenIds: Set<string>, hasTools: boolean): Rejection | null {
  const at = `messages.${i}`;
  if (!isObj(m)) return invalid(`${at}: Input should be a valid dictionary`);
  if (m.role !== "user" && m.role !== "assistant") {
    return invalid(`${at}.role: Input should be 'user' or 'assistant' (put system text in the top-level \`system\` parameter)`);
  }
  if (i === 0 && m.role !== "user") return invalid(`messages: first message must use the "user" role`);
  if (isObj(prev) && prev.role === m.role) {
    return invalid(
      `messages: roles must alternate between "user" and "assistant", but found multiple "${m.role}" roles in a row (messages.${i - 1} and messages.${i})`,
    );
  }
  const isFinalAssistant = i === count - 1 && m.role === "assistant";
  if (typeof m.content !== "string" && !Array.isArray(m.content)) {
    return invalid(`${at}.content: Input should be a valid string or list of content blocks`);
  }
  if (m.content.length === 0 && !isFinalAssistant) {
    return invalid(`${at}: all messages must have non-empty content except for the optional final assistant message`);
  }
  const allowed = m.role === "user" ? USER_BLOCKS : ASSISTANT_BLOCKS;
  for (const [j, b] of blocksOf(m.content).entries()) {
    const bat = typeof m.content === "string" ? at : `${at}.content.${j}`;
    if (!isObj(b) || typeof b.type !== "string") return invalid(`${bat}: content blocks must be objects with a "type"`);
    if (b.type === "tool_use" && m.role === "user") return invalid(`${bat}: tool_use blocks can only appear in assistant messages`);
    if (b.type === "tool_result" && m.role === "assistant") return invalid(`${bat}: tool_result blocks can only appear in user messages`);
    if (!allowed.has(b.type)) {
      return invalid(`${bat}.type: Input tag '${b.type}' does not match any of the expected tags: ${[...allowed].join(", ")}`);
    }
    const problem = checkBlock(b, bat, seenIds, hasTools);
    if (problem) return problem;
  }
  return null;
}

function checkBlock(b: Obj, at: string, seenIds: Set<string>, hasTools: boolean): Rejection | null {
  switch (b.type) {
    case "text":
      if (typeof b.text !== "string") return invalid(`${at}.text: Field required`);
      if (b.text.trim() === "") return invalid(`${at}: text content blocks must contain non-whitespace text`);
      return null;
    case "thinking":
      if (typeof b.thinking !== "string" || typeof b.signature !== "string") return invalid(`${at}: thinking blocks need "thinking" and "signature"`);
      if (b.signature !== thinkingSignature(b.thinking)) {
        return invalid(`${at}: thinking block was modified or has an invalid signature; send thinking blocks back exactly as received`);
      }
      return null;
    case "image":
      return checkImage(b, at);
    case "tool_use":
      if (!hasTools) return invalid("Requests which include `tool_use` or `tool_result` blocks must define tools.");
      if (typeof b.id !== "string" || !TOOL_ID.test(b.id)) return invalid(`${at}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (typeof b.name !== "string" || b.name === "") return invalid(`${at}.name: Field required`);
      if (!isObj(b.input)) return invalid(`${at}.input: Input should be a valid dictionary`);
      if (seenIds.has(b.id)) return invalid(`${at}: \`tool_use\` ids must be unique; ${b.id} appears more than once`);
      seenIds.add(b.id);
      return null;
    case "tool_result":
      if (!hasTools) return invalid("Requests which include `tool_use` or `tool_result` blocks must define tools.");
      if (typeof b.tool_use_id !== "string") return invalid(`${at}.tool_use_id: Field required`);
      if (b.is_error !== undefined && typeof b.is_error !== "boolean") return invalid(`${at}.is_error: Input should be a valid boolean`);
      if (b.content === undefined || typeof b.content === "string") return null;
      if (!Array.isArray(b.content)) return invalid(`${at}.content: Input should be a valid string or list of blocks`);
      for (const [k, c] of b.content.entries()) {
        if (!isObj(c) || !["text", "image", "document", "search_result"].includes(c.type as string)) {
          return invalid(`${at}.content.${k}: tool_result content blocks must be text, image, document or search_result`);
        }
        if (c.type === "text" && (typeof c.text !== "string" || c.text.trim() === "")) {
          return invalid(`${at}.content.${k}: text content blocks must contain non-whitespace text`);
        }
        if (c.type === "image") {
          const problem = checkImage(c, `${at}.content.${k}`);
          if (problem) return problem;
        }
      }
      return null;
    default:
      return null;
  }
}

/**
 * Every tool_use in an assistant message must be answered by the very next
 * (user) message, whose leading blocks are tool_result blocks answering
 * exactly those ids, each once. Anything else in that message comes after.
 */
function checkToolPairing(messages: Obj[]): Rejection | null {
  for (const [i, m] of messages.entries()) {
    if (m.role !== "user") continue;
    const prev = messages[i - 1];
    const expected = prev ? blocksOf(prev.content).filter((b) => b.type === "tool_use").map((b) => b.id as string) : [];
    const blocks = blocksOf(m.content);
    const answered = new Set<string>();
    let firstOther = -1;
    for (const [j, b] of blocks.entries()) {
      if (b.type !== "tool_result") {
        if (firstOther < 0) firstOther = j;
        continue;
      }
      const id = b.tool_use_id as string;
      const at = `messages.${i}.content.${j}`;
      if (firstOther >= 0) {
        return invalid(
          `${at}: tool_result blocks must come first in the user message, before any other content; found a \`${blocks[firstOther]!.type}\` block at messages.${i}.content.${firstOther}`,
        );
      }
      if (!expected.includes(id)) {
        return invalid(
          `${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
      if (answered.has(id)) {
        return invalid(`${at}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`);
      }
      answered.add(id);
    }
    const missing = expected.filter((id) => !answered.has(id));
    if (missing.length > 0) return missingResults(i - 1, missing);
  }
  // A conversation that ends on an assistant tool_use has nothing answering it.
  const last = messages.length - 1;
  const lastMsg = messages[last]!;
  if (lastMsg.role === "assistant") {
    const ids = blocksOf(lastMsg.content).filter((b) => b.type === "tool_use").map((b) => b.id as string);
    if (ids.length > 0) return missingResults(last, ids);
  }
  return null;
}

function missingResults(i: number, ids: string[]): Rejection {
  return invalid(
    `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  );
}
