// The scripted Messages API server, driven by the real SDK over real HTTP.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import {
  apiError,
  drop,
  overloaded,
  parseJsonScript,
  reply,
  startFakeAnthropic,
  text,
  thinking,
  toolUse,
  type ErrorBody,
  type FakeAnthropic,
  type Step,
} from "../support/fake-anthropic.ts";

const TOOLS: Tool[] = [
  { name: "read_file", description: "Read a file", input_schema: { type: "object", properties: { path: { type: "string" } } } },
  { name: "grep", description: "Search", input_schema: { type: "object", properties: { pattern: { type: "string" } } } },
];
const HI: MessageParam[] = [{ role: "user", content: "hi" }];

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

function start(steps: Step[]) {
  fake = startFakeAnthropic(steps);
  return { fake, client: new Anthropic({ apiKey: "test", baseURL: fake.url, maxRetries: 0 }) };
}

/** The text of a message's text blocks. */
function textOf(msg: { content: { type: string; text?: string }[] }): string {
  return msg.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

function ask(client: Anthropic, messages: MessageParam[] = HI, tools: Tool[] | null = TOOLS) {
  return client.messages.stream({ model: "claude-test", max_tokens: 1024, messages, ...(tools ? { tools } : {}) });
}

describe("streaming replies", () => {
  test("text arrives in several chunks and assembles into the final message", async () => {
    const { client } = start([reply("The answer is forty-two, as everyone knows.")]);
    const stream = ask(client);
    const chunks: string[] = [];
    stream.on("text", (t) => chunks.push(t));
    const msg = await stream.finalMessage();
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join("")).toBe("The answer is forty-two, as everyone knows.");
    expect(textOf(msg)).toBe("The answer is forty-two, as everyone knows.");
    expect(msg.stop_reason).toBe("end_turn");
    expect(msg.model).toBe("claude-test");
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    expect(msg.usage.output_tokens).toBeGreaterThan(1);
  });

  test("tool_use input is assembled from several partial JSON chunks, two tools in one response", async () => {
    const input = { path: "src/some/deeply/nested/file.ts", offset: 10, limit: 200 };
    const { client } = start([reply([text("Reading."), toolUse("read_file", input), toolUse("grep", { pattern: "TODO" }, "toolu_mine")])]);
    const stream = ask(client);
    const partials: string[] = [];
    stream.on("inputJson", (p) => partials.push(p));
    const msg = await stream.finalMessage();
    expect(partials.filter((p) => p !== "").length).toBeGreaterThan(2);
    expect(msg.stop_reason).toBe("tool_use");
    const [, first, second] = msg.content;
    expect(first).toMatchObject({ type: "tool_use", name: "read_file", input, id: expect.stringMatching(/^toolu_[A-Za-z0-9_]+$/) });
    expect(second).toMatchObject({ type: "tool_use", name: "grep", input: { pattern: "TODO" }, id: "toolu_mine" });
  });

  test("a tool call cut off by max_tokens streams its truncated JSON", async () => {
    const { client } = start([reply([text("Let me"), { type: "tool_use", name: "read_file", input: {}, rawJson: '{"path": "src/a.ts", "li' }], "max_tokens")]);
    const msg = await ask(client).finalMessage();
    expect(msg.stop_reason).toBe("max_tokens");
    // The SDK parses partial JSON leniently: the loop must not trust such input.
    expect(msg.content[1]).toMatchObject({ type: "tool_use", input: { path: "src/a.ts" } });
  });

  test("thinking blocks stream with a signature and must come back unmodified", async () => {
    const { fake, client } = start([reply([thinking("I should look at the file first."), text("Done.")]), reply("ok"), reply("never")]);
    const msg = await ask(client).finalMessage();
    const block = msg.content[0]!;
    expect(block).toMatchObject({ type: "thinking", thinking: "I should look at the file first." });
    const history: MessageParam[] = [...HI, { role: "assistant", content: msg.content }, { role: "user", content: "go on" }];
    expect(textOf(await ask(client, history).finalMessage())).toBe("ok");
    const tampered = structuredClone(history);
    (tampered[1]!.content as { thinking?: string }[])[0]!.thinking = "edited";
    await expect(ask(client, tampered).finalMessage()).rejects.toThrow(/thinking block was modified/);
    expect(fake.remaining()).toBe(1);
  });

  test("non-streaming requests get a plain JSON Message", async () => {
    const { client } = start([reply([toolUse("grep", { pattern: "x" }, "toolu_1")])]);
    const msg = await client.messages.create({ model: "claude-test", max_tokens: 100, messages: HI, tools: TOOLS });
    expect(msg).toMatchObject({ type: "message", role: "assistant", stop_reason: "tool_use" });
    expect(msg.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "grep", input: { pattern: "x" }, caller: { type: "direct" } }]);
  });

  test("a function step answers from what was sent", async () => {
    const { client } = start([(req) => reply(`you said: ${String(req.body.messages.at(-1)?.content)}`)]);
    const msg = await ask(client, [{ role: "user", content: "ping" }]).finalMessage();
    expect(textOf(msg)).toBe("you said: ping");
  });
});

describe("errors, faults and timing", () => {
  test("529 then success: the SDK retries (fast, thanks to retry-after-ms)", async () => {
    fake = startFakeAnthropic([overloaded({ retryAfterMs: 1 }), reply("recovered")]);
    const client = new Anthropic({ apiKey: "test", baseURL: fake.url, maxRetries: 2 });
    const t0 = performance.now();
    const msg = await ask(client).finalMessage();
    expect(performance.now() - t0).toBeLessThan(300);
    expect(textOf(msg)).toBe("recovered");
    expect(fake.requests.map((r) => r.status)).toEqual([529, 200]);
    expect(fake.requests[1]!.headers["x-stainless-retry-count"]).toBe("1");
  });

  test("an error status reaches the caller as the SDK's APIError with the API's error type", async () => {
    const { client } = start([apiError(429, { retryAfter: 7 }), overloaded()]);
    const err = await ask(client).finalMessage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect((err as InstanceType<typeof Anthropic.APIError>).headers?.get("retry-after")).toBe("7");
    const err2 = await ask(client).finalMessage().catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(Anthropic.APIError);
    expect((err2 as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect(String(err2)).toContain("overloaded_error");
  });

  test("a connection drop mid-stream fails the stream after the first events arrived", async () => {
    // Events: 1 message_start, 2 ping, 3 content_block_start, 4 first text delta.
    // The reset waits until the client has the first delta (a fixed pause did not promise it left the server under load).
    const chunks: string[] = [];
    const { fake, client } = start([{ ...drop(4, reply("This reply will be cut short by the server.")), dropWhen: () => chunks.length > 0 }]);
    const stream = ask(client);
    stream.on("text", (t) => chunks.push(t));
    await expect(stream.finalMessage()).rejects.toThrow(/ECONNRESET|closed|terminated/i);
    expect(chunks.length).toBe(1);
    expect("This reply will be cut short by the server.".startsWith(chunks[0]!)).toBe(true);
    expect(fake.requests[0]!.error).toBe("connection reset after 4 events");
  });

  test("a drop before the first byte is a connection error the SDK retries", async () => {
    fake = startFakeAnthropic([drop(0), reply("second try")]);
    const client = new Anthropic({ apiKey: "test", baseURL: fake.url, maxRetries: 1 });
    const msg = await ask(client).finalMessage();
    expect(textOf(msg)).toBe("second try");
    expect(fake.requests.map((r) => [r.status, r.error])).toEqual([[0, "connection reset before the response"], [200, undefined]]);
  });

  test("an SSE error event mid-stream surfaces as an overloaded APIError", async () => {
    const { client } = start([reply("partial answer here", "end_turn", { streamError: { afterEvents: 4 } })]);
    await expect(ask(client).finalMessage()).rejects.toThrow(/overloaded_error/);
  });

  test("delayMs holds the first byte; eventDelayMs spaces the events", async () => {
    const { client } = start([reply("x", "end_turn", { delayMs: 80 }), reply("abcdef", "end_turn", { eventDelayMs: 15, chunkSize: 2 })]);
    let t0 = performance.now();
    await ask(client).finalMessage();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(75);
    // 2 + 3 chunks + 5 more events = 10 events, 15 ms apart.
    t0 = performance.now();
    await ask(client).finalMessage();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(120);
  });

  test("when the script runs out the server answers 500 with a clear message and the SDK does not retry", async () => {
    fake = startFakeAnthropic([reply("only one")]);
    const client = new Anthropic({ apiKey: "test", baseURL: fake.url, maxRetries: 3 });
    await ask(client).finalMessage();
    await expect(ask(client).finalMessage()).rejects.toThrow(/script has no step left for request #1 \(1 step\(s\) were scripted\)/);
    expect(fake.requests.length).toBe(2);
  });

  test("a repeat step is served forever", async () => {
    const { fake, client } = start([{ ...reply("again"), repeat: true }]);
    for (let i = 0; i < 3; i++) expect(textOf(await ask(client).finalMessage())).toBe("again");
    expect(fake.remaining()).toBe(1);
  });

  test("the apiKey option answers a wrong key with 401", async () => {
    fake = startFakeAnthropic([reply("x")], { apiKey: "right" });
    const client = new Anthropic({ apiKey: "wrong", baseURL: fake.url, maxRetries: 0 });
    await expect(ask(client).finalMessage()).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });
});

describe("request validation", () => {
  // An assistant turn that called two tools.
  const called: MessageParam = {
    role: "assistant",
    content: [
      { type: "text", text: "Looking." },
      { type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "a" } },
      { type: "tool_use", id: "toolu_b", name: "grep", input: { pattern: "b" } },
    ],
  };
  const result = (id: string) => ({ type: "tool_result" as const, tool_use_id: id, content: "out" });
  const userWith = (...content: Exclude<MessageParam["content"], string>): MessageParam => ({ role: "user", content });

  test("a correct tool round trip with a reminder after the results is accepted", async () => {
    const { fake, client } = start([reply("fine")]);
    const msg = await ask(client, [...HI, called, userWith(result("toolu_b"), result("toolu_a"), { type: "text", text: "reminder" })]).finalMessage();
    expect(textOf(msg)).toBe("fine");
    expect(fake.requests[0]!.status).toBe(200);
  });

  const cases: [string, MessageParam[], Tool[] | null, RegExp][] = [
    ["empty messages", [], TOOLS, /at least one message is required/],
    ["first message from the assistant", [{ role: "assistant", content: "hi" }], TOOLS, /first message must use the "user" role/],
    ["two user turns in a row", [...HI, { role: "user", content: "again" }], TOOLS, /roles must alternate.*messages\.0 and messages\.1/],
    ["a tool_use never answered", [...HI, called, { role: "user", content: "what now?" }], TOOLS, /messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a, toolu_b/],
    ["one of two tool_use ids answered", [...HI, called, userWith(result("toolu_a"))], TOOLS, /without `tool_result` blocks immediately after: toolu_b\./],
    ["text before the tool_result blocks", [...HI, called, userWith({ type: "text", text: "note" }, result("toolu_a"), result("toolu_b"))], TOOLS, /messages\.2\.content\.1: tool_result blocks must come first.*`text` block at messages\.2\.content\.0/],
    ["the same id answered twice", [...HI, called, userWith(result("toolu_a"), result("toolu_a"), result("toolu_b"))], TOOLS, /multiple `tool_result` blocks with id: toolu_a/],
    ["a result for an id that was never called", [...HI, called, userWith(result("toolu_a"), result("toolu_b"), result("toolu_zzz"))], TOOLS, /unexpected `tool_use_id` found in `tool_result` blocks: toolu_zzz/],
    ["the conversation ends on a tool_use", [...HI, called], TOOLS, /messages\.1: `tool_use` ids were found without `tool_result`/],
    ["tool blocks without tools defined", [...HI, called, userWith(result("toolu_a"), result("toolu_b"))], null, /must define tools/],
    ["an empty text block", [{ role: "user", content: [{ type: "text", text: "" }] }], TOOLS, /non-whitespace text/],
  ];
  for (const [name, messages, tools, expected] of cases) {
    test(`400 invalid_request_error: ${name}`, async () => {
      const { fake, client } = start([reply("should not be served")]);
      const err = await ask(client, messages, tools).finalMessage().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      expect((err as InstanceType<typeof Anthropic.APIError>).type).toBe("invalid_request_error");
      expect((err as InstanceType<typeof Anthropic.APIError>).apiMessage).toMatch(expected);
      expect(fake.requests[0]!.status).toBe(400);
      expect(fake.requests[0]!.error).toMatch(expected);
      // A rejected request does not use up the scripted reply.
      expect(fake.remaining()).toBe(1);
    });
  }

  async function post(headers: Record<string, string>, body: string) {
    const res = await fetch(`${fake!.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
    return { status: res.status, body: (await res.json()) as ErrorBody };
  }
  const okBody = JSON.stringify({ model: "m", max_tokens: 10, messages: HI });

  test("a missing x-api-key is a 401 authentication_error", async () => {
    start([reply("x")]);
    const res = await post({ "anthropic-version": "2023-06-01" }, okBody);
    expect(res).toEqual({ status: 401, body: { type: "error", error: { type: "authentication_error", message: "x-api-key header is required" }, request_id: null } });
  });

  test("a missing anthropic-version is a 400", async () => {
    start([reply("x")]);
    const res = await post({ "x-api-key": "k" }, okBody);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ type: "invalid_request_error", message: "anthropic-version: header is required" });
  });

  test("a body that is not JSON, or lacks model / max_tokens, is a 400 saying so", async () => {
    start([reply("x")]);
    const h = { "x-api-key": "k", "anthropic-version": "2023-06-01" };
    expect((await post(h, "{nope")).body.error.message).toContain("not valid JSON");
    expect((await post(h, JSON.stringify({ max_tokens: 1, messages: HI }))).body.error.message).toBe("model: Field required");
    expect((await post(h, JSON.stringify({ model: "m", messages: HI }))).body.error.message).toBe("max_tokens: Field required");
    expect(fake!.remaining()).toBe(1);
  });

  test("tool definitions are checked: names unique, input_schema an object schema", async () => {
    const { client } = start([reply("x")]);
    const dup = [TOOLS[0]!, TOOLS[0]!];
    await expect(ask(client, HI, dup).finalMessage()).rejects.toThrow(/Tool names must be unique/);
    const bad = [{ name: "x", input_schema: { type: "string" } } as unknown as Tool];
    await expect(ask(client, HI, bad).finalMessage()).rejects.toThrow(/input_schema\.type/);
  });
});

describe("recording", () => {
  test("every request is recorded with its parsed body, headers and raw byte length", async () => {
    const { fake, client } = start([reply("one"), reply("two")]);
    await client.messages.stream({ model: "claude-test", max_tokens: 50, system: "Be brief.", messages: HI, tools: TOOLS }).finalMessage();
    await ask(client, [...HI, { role: "assistant", content: "one" }, { role: "user", content: "more" }]).finalMessage();
    expect(fake.requests.length).toBe(2);
    const [first, second] = fake.requests;
    expect(first!.path).toBe("/v1/messages");
    expect(first!.body).toMatchObject({ model: "claude-test", max_tokens: 50, system: "Be brief.", stream: true, messages: HI });
    expect(first!.body.tools?.map((t) => ("name" in t ? t.name : ""))).toEqual(["read_file", "grep"]);
    // SDK 1.x sends the API key as a bearer token.
    expect(first!.headers["authorization"]).toBe("Bearer test");
    expect(first!.headers["anthropic-version"]).toBeTruthy();
    expect(first!.bytes).toBe(Buffer.byteLength(JSON.stringify(first!.body)));
    expect(second!.body.messages.length).toBe(3);
    expect(second!.reply?.content).toEqual([{ type: "text", text: "two", citations: null }]);
  });
});

describe("standalone mode", () => {
  const dir = mkdtempSync(join(tmpdir(), "fake-anthropic-"));
  const server = join(import.meta.dir, "..", "support", "fake-anthropic.ts");

  async function spawnServer(script: unknown) {
    const path = join(dir, `script-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify(script));
    const proc = Bun.spawn(["bun", server, "--script", path], { stdout: "pipe", stderr: "pipe" });
    const reader = proc.stdout.getReader();
    const { value } = await reader.read();
    reader.releaseLock();
    return { proc, line: new TextDecoder().decode(value) };
  }

  test("serves a JSON script from another process; a repeat step serves many one-shot turns", async () => {
    const { proc, line } = await spawnServer({ steps: [reply([toolUse("grep", { pattern: "x" })]), { ...reply("done"), repeat: true }] });
    try {
      const m = line.match(/^listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
      expect(m).not.toBeNull();
      const url = m![1]!;
      const client = new Anthropic({ apiKey: "test", baseURL: url, maxRetries: 0 });
      expect((await ask(client).finalMessage()).stop_reason).toBe("tool_use");
      for (let i = 0; i < 3; i++) expect(textOf(await ask(client).finalMessage())).toBe("done");
      const recorded = (await (await fetch(`${url}/_fake/requests`)).json()) as { bytes: number; status: number }[];
      expect(recorded.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(recorded[0]!.bytes).toBeGreaterThan(100);
    } finally {
      proc.kill();
      await proc.exited;
    }
  });

  test("--help prints the usage and the script's format, exit 0; an unknown option is one line and the usage, exit 2, no stack trace (N11-20)", async () => {
    const help = Bun.spawn(["bun", server, "--help"], { stdout: "pipe", stderr: "pipe" });
    expect(await help.exited).toBe(0);
    const text = await new Response(help.stdout).text();
    expect(text).toStartWith("usage: bun tests/support/fake-anthropic.ts --script script.json");
    expect(text).toContain("--loop");
    expect(text).toContain('"stop_reason"');
    expect(await new Response(help.stderr).text()).toBe("");
    const bad = Bun.spawn(["bun", server, "--bogus"], { stdout: "pipe", stderr: "pipe" });
    expect(await bad.exited).toBe(2);
    expect(await new Response(bad.stderr).text()).toBe("fake-anthropic: Unknown option '--bogus'\nusage: bun tests/support/fake-anthropic.ts --script script.json [--port N] [--loop] [--api-key KEY] [--verbose]\n");
  });

  test("a bad script file exits 2 naming the step and the problem", async () => {
    const path = join(dir, "bad.json");
    writeFileSync(path, JSON.stringify([reply("ok"), { content: [{ type: "text", text: "x" }], stop_reason: "done" }]));
    const proc = Bun.spawn(["bun", server, "--script", path], { stdout: "pipe", stderr: "pipe" });
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toContain("steps[1].stop_reason: must be one of end_turn");
  });
});

describe("parseJsonScript", () => {
  test("accepts an array or {steps, loop}; rejects malformed steps with their position", () => {
    expect(parseJsonScript([reply("a")]).loop).toBe(false);
    expect(parseJsonScript({ steps: [{ status: 529 }, { dropAfterEvents: 0 }], loop: true })).toMatchObject({ loop: true, steps: [{ status: 529 }, { dropAfterEvents: 0 }] });
    expect(() => parseJsonScript({})).toThrow(/array of steps/);
    expect(() => parseJsonScript([{ content: [{ type: "tool_use", name: "x" }], stop_reason: "tool_use" }])).toThrow("steps[0].content[0].input: must be an object");
    expect(() => parseJsonScript([{ status: 200 }])).toThrow("steps[0].status: must be an HTTP error status");
    expect(() => parseJsonScript([{ hello: 1 }])).toThrow(/steps\[0\]: needs "content"/);
  });
});
