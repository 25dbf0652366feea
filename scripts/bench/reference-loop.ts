// The reference for `bun run bench`: the least a headless one-shot turn can
// do. A prompt goes to the Messages API (streamed), a read_file call is
// answered with the file's text, the answer is printed. No SDK, no
// permissions, no sandbox, no session store: plain fetch and an SSE parser.
// Compiled with the same flags as bunker (scripts/bench/agent.ts builds it
// into .bench/, never committed) and run against the same scripted server.
//
//   reference-loop "read a.txt"     (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY)
import { readFileSync } from "node:fs";

type Block = { type: string; text?: string; id?: string; name?: string; input?: Record<string, unknown>; json?: string };
type Message = { role: "user" | "assistant"; content: unknown };

const base = process.env.ANTHROPIC_BASE_URL ?? "https://api.anthropic.com";
const key = process.env.ANTHROPIC_API_KEY ?? "";
const tools = [
  {
    name: "read_file",
    description: "Read a text file.",
    input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];

/** One streamed request: the reply's content blocks and stop_reason. */
async function call(messages: Message[]): Promise<{ content: Block[]; stop: string }> {
  const res = await fetch(`${base}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: process.env.BUNKER_MODEL ?? "claude-sonnet-5-5", max_tokens: 16000, stream: true, system: "You are a coding agent.", tools, messages }),
  });
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const content: Block[] = [];
  let stop = "";
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event.split("\n").find((l) => l.startsWith("data: "));
      if (!data) continue;
      const e = JSON.parse(data.slice(6));
      if (e.type === "content_block_start") content[e.index] = { ...e.content_block, json: "" };
      else if (e.type === "content_block_delta") {
        const b = content[e.index]!;
        if (e.delta.type === "text_delta") b.text = (b.text ?? "") + e.delta.text;
        else if (e.delta.type === "input_json_delta") b.json += e.delta.partial_json;
      } else if (e.type === "content_block_stop") {
        const b = content[e.index]!;
        if (b.type === "tool_use") b.input = b.json ? JSON.parse(b.json) : {};
        delete b.json;
      } else if (e.type === "message_delta") stop = e.delta.stop_reason;
      else if (e.type === "error") throw new Error(e.error.message);
    }
  }
  return { content, stop };
}

function readTool(input: Record<string, unknown>): { content: string; is_error?: boolean } {
  try {
    return { content: readFileSync(String(input.path), "utf8") };
  } catch (err) {
    return { content: (err as Error).message, is_error: true };
  }
}

async function main(): Promise<number> {
  const messages: Message[] = [{ role: "user", content: process.argv.slice(2).join(" ") }];
  for (let turn = 0; turn < 10; turn++) {
    const reply = await call(messages);
    messages.push({ role: "assistant", content: reply.content });
    const uses = reply.content.filter((b) => b.type === "tool_use");
    if (reply.stop !== "tool_use" || uses.length === 0) {
      console.log(reply.content.filter((b) => b.type === "text").map((b) => b.text).join(""));
      return 0;
    }
    messages.push({
      role: "user",
      content: uses.map((u) => ({ type: "tool_result", tool_use_id: u.id, ...readTool(u.input ?? {}) })),
    });
  }
  return 1;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`reference-loop: ${err.message}`);
    process.exit(1);
  },
);
