// A long session stays inside the context window: old tool output is elided
// (structure and ids intact, so the API still accepts the conversation) when
// a request nears the window, when the API says the prompt is too long, when
// a reply fills the window, and on /compact.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ContentBlockParam, MessageParam, ToolResultBlockParam, ToolUseBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { ELIDE_MIN_CHARS, elideOldToolOutput } from "../../../src/agent/compact.ts";
import { Agent } from "../../../src/agent/loop.ts";
import { Model } from "../../../src/agent/model.ts";
import { buildApp } from "../../../src/app.ts";
import { parseConfig } from "../../../src/config.ts";
import { runSlashCommand } from "../../../src/slash-commands.ts";
import { allTools } from "../../../src/tools/all.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { TerminalUI } from "../../../src/ui/terminal.ts";
import { makeContext, tempDir } from "../../support/context.ts";
import { apiError, reply, text, toolUse, type FakeAnthropic, type Step } from "../../support/fake-anthropic.ts";
import { endToEnd } from "../../support/cli.ts";
import { RecordingEvents } from "../../support/loop-events.ts";

const big = (tag: string) => `${tag}:` + "x".repeat(2000);

function blocks(m: MessageParam): ContentBlockParam[] {
  return typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
}
const results = (m: MessageParam) => blocks(m).filter((b): b is ToolResultBlockParam => b.type === "tool_result");
const uses = (m: MessageParam) => blocks(m).filter((b): b is ToolUseBlockParam => b.type === "tool_use");
const resultText = (r: ToolResultBlockParam) => (typeof r.content === "string" ? r.content : JSON.stringify(r.content));

/** user prompt, then `n` rounds of (assistant tool_use with a big input → user tool_result with big output). */
function conversation(n: number): MessageParam[] {
  const messages: MessageParam[] = [{ role: "user", content: "start" }];
  for (let i = 1; i <= n; i++) {
    messages.push({ role: "assistant", content: [{ type: "text", text: `round ${i}` }, { type: "tool_use", id: `t${i}`, name: "write_file", input: { path: `f${i}`, content: big(`in${i}`) } }] });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${i}`, content: big(`out${i}`) }, { type: "text", text: `note ${i}` }] });
  }
  return messages;
}

describe("elideOldToolOutput", () => {
  test("keeps the last rounds whole and shortens the rest, ids and texts intact", () => {
    const messages = conversation(4);
    const r = elideOldToolOutput(messages, 2);
    // Rounds 1 and 2: output and the big input elided; 3 and 4 untouched.
    expect(r.elided).toBe(4);
    expect(r.savedChars).toBeGreaterThan(4 * 1800);
    expect(resultText(results(messages[2]!)[0]!)).toContain("Output elided");
    expect(resultText(results(messages[2]!)[0]!)).toContain("was 2005 characters");
    expect(uses(messages[1]!)[0]!.input).toEqual({ path: "f1", content: "[elided: 2004 characters]" });
    expect(resultText(results(messages[6]!)[0]!)).toBe(big("out3"));
    expect((uses(messages[5]!)[0]!.input as { content: string }).content).toBe(big("in3"));
    expect(resultText(results(messages[8]!)[0]!)).toBe(big("out4"));
    // Everything else is as it was.
    expect(messages.map((m) => blocks(m).map((b) => b.type))).toEqual(conversation(4).map((m) => blocks(m).map((b) => b.type)));
    expect(messages.flatMap((m) => [...uses(m).map((u) => u.id), ...results(m).map((x) => x.tool_use_id)]))
      .toEqual(["t1", "t1", "t2", "t2", "t3", "t3", "t4", "t4"]);
    expect(blocks(messages[2]!)[1]).toEqual({ type: "text", text: "note 1" });
  });

  test("thinking blocks are never edited or dropped, and the newest reply that thought is kept whole", () => {
    const messages = conversation(3);
    const thought = (i: number) => ({ type: "thinking" as const, thinking: `plan ${i} `.repeat(200), signature: `sig${i}` });
    for (const i of [1, 3, 5]) messages[i]!.content = [thought(i), ...blocks(messages[i]!)];
    const r = elideOldToolOutput(messages, 0);
    expect([1, 3, 5].map((i) => blocks(messages[i]!)[0])).toEqual([thought(1), thought(3), thought(5)]);
    // Older replies still shrink; the newest one that thought keeps its input.
    expect(uses(messages[1]!)[0]!.input).toEqual({ path: "f1", content: "[elided: 2004 characters]" });
    expect((uses(messages[5]!)[0]!.input as { content: string }).content).toBe(big("in3"));
    expect(resultText(results(messages[6]!)[0]!)).toContain("Output elided");
    expect(r.elided).toBe(5);
  });

  test("a second run elides nothing more; short output is never touched", () => {
    const messages = conversation(3);
    elideOldToolOutput(messages, 1);
    const once = JSON.stringify(messages);
    expect(elideOldToolOutput(messages, 1)).toEqual({ elided: 0, savedChars: 0 });
    expect(JSON.stringify(messages)).toBe(once);
    const short: MessageParam[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "a", name: "glob", input: { pattern: "*.ts" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "y".repeat(ELIDE_MIN_CHARS) }] },
    ];
    expect(elideOldToolOutput(short, 0)).toEqual({ elided: 0, savedChars: 0 });
  });

  test("with fewer rounds than asked to keep, nothing changes", () => {
    const messages = conversation(2);
    expect(elideOldToolOutput(messages, 2).elided).toBe(0);
    expect(messages).toEqual(conversation(2));
  });
});

// ---- through the real loop, SDK and scripted server ------------------------

const e2e = endToEnd();
let root: string;
beforeEach(() => {
  root = tempDir("bunker-compact-");
  for (const n of [1, 2, 3, 4]) writeFileSync(join(root, `f${n}.txt`), `file ${n}\n` + "line of text\n".repeat(200));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function agentFor(steps: Step[]): { agent: Agent; run: (p: string) => ReturnType<Agent["runTurn"]>; events: RecordingEvents } {
  const fake = e2e.serve(steps);
  const { config } = parseConfig(["-C", root], { ANTHROPIC_API_KEY: "test", XDG_STATE_HOME: tempDir("bunker-state-") }, true);
  const agent = new Agent({
    model: new Model({ apiKey: "test", baseURL: fake.url, model: "claude-test", retryBaseMs: 1 }),
    registry: new ToolRegistry(allTools(config!)),
    system: "test",
    maxTurns: 20,
    contextWindow: 10_000,
  });
  const ctx = makeContext(root, { interactive: false });
  const events = new RecordingEvents();
  return { agent, events, run: (p) => agent.runTurn(p, ctx, events) };
}

const read = (n: number) => reply([toolUse("read_file", { path: `f${n}.txt` }, `r${n}`)]);
const accepted = (f: FakeAnthropic) => f.requests.map((r) => r.status);
const sentResult = (f: FakeAnthropic, request: number, id: string) =>
  f.requests[request]!.body.messages.flatMap(results).find((r) => r.tool_use_id === id)!;

describe("in the loop", () => {
  test("a request past 70% of the window elides all but the last two rounds, says so, and the API accepts it", async () => {
    const s = agentFor([read(1), read(2), read(3), { ...read(4), usage: { input_tokens: 7_500 } }, reply("done")]);
    const out = await s.run("read them all");
    expect(out).toMatchObject({ end: "done", text: "done" });
    expect(accepted(e2e.fake)).toEqual([200, 200, 200, 200, 200]);
    // Request 4 (index 3) still carried every file; request 5 had rounds 1–2 elided, 3–4 whole.
    expect(resultText(sentResult(e2e.fake, 3, "r1"))).toContain("file 1");
    expect(resultText(sentResult(e2e.fake, 4, "r1"))).toContain("Output elided");
    expect(resultText(sentResult(e2e.fake, 4, "r2"))).toContain("Output elided");
    expect(resultText(sentResult(e2e.fake, 4, "r3"))).toContain("file 3");
    expect(resultText(sentResult(e2e.fake, 4, "r4"))).toContain("file 4");
    expect(s.events.notices).toEqual([expect.stringMatching(/^Context 75% full: elided the output of 2 earlier tool calls \(\d+ KB\)/)]);
  });

  test("a 400 'prompt is too long' elides and retries the same request once it fits", async () => {
    const s = agentFor([read(1), read(2), apiError(400, { message: "prompt is too long: 212345 tokens > 200000 maximum" }), reply("fits now")]);
    const out = await s.run("go");
    expect(out).toMatchObject({ end: "done", text: "fits now" });
    expect(accepted(e2e.fake)).toEqual([200, 200, 400, 200]);
    expect(resultText(sentResult(e2e.fake, 2, "r1"))).toContain("file 1");
    expect(resultText(sentResult(e2e.fake, 3, "r1"))).toContain("Output elided");
    expect(resultText(sentResult(e2e.fake, 3, "r2"))).toContain("file 2");
    expect(s.events.notices[0]).toMatch(/^The request was too long for the model: elided the output of 1 earlier tool call/);
  });

  test("when nothing is left to elide, a too-long prompt ends the turn with a way out", async () => {
    const s = agentFor([apiError(400, { message: "prompt is too long: 250000 tokens > 200000 maximum" })]);
    const out = await s.run("x".repeat(100));
    expect(out.end).toBe("context_full");
    expect(out.error).toContain("prompt is too long");
    expect(out.error).toContain("/compact");
    expect(out.error).toContain("/clear");
    expect(s.agent.history.messages.at(-1)?.role).toBe("user");
  });

  test("a reply cut by model_context_window_exceeded makes room and continues", async () => {
    const s = agentFor([read(1), read(2), reply([text("Half of the ans")], "model_context_window_exceeded"), reply("the whole answer")]);
    const out = await s.run("go");
    expect(out).toMatchObject({ end: "done", text: "the whole answer" });
    expect(accepted(e2e.fake)).toEqual([200, 200, 200, 200]);
    expect(resultText(sentResult(e2e.fake, 3, "r1"))).toContain("Output elided");
    const last = e2e.fake.requests[3]!.body.messages.at(-1)!;
    expect(blocks(last).map((b) => (b.type === "text" ? b.text : b.type)).join(" ")).toContain("context window filled");
    expect(s.events.notices[0]).toMatch(/^The context window filled during the reply: elided/);
  });
});

test("/compact in the REPL shortens old tool output and says how much", async () => {
  const { config } = parseConfig(["-C", root], { ANTHROPIC_API_KEY: "test", XDG_STATE_HOME: tempDir("bunker-state-") }, true);
  const app = await buildApp(config!, new TerminalUI({ streamText: false, verbose: false, spinner: false }));
  app.agent.history.messages.push(...conversation(3));
  const written: string[] = [];
  const ctx = { app, carry: { keptTodos: false }, write: (t: string) => void written.push(t) };
  await runSlashCommand("/compact", ctx);
  await runSlashCommand("/compact", ctx);
  const shown = written.join("").replace(/\x1b\[[0-9;]*m/g, "");
  expect(shown).toBe("Shortened 4 earlier tool calls (8 KB); the model can run them again.\nNothing to compact: no earlier tool output is long enough to shorten.\n");
  expect(resultText(results(app.agent.history.messages[6]!)[0]!)).toBe(big("out3"));
});
