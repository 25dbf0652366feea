// Turns a scripted reply into what the real API sends: a Message (JSON) or
// the SSE event sequence, in the wire format of the API docs.
import { createHash } from "node:crypto";
import type { ContentBlock, Message, RawContentBlockDelta, RawMessageStreamEvent, Usage } from "@anthropic-ai/sdk/resources/messages";
import type { BlockSpec, ReplyStep } from "./steps.ts";

/** One SSE event's data object (`type` is also the SSE event name). */
export type SseEvent = RawMessageStreamEvent | { type: "ping" } | { type: "error"; error: { type: string; message: string } };

/** The response as the real API sends it (every field the SDK's types require). */
export type WireMessage = Message;

/** Thinking blocks must come back unmodified; the signature lets the validator check that. */
export function thinkingSignature(thinking: string): string {
  return "sig_" + createHash("sha256").update(thinking).digest("base64url");
}

/** Splits `s` into delta-sized pieces: by default ~3 chunks of at most 16 characters. */
export function chunk(s: string, size?: number): string[] {
  const n = Math.max(1, Math.floor(size ?? Math.min(16, Math.ceil(s.length / 3))));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
}

interface BuildContext {
  /** Which request this answers (for ids). */
  requestIndex: number;
  model: Message["model"];
  /** Raw request bytes, for a plausible default input_tokens. */
  requestBytes: number;
}

/** The JSON text streamed for a tool_use block. */
function toolJson(b: Extract<BlockSpec, { type: "tool_use" }>): string {
  return b.rawJson ?? JSON.stringify(b.input);
}

/** Best-effort parse of what the client would assemble (rawJson may be cut short). */
function parsedInput(b: Extract<BlockSpec, { type: "tool_use" }>): unknown {
  if (b.rawJson === undefined) return b.input;
  try {
    return JSON.parse(b.rawJson);
  } catch {
    return b.input;
  }
}

export function buildMessage(step: ReplyStep, ctx: BuildContext): WireMessage {
  let outChars = 0;
  const content: ContentBlock[] = step.content.map((b, i): ContentBlock => {
    switch (b.type) {
      case "text":
        outChars += b.text.length;
        return { type: "text", text: b.text, citations: null };
      case "thinking":
        outChars += b.thinking.length;
        return { type: "thinking", thinking: b.thinking, signature: thinkingSignature(b.thinking) };
      case "tool_use":
        outChars += toolJson(b).length;
        return {
          type: "tool_use",
          id: b.id ?? `toolu_fake_${ctx.requestIndex}_${i}`,
          name: b.name,
          input: parsedInput(b),
          caller: { type: "direct" },
        };
    }
  });
  const u = step.usage ?? {};
  const usage: Usage = {
    input_tokens: u.input_tokens ?? Math.max(1, Math.ceil(ctx.requestBytes / 4)),
    output_tokens: u.output_tokens ?? Math.ceil(outChars / 4) + 1,
    cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: "standard",
    speed: null,
  };
  return {
    id: `msg_fake_${ctx.requestIndex}`,
    type: "message",
    role: "assistant",
    model: ctx.model,
    content,
    container: null,
    diagnostics: null,
    stop_details: null,
    stop_reason: step.stop_reason,
    stop_sequence: null,
    usage,
  };
}

/** The SSE sequence for a message: message_start, ping, the blocks, message_delta, message_stop. */
export function messageEvents(msg: WireMessage, step: ReplyStep): SseEvent[] {
  const u = msg.usage;
  const events: SseEvent[] = [
    { type: "message_start", message: { ...msg, content: [], stop_reason: null, stop_sequence: null, usage: { ...u, output_tokens: 1 } } },
    { type: "ping" },
  ];
  msg.content.forEach((block, index) => {
    const spec = step.content[index]!;
    const delta = (d: RawContentBlockDelta) => events.push({ type: "content_block_delta", index, delta: d });
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "", citations: null } });
      for (const t of chunk(block.text, step.chunkSize)) delta({ type: "text_delta", text: t });
    } else if (block.type === "thinking") {
      events.push({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
      for (const t of chunk(block.thinking, step.chunkSize)) delta({ type: "thinking_delta", thinking: t });
      delta({ type: "signature_delta", signature: block.signature });
    } else if (block.type === "tool_use") {
      events.push({ type: "content_block_start", index, content_block: { ...block, input: {} } });
      // The real API opens every tool input with an empty partial_json.
      delta({ type: "input_json_delta", partial_json: "" });
      const json = spec.type === "tool_use" ? toolJson(spec) : JSON.stringify(block.input);
      for (const t of chunk(json, step.chunkSize)) delta({ type: "input_json_delta", partial_json: t });
    }
    events.push({ type: "content_block_stop", index });
  });
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: msg.stop_reason, stop_sequence: null, stop_details: null, container: null },
      usage: {
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        output_tokens_details: null,
        server_tool_use: null,
      },
    },
    { type: "message_stop" },
  );
  return events;
}

const encoder = new TextEncoder();

export function encodeSse(ev: SseEvent): Uint8Array {
  return encoder.encode(`event: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`);
}
