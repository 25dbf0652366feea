// Extended thinking through the real loop, SDK and HTTP against the scripted
// server, which checks that every thinking block it served beside a tool
// call comes back present and unmodified (signature intact).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { Agent } from "../../src/agent/loop.ts";
import { Model } from "../../src/agent/model.ts";
import type { ThinkingLevel } from "../../src/agent/thinking.ts";
import { costUSD } from "../../src/agent/usage.ts";
import { buildApp } from "../../src/app.ts";
import { parseConfig } from "../../src/config.ts";
import { runSlashCommand } from "../../src/slash-commands.ts";
import { TerminalUI } from "../../src/ui/terminal.ts";
import { allTools } from "../../src/tools/all.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { makeContext, tempDir } from "../support/context.ts";
import { reply, text, thinking, toolUse, type FakeAnthropic, type Step } from "../support/fake-anthropic.ts";
import { endToEnd } from "../support/cli.ts";
import { RecordingEvents } from "../support/loop-events.ts";

const e2e = endToEnd();

let root: string;

beforeEach(() => {
  root = tempDir("bunker-thinking-");
  writeFileSync(join(root, "a.txt"), "alpha\n");
  writeFileSync(join(root, "big.txt"), "line of text\n".repeat(400));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});


function setup(steps: Step[], model: string, level?: ThinkingLevel) {
  const fake = e2e.serve(steps);
  const config = parseConfig(["-C", root], { ANTHROPIC_API_KEY: "test" }, true).config!;
  const m = new Model({ apiKey: "test", baseURL: fake.url, model, retryBaseMs: 1, ...(level ? { thinking: level } : {}) });
  const agent = new Agent({ model: m, registry: new ToolRegistry(allTools(config)), system: "You are a test.", maxTurns: 10 });
  const ctx = makeContext(root, { grants: config.grants, interactive: false });
  const events = new RecordingEvents();
  return { agent, model: m, events, turn: (p: string) => agent.runTurn(p, ctx, events) };
}

const accepted = (f: FakeAnthropic) => f.requests.map((r) => `${r.status} ${r.error ?? ""}`.trim());
const blocks = (m: MessageParam | undefined): ContentBlockParam[] => (typeof m?.content === "string" ? [] : (m?.content ?? []));

describe("thinking across tool use", () => {
  test("the next request carries the thinking blocks unchanged, ahead of the tool call, and the server accepts it", async () => {
    const s = setup(
      [
        reply([thinking("I should read a.txt first.\nThen answer."), toolUse("read_file", { path: "a.txt" }, "toolu_r1")]),
        reply([thinking("It says alpha."), text("It says alpha.")]),
      ],
      "claude-sonnet-5-5",
    );
    const out = await s.turn("what is in a.txt?");
    expect(out).toMatchObject({ end: "done", text: "It says alpha." });
    expect(accepted(e2e.fake)).toEqual(["200", "200"]);
    const first = e2e.fake.requests[0]!.body as unknown as Record<string, unknown>;
    expect(first.thinking).toEqual({ type: "adaptive" });
    expect(first.output_config).toEqual({ effort: "high" });
    const sentBack = blocks(e2e.fake.requests[1]!.body.messages[1]);
    expect(sentBack[0]).toEqual(e2e.fake.requests[0]!.reply!.content[0] as ContentBlockParam);
    expect(sentBack[1]).toMatchObject({ type: "tool_use", id: "toolu_r1" });
    expect(s.events.thoughts).toEqual(["I should read a.txt first.\nThen answer.", "It says alpha."]);
  });

  test("a budget model gets budget_tokens below max_tokens; --thinking off sends disabled", async () => {
    const s = setup([reply("ok")], "claude-haiku-4-5", "low");
    await s.turn("hi");
    expect(e2e.fake.requests[0]!.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 4000 }, max_tokens: 20000 });
    await e2e.fake.stop();
    const off = setup([reply("ok")], "claude-sonnet-5-5", "off");
    await off.turn("hi");
    expect(e2e.fake.requests[0]!.body).toMatchObject({ thinking: { type: "disabled" } });
    expect((e2e.fake.requests[0]!.body as unknown as Record<string, unknown>).output_config).toBeUndefined();
  });

  test("compaction, automatic or /compact, never drops or edits a thinking block, and the conversation stays acceptable", async () => {
    const steps: Step[] = [];
    for (let i = 1; i <= 4; i++) steps.push(reply([thinking(`step ${i}: read the big file again`), toolUse("read_file", { path: "big.txt" }, `toolu_b${i}`)]));
    steps.push(reply([thinking("done reading"), text("read it four times")]));
    steps.push(reply([thinking("second turn"), toolUse("read_file", { path: "a.txt" }, "toolu_c1")]), reply("alpha"));
    const s = setup(steps, "claude-sonnet-5-5");
    await s.turn("read big.txt four times");
    const before = s.agent.history.messages.flatMap((m) => blocks(m).filter((b) => b.type === "thinking"));
    expect(before).toHaveLength(5);
    const r = s.agent.compact(0);
    expect(r.elided).toBeGreaterThan(0);
    const after = s.agent.history.messages.flatMap((m) => blocks(m).filter((b) => b.type === "thinking"));
    expect(after).toEqual(before);
    await s.turn("and a.txt?");
    expect(accepted(e2e.fake).every((x) => x === "200")).toBe(true);
    expect(e2e.fake.requests).toHaveLength(7);
  });

  test("thinking is paid for: its tokens are output tokens in the usage and the cost", async () => {
    const long = "consider ".repeat(400);
    const s = setup([reply([thinking(long), text("yes")])], "claude-sonnet-5-5");
    await s.turn("think");
    expect(s.model.usage.output_tokens).toBeGreaterThanOrEqual(Math.ceil(long.length / 4));
    expect(costUSD(s.model.name, s.model.usage)).toBeGreaterThanOrEqual((Math.ceil(long.length / 4) * 15) / 1e6);
  });
});

describe("on screen", () => {
  test("each thinking block is one folded line among the tool lines; /thinking shows the last one whole, escaped", async () => {
    const plan = "First read a.txt.\nThen compare it with\nthe \x1b[31mnotes\x1b[0m and answer briefly.";
    const fake = e2e.serve([reply([thinking("Look at the file."), toolUse("read_file", { path: "a.txt" })]), reply([thinking(plan), text("alpha")])]);
    const { config } = parseConfig(["-C", root], { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: fake.url, XDG_STATE_HOME: tempDir("bunker-state-") }, true);
    const err: string[] = [];
    const sink = (into: string[]) => ({ write: (c: string) => (into.push(String(c)), true), columns: 60 }) as unknown as NodeJS.WriteStream;
    const ui = new TerminalUI({ streamText: true, verbose: false, spinner: false, out: sink([]), err: sink(err) });
    const app = await buildApp(config!, ui);
    await app.agent.runTurn("what is in a.txt?", app.context(new AbortController().signal), ui);
    const plain = (t: string) => t.replace(/\x1b\[[0-9;]*m/g, "");
    expect(plain(err.join("")).split("\n")).toEqual([
      "  ✻ Thinking: Look at the file.",
      "  read_file a.txt",
      "  ✻ Thinking: First read a.txt. Then compare it … (3 lines)",
      "",
    ]);
    const written: string[] = [];
    await runSlashCommand("/thinking", { app, carry: { keptTodos: false }, write: (t) => void written.push(t) });
    expect(plain(written.join(""))).toBe("First read a.txt.\nThen compare it with\nthe \\x1b[31mnotes\\x1b[0m and answer briefly.\n");
  });
});

describe("the scripted server holds thinking blocks to the API's rule", () => {
  async function firstRound(f: FakeAnthropic) {
    const client = new Anthropic({ apiKey: "k", baseURL: f.url, maxRetries: 0 });
    const tools = [{ name: "read_file", input_schema: { type: "object" as const } }];
    const msg = await client.messages.create({ model: "m", max_tokens: 100, tools, messages: [{ role: "user", content: "go" }] });
    const send = (assistant: ContentBlockParam[]) =>
      client.messages
        .create({ model: "m", max_tokens: 100, tools, messages: [{ role: "user", content: "go" }, { role: "assistant", content: assistant }, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "ok" }] }] })
        .then(() => "accepted", (e: Error) => e.message);
    return { msg, send };
  }

  test("a dropped, edited or re-signed thinking block is refused with 400", async () => {
    const fake = e2e.serve([reply([thinking("plan"), toolUse("read_file", {}, "toolu_x")])]);
    const { msg, send } = await firstRound(fake);
    const [th, use] = msg.content as [{ type: "thinking"; thinking: string; signature: string }, ContentBlockParam];
    expect(await send([use])).toContain("Expected `thinking` or `redacted_thinking`, but found `tool_use`");
    expect(await send([{ ...th, thinking: "plan, edited" }, use])).toContain("modified");
    expect(await send([{ ...th, signature: th.signature + "x" }, use])).toContain("invalid signature");
    fake.push(reply("fine"));
    expect(await send([th, use])).toBe("accepted");
  });
});
