// The real agent loop (Agent.runTurn) over real HTTP/SSE and the SDK's SSE reader,
// against the scripted Messages API server. The fake rejects what the real
// API rejects (role order, tool_result pairing), so a request it accepts is
// a request the API would accept.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { Agent, type TurnOutcome } from "../../src/agent/loop.ts";
import { Model } from "../../src/agent/model.ts";
import { parseConfig } from "../../src/config.ts";
import { allTools } from "../../src/tools/all.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { makeContext, tempDir, type TestContext } from "../support/context.ts";
import {
  apiError,
  drop,
  overloaded,
  raw,
  reply,
  text,
  toolUse,
  type FakeAnthropic,
  type Step,
} from "../support/fake-anthropic.ts";
import { endToEnd } from "../support/cli.ts";
import { RecordingEvents } from "../support/loop-events.ts";

/** What a turn whose first request got no answer adds: the message is out of the conversation (new user 12's N12-08). */
const NOT_KEPT = ". Your message got no answer and is not in the conversation: ↑ brings it back to send again.";

const e2e = endToEnd();


let root: string;
let outside: string;

beforeEach(() => {
  root = tempDir("bunker-loop-ws-");
  outside = tempDir("bunker-loop-outside-");
  writeFileSync(join(root, "alpha.txt"), "alpha line one\nalpha line two\n");
  writeFileSync(join(root, "beta.txt"), "the beta file\n");
  writeFileSync(join(root, "notes.md"), "some notes\n");
  writeFileSync(join(outside, "secret.txt"), "TOP SECRET\n");
  symlinkSync(outside, join(root, "linked"));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

interface Setup {
  agent: Agent;
  ctx: TestContext;
  events: RecordingEvents;
  model: Model;
  fake: FakeAnthropic;
  turn(prompt: string): Promise<TurnOutcome>;
}

function setup(steps: Step[], opts: { maxTurns?: number; maxContinuations?: number; flags?: string[]; idleTimeoutMs?: number } = {}): Setup {
  const fake = e2e.serve(steps);
  const parsed = parseConfig(["-C", root, ...(opts.flags ?? [])], { ANTHROPIC_API_KEY: "test" }, true);
  const config = parsed.config!;
  const model = new Model({ apiKey: "test", baseURL: fake.url, model: "claude-test", retryBaseMs: 1, ...(opts.idleTimeoutMs ? { idleTimeoutMs: opts.idleTimeoutMs } : {}) });
  const agent = new Agent({
    model,
    registry: new ToolRegistry(allTools(config)),
    system: "You are a test.",
    maxTurns: opts.maxTurns ?? config.maxTurns,
    ...(opts.maxContinuations !== undefined ? { maxContinuations: opts.maxContinuations } : {}),
  });
  const ctx = makeContext(root, { grants: config.grants, interactive: false });
  const events = new RecordingEvents();
  return { agent, ctx, events, model, fake, turn: (p) => agent.runTurn(p, ctx, events) };
}

function blocks(m: MessageParam | undefined): ContentBlockParam[] {
  if (!m) throw new Error("no such message");
  return typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
}

function toolResults(m: MessageParam | undefined): ToolResultBlockParam[] {
  return blocks(m).filter((b): b is ToolResultBlockParam => b.type === "tool_result");
}

function resultText(r: ToolResultBlockParam): string {
  return typeof r.content === "string" ? r.content : (r.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
}

/** A turn whose tool round is answered, then a 400 with `message`; the next turn is answered with `recovered`. */
async function failedAfterToolRound(message: string, recovered: string) {
  const s = setup([reply([toolUse("read_file", { path: "alpha.txt" }, "toolu_a")]), apiError(400, { message }), reply(recovered)]);
  const out = await s.turn("first");
  expect(out.end).toBe("error");
  expect(await s.turn("second")).toMatchObject({ end: "done", text: recovered });
  return { s, out };
}

/** Every request the fake got was valid and answered. */
function expectAllAccepted(f: FakeAnthropic): void {
  expect(f.requests.map((r) => `${r.status} ${r.error ?? ""}`.trim())).toEqual(f.requests.map(() => "200"));
}

describe("tool rounds", () => {
  test("two tool_use blocks in one response: both run in order, answered with the same ids, content sent back unchanged", async () => {
    const s = setup([
      reply([text("Reading both."), toolUse("read_file", { path: "alpha.txt" }, "toolu_one"), toolUse("grep", { pattern: "beta" }, "toolu_two")]),
      reply("alpha has two lines; beta is in beta.txt."),
    ]);
    const out = await s.turn("look at the files");
    expect(out).toMatchObject({ end: "done", text: "alpha has two lines; beta is in beta.txt.", modelCalls: 2 });
    expect(s.events.log).toEqual(["start read_file alpha.txt", "end read_file alpha.txt", expect.stringMatching(/^start grep/), expect.stringMatching(/^end grep/)]);
    expectAllAccepted(s.fake);

    const second = s.fake.requests[1]!.body.messages;
    expect(second).toHaveLength(3);
    expect(second[0]!.role).toBe("user");
    // The assistant turn goes back exactly as the server sent it.
    expect(second[1]).toEqual({ role: "assistant", content: s.fake.requests[0]!.reply!.content as unknown as ContentBlockParam[] });
    const results = toolResults(second[2]);
    expect(results.map((r) => r.tool_use_id)).toEqual(["toolu_one", "toolu_two"]);
    expect(blocks(second[2])).toHaveLength(2);
    expect(results.every((r) => r.is_error === undefined)).toBe(true);
    expect(resultText(results[0]!)).toContain("alpha line two");
    expect(resultText(results[1]!)).toContain("beta.txt:1:the beta file");
  });

  test("a missing file is an is_error result naming the file and a near name; the loop goes on", async () => {
    const s = setup([reply([toolUse("read_file", { path: "note.md" }, "toolu_missing")]), reply("That file does not exist.")]);
    const out = await s.turn("read note.md");
    expect(out.end).toBe("done");
    expect(out.text).toBe("That file does not exist.");
    const [r] = toolResults(s.fake.requests[1]!.body.messages[2]);
    expect(r!.tool_use_id).toBe("toolu_missing");
    expect(r!.is_error).toBe(true);
    expect(resultText(r!)).toContain("note.md");
    expect(resultText(r!)).toContain("notes.md");
    expectAllAccepted(s.fake);
  });

  test("an unknown tool is an is_error result listing the real tools", async () => {
    const s = setup([reply([toolUse("delete_everything", { path: "/" }, "toolu_x")]), reply("Sorry.")]);
    const out = await s.turn("go");
    expect(out.end).toBe("done");
    const [r] = toolResults(s.fake.requests[1]!.body.messages[2]);
    expect(r!.is_error).toBe(true);
    expect(resultText(r!)).toContain('Unknown tool "delete_everything"');
    expect(resultText(r!)).toContain("read_file");
    expectAllAccepted(s.fake);
  });

  test("malformed input (missing and mistyped fields) is an is_error result saying which field; nothing runs", async () => {
    const s = setup([
      reply([
        toolUse("read_file", {}, "toolu_missing_path"),
        toolUse("read_file", { path: 42 }, "toolu_number_path"),
        toolUse("read_file", { path: "alpha.txt", limit: "ten" }, "toolu_string_limit"),
      ]),
      reply("I will fix my calls."),
    ]);
    const out = await s.turn("go");
    expect(out.end).toBe("done");
    const results = toolResults(s.fake.requests[1]!.body.messages[2]);
    expect(results.map((r) => r.tool_use_id)).toEqual(["toolu_missing_path", "toolu_number_path", "toolu_string_limit"]);
    expect(results.every((r) => r.is_error === true)).toBe(true);
    expect(resultText(results[0]!)).toContain("path");
    expect(resultText(results[1]!)).toContain("path");
    expect(resultText(results[2]!)).toContain("limit");
    // The bad call did not read the file anyway.
    expect(results.map(resultText).join("\n")).not.toContain("alpha line one");
    // The person sees that the call was bad, not "read_file undefined".
    expect(s.events.log.filter((l) => l.startsWith("start"))).toEqual(Array(3).fill("start read_file (invalid input)"));
    expectAllAccepted(s.fake);
  });
});

describe("paths outside the workspace", () => {
  test("an absolute path outside and a symlink pointing outside are refused, naming --allow-read", async () => {
    const s = setup([
      reply([
        toolUse("read_file", { path: join(outside, "secret.txt") }, "toolu_abs"),
        toolUse("read_file", { path: "linked/secret.txt" }, "toolu_link"),
        toolUse("grep", { pattern: "SECRET", path: "linked" }, "toolu_grep"),
      ]),
      reply("I cannot read those."),
    ]);
    await s.turn("read the secret");
    const results = toolResults(s.fake.requests[1]!.body.messages[2]);
    expect(results).toHaveLength(3);
    for (const r of results) {
      expect(r.is_error).toBe(true);
      expect(resultText(r)).toContain("--allow-read");
      expect(resultText(r)).not.toContain("TOP SECRET");
    }
    expectAllAccepted(s.fake);
  });

  test("--allow-read=DIR grants the same read through the symlink", async () => {
    const s = setup([reply([toolUse("read_file", { path: "linked/secret.txt" }, "toolu_link")]), reply("ok")], { flags: [`--allow-read=${outside}`] });
    await s.turn("read the secret");
    const [r] = toolResults(s.fake.requests[1]!.body.messages[2]);
    expect(r!.is_error).toBeUndefined();
    expect(resultText(r!)).toContain("TOP SECRET");
  });
});

describe("stop reasons", () => {
  const cutOff = (id: string) => ({ type: "tool_use" as const, name: "read_file", input: {}, id, rawJson: '{"path": "alph' });

  test("max_tokens: a cut-off tool call is dropped, not run, and the turn continues", async () => {
    const s = setup([reply([text("Let me read alpha."), cutOff("toolu_cut")], "max_tokens"), reply([toolUse("read_file", { path: "alpha.txt" })]), reply("Done.")]);
    const out = await s.turn("read alpha");
    expect(out).toMatchObject({ end: "done", text: "Done.", modelCalls: 3 });
    // Only the complete call of the second reply ran.
    expect(s.events.tools.map((t) => t.summary)).toEqual(["read_file alpha.txt"]);
    expect(s.events.notices.join("\n")).toMatch(/output token limit; continuing \(1\/3\)/);
    const msgs = s.fake.requests[1]!.body.messages;
    expect(msgs[1]).toEqual({ role: "assistant", content: [expect.objectContaining({ type: "text", text: "Let me read alpha." })] });
    expect(JSON.stringify(msgs)).not.toContain("toolu_cut");
    expect(blocks(msgs[2]).map((b) => b.type)).toEqual(["text"]);
    expect(JSON.stringify(msgs[2])).toContain("cut off");
    expectAllAccepted(s.fake);
  });

  test("max_tokens continuation is bounded, even when nothing but a cut-off call comes back", async () => {
    const s = setup([1, 2, 3, 4, 5].map((i) => reply([cutOff(`toolu_cut${i}`)], "max_tokens")));
    const out = await s.turn("read alpha");
    expect(out.end).toBe("done");
    expect(s.fake.requests).toHaveLength(4);
    expect(s.fake.remaining()).toBe(1);
    expect(s.events.tools).toHaveLength(0);
    expect(s.events.notices.at(-1)).toContain("hit the output limit 4 times");
    expectAllAccepted(s.fake);
    // The history is still valid for the next turn.
    s.fake.push(reply("fresh start"));
    const next = await s.turn("try again");
    expect(next.end).toBe("done");
    // the fifth step (a cut call) is consumed by this turn's first call, then "fresh start"
    expectAllAccepted(s.fake);
  });

  test("refusal ends the turn with a notice; the next turn is accepted", async () => {
    const s = setup([reply("I can't help with that.", "refusal"), reply("Sure, happy to help.")]);
    const out = await s.turn("something bad");
    expect(out.end).toBe("refusal");
    expect(s.events.notices.join("\n")).toContain("declined");
    const next = await s.turn("something fine");
    expect(next).toMatchObject({ end: "done", text: "Sure, happy to help." });
    expectAllAccepted(s.fake);
  });

  test("pause_turn resends the conversation and the turn completes; later turns stay valid", async () => {
    const s = setup([reply("Working on it.", "pause_turn"), reply("Finished the work."), reply("Second answer.")]);
    const out = await s.turn("do the long thing");
    // The answer is the whole reply, both sides of the pause.
    expect(out).toMatchObject({ end: "done", text: "Working on it.\n\nFinished the work.", modelCalls: 2 });
    const resent = s.fake.requests[1]!.body.messages;
    expect(resent.at(-1)!.role).toBe("assistant");
    expect(JSON.stringify(resent.at(-1))).toContain("Working on it.");
    const next = await s.turn("and now?");
    expect(next).toMatchObject({ end: "done", text: "Second answer." });
    expectAllAccepted(s.fake);
  });

  test("empty replies with stop_reason tool_use or pause_turn are asked again a bounded number of times, then reported", async () => {
    const s = setup([reply([], "pause_turn"), reply([], "tool_use"), reply("There it is.")]);
    const out = await s.turn("hello");
    expect(out).toMatchObject({ end: "done", text: "There it is.", modelCalls: 3 });
    expect(s.events.notices.filter((n) => n.includes("empty reply"))).toHaveLength(2);
    expectAllAccepted(s.fake);
    await s.fake.stop();

    const t = setup([reply([], "pause_turn"), reply([], "pause_turn"), reply([], "pause_turn"), reply([], "pause_turn"), reply("never")]);
    const stuck = await t.turn("hello");
    expect(stuck.end).toBe("error");
    expect(stuck.error).toContain("empty replies");
    expect(t.fake.requests).toHaveLength(4);
  });

  test("stop_reason tool_use with no tool call ends the turn with the text as the answer; the next turn is accepted", async () => {
    const s = setup([reply("Here is the answer.", "tool_use"), reply("Next.")]);
    expect(await s.turn("q")).toMatchObject({ end: "done", text: "Here is the answer.", modelCalls: 1 });
    expect(await s.turn("q2")).toMatchObject({ end: "done", text: "Next." });
    expectAllAccepted(s.fake);
  });

  test("stop_sequence ends the turn like end_turn, with the text as the answer", async () => {
    const s = setup([reply("Stopped at the marker.", "stop_sequence"), reply("Next.")]);
    const out = await s.turn("go");
    expect(out).toMatchObject({ end: "done", text: "Stopped at the marker.", modelCalls: 1 });
    expect(s.events.notices).toEqual([]);
    expect(await s.turn("again")).toMatchObject({ end: "done", text: "Next." });
  });

  test("an empty end_turn says the model said nothing", async () => {
    const s = setup([reply([], "end_turn")]);
    expect(await s.turn("q")).toMatchObject({ end: "done", text: "" });
    expect(s.events.notices).toContain("The model ended its turn without saying anything.");
  });

  test("the iteration cap ends the turn with a message naming --max-turns; the history stays valid", async () => {
    const again = reply([toolUse("read_file", { path: "alpha.txt" })]);
    const s = setup([again, again, again, reply("continuing")], { maxTurns: 2 });
    const out = await s.turn("loop forever");
    expect(out).toMatchObject({ end: "max_turns", modelCalls: 2 });
    expect(s.fake.requests).toHaveLength(2);
    expect(s.events.notices.at(-1)).toContain("--max-turns 2");
    const next = await s.turn("continue");
    expect(next.end).toBe("done");
    expectAllAccepted(s.fake);
  });
});

describe("API failures", () => {
  test("529 then success: retried with a 'retrying in' message, the turn completes", async () => {
    const s = setup([overloaded(), overloaded(), reply("Made it.")]);
    const out = await s.turn("hello");
    expect(out).toMatchObject({ end: "done", text: "Made it." });
    expect(s.events.retries).toHaveLength(2);
    expect(s.events.retries[0]).toMatch(/overloaded \(529\); retrying in \d/);
    expect(s.fake.requests.map((r) => r.status)).toEqual([529, 529, 200]);
  });

  test("429 waits as long as retry-after says; 503 and a reset before any byte are retried too", async () => {
    const s = setup([apiError(429, { retryAfter: 1 }), apiError(503), drop(0), reply("Through.")]);
    const started = Date.now();
    const out = await s.turn("hello");
    expect(out).toMatchObject({ end: "done", text: "Through." });
    expect(s.events.retries).toHaveLength(3);
    expect(s.events.retries[0]).toMatch(/^rate limited \(429\): .*; retrying in 1s$/);
    expect(s.events.retries[1]).toMatch(/^API error 503: .*; retrying in /);
    expect(s.events.retries[2]).toStartWith(`could not reach the API at ${s.fake.url} (ANTHROPIC_BASE_URL): `);
    expect(s.events.retries[2]).toMatch(/check your network and that URL\); retrying in /);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(s.fake.requests).toHaveLength(4);
  });

  test("a 400 that is not about the conversation is not retried", async () => {
    const s = setup([apiError(400, { message: "max_tokens: too large for this model" }), reply("never")]);
    const out = await s.turn("hello");
    expect(out.end).toBe("error");
    expect(out.error).toContain("API error 400: max_tokens: too large for this model");
    expect(s.fake.requests).toHaveLength(1);
  });

  test("a failure after retries is an error outcome, and a second turn on the same Agent is accepted", async () => {
    const s = setup([overloaded(), overloaded(), overloaded(), overloaded(), overloaded(), reply("Back again.")]);
    const out = await s.turn("first");
    expect(out.end).toBe("error");
    expect(out.error).toContain("overloaded");
    expect(s.fake.requests).toHaveLength(5);
    const next = await s.turn("second");
    expect(next).toMatchObject({ end: "done", text: "Back again." });
    expect(s.fake.requests.at(-1)!.status).toBe(200);
  });

  test("a failure after a tool round leaves a history the server accepts on the next turn", async () => {
    const { s, out } = await failedAfterToolRound("something the client cannot retry", "Recovered.");
    expect(out.error).toContain("something the client cannot retry");
    const last = s.fake.requests.at(-1)!;
    expect(last.status).toBe(200);
    // The answered tool call is still paired with its result.
    expect(toolResults(last.body.messages[2]).map((r) => r.tool_use_id)).toEqual(["toolu_a"]);
  });

  test("a connection reset mid-stream is retried and the turn completes", async () => {
    // The reset comes once the client has shown the cut reply's first words (what makes it say "start over").
    let shown = () => false;
    const cut: Step = { ...(drop(5, reply("This reply is cut off half way through the stream.")) as object), dropWhen: () => shown() } as Step;
    const s = setup([cut, reply("Second try worked.")]);
    shown = () => s.events.text.startsWith("This reply");
    const out = await s.turn("hello");
    expect(s.events.text).toStartWith("This reply");
    expect(out).toMatchObject({ end: "done", text: "Second try worked." });
    expect(s.events.retries).toHaveLength(1);
    // One sentence for a person: what happened and what comes next, without Bun's advice to fetch()'s caller.
    expect(s.events.retries[0]).toMatch(/^the connection was cut mid-reply \(ECONNRESET: [^()]*\) \(the reply was cut off and will start over\); retrying in /);
    expect(s.events.retries[0]).not.toContain("verbose");
    expect(s.fake.requests).toHaveLength(2);
  });

  test("a stream that goes silent after its headers is abandoned after the idle timeout and retried", async () => {
    const stalled: Step = { ...(reply("This reply stalls half way.") as object), stallAfterEvents: 4 } as Step;
    const s = setup([stalled, reply("Second try worked.")], { idleTimeoutMs: 300 });
    const started = Date.now();
    const out = await s.turn("hello");
    expect(out).toMatchObject({ end: "done", text: "Second try worked." });
    expect(s.events.retries).toHaveLength(1);
    expect(s.events.retries[0]).toMatch(/the API sent nothing for 0\.3s \(the reply was cut off and will start over\); retrying in/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test("a server that never answers is retried after the idle timeout, then reported", async () => {
    const never: Step = { ...(reply("late") as object), delayMs: 60_000, repeat: true } as Step;
    const s = setup([never], { idleTimeoutMs: 200 });
    const out = await s.turn("hello");
    expect(out.end).toBe("error");
    expect(out.error).toBe(`the API sent nothing for 0.2s${NOT_KEPT}`);
    expect(s.events.retries).toHaveLength(4);
    expect(s.fake.requests).toHaveLength(5);
  });

  test("a 200 that is not an event stream (a web page) is named as a wrong server, not retried", async () => {
    const s = setup([raw("<html><body>Welcome to nginx!</body></html>", { contentType: "text/html" }), reply("never")]);
    const out = await s.turn("hello");
    expect(out.end).toBe("error");
    expect(out.error).toBe(`the server answered with text/html, not an event stream: check that ANTHROPIC_BASE_URL (${s.fake.url}) is a Messages API${NOT_KEPT}`);
    expect(s.fake.requests).toHaveLength(1);
  });

  test("a garbled stream, bad tool JSON and a stream that ends early are retried with a plain reason, and nothing is dumped on stderr", async () => {
    const logged: unknown[] = [];
    const realError = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const s = setup([
        raw("event: message_start\ndata: {not json\n\n"),
        reply([{ ...toolUse("read_file", {}), rawJson: '{"path": nope}' }], "tool_use"),
        { ...(reply("a reply cut short by a proxy") as object), endAfterEvents: 4 } as Step,
        reply("Finally."),
      ]);
      const out = await s.turn("hello");
      expect(out).toMatchObject({ end: "done", text: "Finally." });
      expect(s.events.retries).toHaveLength(3);
      expect(s.events.retries[0]).toMatch(/^the reply stream could not be read \(JSON Parse error[^)]*\); retrying in/);
      expect(s.events.retries[1]).toMatch(/^the reply stream could not be read \(JSON Parse error[^)]*\)/);
      expect(s.events.retries[2]).toMatch(/^the stream ended before the reply was complete/);
      expect(s.events.tools).toHaveLength(0);
    } finally {
      console.error = realError;
    }
    expect(logged).toEqual([]);
  });

  test("a proxy's HTML error page is shown as its title, on one line", async () => {
    const page = `<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>${"<p>details</p>".repeat(200)}</body></html>`;
    const bad = { ...apiError(502), body: page };
    const s = setup([bad, bad, bad, bad, bad]);
    const out = await s.turn("hello");
    expect(out.error).toBe(`API error 502: 502 Bad Gateway (an HTML page, likely from a proxy)${NOT_KEPT}`);
  });

  test("a message whose first request got no answer is taken out of the conversation and said: sent again, it goes once (new user 12's N12-08)", async () => {
    const s = setup([apiError(500), apiError(500), apiError(500), apiError(500), apiError(500), reply("Here.")]);
    const failed = await s.turn("anyone there?");
    expect(failed.end).toBe("error");
    expect(failed.error).toEndWith(NOT_KEPT);
    expect(s.agent.history.messages).toEqual([]);
    const again = await s.turn("anyone there?");
    expect(again).toMatchObject({ end: "done", text: "Here." });
    const last = s.fake.requests.at(-1)!.body as { messages: MessageParam[] };
    expect(last.messages).toHaveLength(1);
    expect(blocks(last.messages[0]).filter((b) => b.type === "text").map((b) => (b as { text: string }).text)).toEqual(["anyone there?"]);
  });

  test("a turn that failed after a tool ran keeps what happened: the error is not the 'no answer' one", async () => {
    const s = setup([reply([toolUse("read_file", { path: "nope.txt" })]), apiError(500), apiError(500), apiError(500), apiError(500), apiError(500)]);
    const out = await s.turn("read it");
    expect(out.end).toBe("error");
    expect(out.error).not.toContain("not in the conversation");
    expect(s.agent.history.messages.length).toBeGreaterThan(1);
  });

  test("401 is not retried and explains the key", async () => {
    const s = setup([apiError(401), reply("never")]);
    const out = await s.turn("hi");
    expect(out.end).toBe("error");
    expect(out.error).toContain("ANTHROPIC_API_KEY");
    expect(s.fake.requests).toHaveLength(1);
    expect(s.events.retries).toHaveLength(0);
  });
});

describe("replies the API would not take back", () => {
  test("whitespace text, repeated and invalid ids, non-object input: repaired so the next request is accepted", async () => {
    const s = setup([
      reply([
        text("   \n "),
        toolUse("read_file", { path: "alpha.txt" }, "toolu_same"),
        toolUse("read_file", { path: "beta.txt" }, "toolu_same"),
        toolUse("read_file", { path: "notes.md" }, "bad id!"),
        { ...toolUse("read_file", {}, "toolu_list"), rawJson: "[1, 2]" },
      ]),
      reply("Read them."),
      reply("Second turn fine."),
    ]);
    const out = await s.turn("read");
    expect(out).toMatchObject({ end: "done", text: "Read them." });
    expect(await s.turn("again")).toMatchObject({ end: "done", text: "Second turn fine." });
    expectAllAccepted(s.fake);
    const [assistant, results] = [s.fake.requests[1]!.body.messages[1], s.fake.requests[1]!.body.messages[2]];
    const uses = blocks(assistant).filter((b) => b.type === "tool_use") as { id: string; input: unknown }[];
    expect(blocks(assistant).some((b) => b.type === "text")).toBe(false);
    expect(new Set(uses.map((u) => u.id)).size).toBe(4);
    expect(uses[0]!.id).toBe("toolu_same");
    expect(uses[3]!.input).toEqual({});
    const r = toolResults(results);
    expect(r.map((x) => x.tool_use_id)).toEqual(uses.map((u) => u.id));
    expect(resultText(r[0]!)).toContain("alpha line one");
    expect(resultText(r[1]!)).toContain("the beta file");
    expect(resultText(r[2]!)).toContain("some notes");
    expect(r[3]!.is_error).toBe(true);
    expect(resultText(r[3]!)).toContain("input must be a JSON object, not an array");
  });

  test("an input nested thousands of levels deep is refused, not serialised into every later request", async () => {
    const deep = `{"path": ${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
    const s = setup([reply([{ ...toolUse("read_file", {}, "toolu_deep"), rawJson: deep }]), reply("Gave up on that."), reply("Still here.")]);
    const out = await s.turn("go");
    expect(out).toMatchObject({ end: "done", text: "Gave up on that." });
    expect(await s.turn("again")).toMatchObject({ end: "done", text: "Still here." });
    expectAllAccepted(s.fake);
    const [r] = toolResults(s.fake.requests[1]!.body.messages[2]);
    expect(r!.is_error).toBe(true);
    expect(resultText(r!)).toContain("nested more than 64 levels deep");
  });

  test("a 400 about the messages drops the turn so the session goes on, and says so", async () => {
    const { s, out } = await failedAfterToolRound("messages.1.content.0: something this client got wrong", "Fresh start.");
    expect(out.error).toContain("something this client got wrong");
    expect(out.error).toContain("taken out of the conversation");
    expect(out.error).toContain("/clear");
    expect(s.fake.requests.at(-1)!.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "second", cache_control: { type: "ephemeral" } }] }]);
  });
});

/** A turn whose reply stalls mid-stream, interrupted as Ctrl+C does once the reply has begun. */
async function interruptedMidStream(s: Setup, prompt: string) {
  const controller = new AbortController();
  const ctx = makeContext(root, { interactive: false, signal: controller.signal });
  const pending = s.agent.runTurn(prompt, ctx, s.events);
  while (s.fake.requests.length < 1) await Bun.sleep(10);
  await Bun.sleep(100);
  controller.abort();
  return pending;
}

describe("interruption (Ctrl+C)", () => {
  test("during the stream: the turn ends as interrupted, the model is told its reply was discarded, the next turn is accepted", async () => {
    const stalled: Step = { ...(reply("This reply never finishes.") as object), stallAfterEvents: 4 } as Step;
    const s = setup([stalled, reply("Fine, shorter then.")]);
    const out = await interruptedMidStream(s, "tell me a long story");
    expect(out.end).toBe("interrupted");
    const next = await s.turn("something short");
    expect(next).toMatchObject({ end: "done", text: "Fine, shorter then." });
    const texts = blocks(s.fake.requests[1]!.body.messages[0]).map((b) => (b.type === "text" ? b.text : b.type));
    expect(texts).toEqual(["tell me a long story", "[The person interrupted your reply before it was complete; it was discarded.]", "something short"]);
  });

  test("a reply interrupted mid-stream is still counted: its input was billed (/cost and the status line read these totals)", async () => {
    const stalled = { ...(reply("This reply never finishes.") as object), stallAfterEvents: 4, usage: { input_tokens: 1234, cache_read_input_tokens: 500 } } as Step;
    const s = setup([stalled, reply("Short.", undefined, { usage: { input_tokens: 10, output_tokens: 7 } })]);
    expect((await interruptedMidStream(s, "tell me a long story")).end).toBe("interrupted");
    expect(s.model.usage).toMatchObject({ input_tokens: 1234, cache_read_input_tokens: 500 });
    // Its output too, as far as it came (the API never said its count): estimated from what arrived, and said to be.
    const partial = s.model.usage.output_tokens;
    expect(partial).toBeGreaterThan(1);
    expect(partial).toBeLessThanOrEqual(Math.ceil("This reply never finishes.".length / 4));
    expect(s.model.outputEstimated).toBe(true);
    // A whole reply after it adds its own figures once (start and end not counted twice).
    await s.turn("something short");
    expect(s.model.usage).toMatchObject({ input_tokens: 1244, cache_read_input_tokens: 500, output_tokens: partial + 7 });
  });

  test("during a tool: the running command is stopped, every open call is answered 'interrupted', the next turn is accepted", async () => {
    const s = setup(
      [reply([toolUse("run_bash", { command: "sleep 30" }, "toolu_sleep"), toolUse("read_file", { path: "alpha.txt" }, "toolu_read")]), reply("After the interruption.")],
      { flags: ["--allow-run", "--sandbox", "off"] },
    );
    const controller = new AbortController();
    const ctx = makeContext(root, { interactive: false, signal: controller.signal, grants: parseConfig(["-C", root, "--allow-run"], { ANTHROPIC_API_KEY: "k" }, true).config!.grants });
    const started = Date.now();
    const pending = s.agent.runTurn("sleep", ctx, s.events);
    while (!s.events.log.some((l) => l.startsWith("start run_bash"))) await Bun.sleep(10);
    await Bun.sleep(100);
    controller.abort();
    const out = await pending;
    expect(out.end).toBe("interrupted");
    expect(Date.now() - started).toBeLessThan(10_000);
    await s.turn("go on");
    const results = s.fake.requests[1]!.body.messages[2]!.content as ToolResultBlockParam[];
    expect(results.slice(0, 2).map((r) => [r.tool_use_id, r.is_error])).toEqual([["toolu_sleep", true], ["toolu_read", true]]);
    expect(results[1]!.content).toBe("Interrupted by the user.");
    // Then the note (as after a reply cut mid-stream), then what the person said next: tool results first, as the API requires.
    const texts = blocks(s.fake.requests[1]!.body.messages[2]).map((b) => (b.type === "text" ? b.text : b.type));
    expect(texts).toEqual(["tool_result", "tool_result", "[The person interrupted this turn during tool use; the results above say what ran and what did not. Their next message says what to do instead.]", "go on"]);
  });
});

describe("a bug mid-round", () => {
  test("an exception after the model asked for tools leaves every call answered: the next turn is accepted", async () => {
    const fake = e2e.serve([reply([toolUse("read_file", { path: "alpha.txt" }, "toolu_a")]), reply("Recovered.")]);
    const config = parseConfig(["-C", root], { ANTHROPIC_API_KEY: "test" }, true).config!;
    let broken = true;
    const agent = new Agent({
      model: new Model({ apiKey: "test", baseURL: fake.url, model: "claude-test", retryBaseMs: 1 }),
      registry: new ToolRegistry(allTools(config)),
      system: "You are a test.",
      maxTurns: 5,
      hooks: [{ afterRound: () => { if (broken) throw new Error("hook exploded"); return null; } }],
    });
    const ctx = makeContext(root, { interactive: false });
    const events = new RecordingEvents();
    await expect(agent.runTurn("read alpha", ctx, events)).rejects.toThrow("hook exploded");
    broken = false;
    expect(await agent.runTurn("try again", ctx, events)).toMatchObject({ end: "done", text: "Recovered." });
    const last = blocks(fake.requests[1]!.body.messages.at(-1));
    expect(last[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_a", is_error: true, content: "Result lost: bunker failed unexpectedly (hook exploded); the call may or may not have run, so check before repeating it." });
    expectAllAccepted(fake);
  });
});

describe("usage", () => {
  test("token usage is summed over the model calls of a turn", async () => {
    const s = setup([reply([toolUse("read_file", { path: "alpha.txt" })], undefined, { usage: { input_tokens: 100, output_tokens: 10 } }), reply("ok", undefined, { usage: { input_tokens: 200, output_tokens: 20 } })]);
    await s.turn("hi");
    expect(s.model.usage).toMatchObject({ input_tokens: 300, output_tokens: 30 });
  });
});

describe("work beside the request", () => {
  test("besideRequest runs once per model call, while the request is out: before its answer is in the history", async () => {
    const fake = e2e.serve([{ ...reply([toolUse("read_file", { path: "alpha.txt" })]), delayMs: 50 }, { ...reply("Read it."), delayMs: 50 }]);
    const config = parseConfig(["-C", root], { ANTHROPIC_API_KEY: "test" }, true).config!;
    const historyLengths: number[] = [];
    const agent: Agent = new Agent({
      model: new Model({ apiKey: "test", baseURL: fake.url, model: "claude-test", retryBaseMs: 1 }),
      registry: new ToolRegistry(allTools(config)),
      system: "You are a test.",
      maxTurns: 5,
      besideRequest: () => historyLengths.push(agent.history.messages.length),
    });
    const out = await agent.runTurn("read alpha", makeContext(root, { interactive: false }), new RecordingEvents());
    expect(out).toMatchObject({ end: "done", text: "Read it." });
    // The prompt alone; then prompt, tool call and its result: each time without the reply being waited for.
    expect(historyLengths).toEqual([1, 3]);
    expectAllAccepted(fake);
  });
});
