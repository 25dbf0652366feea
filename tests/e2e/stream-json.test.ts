// `bunker -p --output-format stream-json` read the way a script reads
// `claude -p --output-format stream-json`: line by line, following every
// tool call from its tool_use to its tool_result by id.
import { describe, expect, test } from "bun:test";
import { BUNKER, endToEnd, runHeadless } from "../support/cli.ts";
import { apiError, overloaded, reply, text, thinking, toolUse } from "../support/fake-anthropic.ts";

const e2e = endToEnd("bunker-stream-json-");

type Block = { type: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown; is_error?: boolean; text?: string };
type Event = { type: string; subtype?: string; session_id?: string | null; message?: { role: string; content: Block[]; usage?: unknown }; [k: string]: unknown };

/** What a script does: one JSON object a line, tool calls matched to their results by id. */
function follow(stdout: string) {
  const events = stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Event);
  const calls = new Map<string, { name: string; input: unknown; result?: { content: unknown; is_error: boolean } }>();
  const orphans: string[] = [];
  for (const e of events) {
    for (const b of e.message?.content ?? []) {
      if (e.type === "assistant" && b.type === "tool_use") calls.set(b.id!, { name: b.name!, input: b.input });
      if (e.type === "user" && b.type === "tool_result") {
        const call = calls.get(b.tool_use_id!);
        if (!call || call.result) orphans.push(b.tool_use_id!);
        else call.result = { content: b.content, is_error: b.is_error! };
      }
    }
  }
  return { events, calls, orphans };
}

describe("stream-json", () => {
  test("a retry is an event as it happens, not held until the first reply (R11-12)", async () => {
    // The retry waits 1 s, then the reply comes 3 s later: a script sees the retry long before the reply.
    const fake = e2e.serve([overloaded({ retryAfterMs: 1_000 }), { ...reply([toolUse("write_file", { path: "a.txt", content: "new line\n" })]), delayMs: 3_000 }, reply("Could not write it.")]);
    const { root, env } = e2e.workspace();
    const proc = Bun.spawn([...BUNKER, "-p", "write a.txt", "--output-format", "stream-json", "--no-prompt"], { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const stderr = new Response(proc.stderr).text();
    const reader = proc.stdout.getReader();
    let out = "";
    const start = Date.now();
    while (!out.includes('"subtype":"retry"')) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    const retrySeenAfter = Date.now() - start;
    expect(out).toContain('"subtype":"retry"');
    expect(out).not.toContain('"type":"assistant"');
    expect(retrySeenAfter).toBeLessThan(3_000);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    expect(await proc.exited).toBe(0);
    const { events } = follow(out);
    expect(events.map((e) => e.subtype ?? e.type)).toEqual(["init", "retry", "assistant", "user", "assistant", "success"]);
    await stderr;
    await fake.stop();
  }, 30_000);

  test("stderr shows nothing of a refused edit: the refusal is in the events (N11-09)", async () => {
    const { run: r } = await e2e.headless([reply([toolUse("write_file", { path: "a.txt", content: "new line\n" })]), reply("Could not write it.")], ["-p", "write a.txt", "--output-format", "stream-json", "--no-prompt"]);
    expect(r.code).toBe(0);
    const { events } = follow(r.stdout);
    expect(JSON.stringify(events[2])).toContain("needs approval");
    expect(r.stderr).toBe("");
  });

  test("init, every reply with its tool calls, every round of results, then the result with usage and cost", async () => {
    const fake = e2e.serve([
      reply([thinking("Two files to look at."), text("Reading."), toolUse("read_file", { path: "notes.txt" }), toolUse("read_file", { path: "missing.txt" })]),
      reply([toolUse("grep", { pattern: "beta" })]),
      reply("notes.txt says alpha; missing.txt does not exist; beta is in notes.txt."),
    ]);
    const { root, env } = e2e.workspace({ "notes.txt": "alpha\nbeta\n" });
    const r = await runHeadless(root, env, ["-p", "look around", "--output-format", "stream-json"]);
    expect(r.code).toBe(0);
    const { events, calls, orphans } = follow(r.stdout);

    const init = events[0]!;
    expect(init).toMatchObject({ type: "system", subtype: "init", cwd: root, model: "claude-sonnet-5-5", permissionMode: "no-prompt", thinking: "high" });
    expect(init.tools).toEqual(expect.arrayContaining(["read_file", "grep", "run_bash"]));
    expect(init.session_id).toMatch(/^[0-9a-z]{10}$/);

    expect(events.map((e) => e.type)).toEqual(["system", "assistant", "user", "assistant", "user", "assistant", "result"]);
    expect(events.every((e) => e.session_id === init.session_id)).toBe(true);
    expect(orphans).toEqual([]);
    expect([...calls.values()].map((c) => [c.name, c.input, c.result?.is_error])).toEqual([
      ["read_file", { path: "notes.txt" }, false],
      ["read_file", { path: "missing.txt" }, true],
      ["grep", { pattern: "beta" }, false],
    ]);
    const [notes, missing, grep] = [...calls.values()];
    expect(String(notes!.result!.content)).toContain("alpha");
    expect(String(missing!.result!.content)).toContain("missing.txt");
    expect(String(grep!.result!.content)).toContain("notes.txt");
    // The reply as the API sent it: thinking and text beside the calls.
    expect(events[1]!.message!.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    expect(events[1]!.message!.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });

    const result = events.at(-1)!;
    const served = fake.requests.reduce((n, q) => n + (q.reply?.usage.output_tokens ?? 0), 0);
    expect((result.usage as { output_tokens: number }).output_tokens).toBe(served);
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "notes.txt says alpha; missing.txt does not exist; beta is in notes.txt.",
      num_turns: 3,
      session_id: init.session_id,
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
    expect(result.total_cost_usd as number).toBeGreaterThan(0);
    expect(result.duration_ms as number).toBeGreaterThanOrEqual(result.duration_api_ms as number);
  });

  test("an @file that could not be attached is a notice event, as it was before the terminal drew it as a ✗ line (N12-05)", async () => {
    e2e.serve([reply("ok")]);
    const { root, env } = e2e.workspace();
    const r = await runHeadless(root, env, ["-p", "fix @missing.js", "--output-format", "stream-json"]);
    const { events } = follow(r.stdout);
    expect(events.find((e) => e.type === "system" && e.subtype === "notice")?.message as unknown as string).toBe("missing.js was not attached: missing.js does not exist");
    expect(r.stderr).not.toContain("✗");
  });

  test("-A shows as permissionMode allow-all; a turn cut by --max-turns is error_max_turns with the open call answered", async () => {
    e2e.serve([reply([toolUse("read_file", { path: "notes.txt" })]), reply("never")]);
    const { root, env } = e2e.workspace({ "notes.txt": "alpha\n" });
    const r = await runHeadless(root, env, ["-p", "go", "-A", "--max-turns", "1", "--output-format", "stream-json"]);
    expect(r.code).toBe(1);
    const { events, calls, orphans } = follow(r.stdout);
    expect(events[0]).toMatchObject({ type: "system", subtype: "init", permissionMode: "allow-all" });
    expect(orphans).toEqual([]);
    expect([...calls.values()].every((c) => c.result !== undefined)).toBe(true);
    expect(events.find((e) => e.type === "system" && e.subtype === "notice")?.message as unknown as string).toContain("--max-turns 1");
    expect(events.at(-1)).toMatchObject({ type: "result", subtype: "error_max_turns", is_error: true, num_turns: 1 });
  });

  test("the session init names is one -r finds; a run that gets no answer names none (nothing is saved), its retries after init", async () => {
    // A new user's F24: init carried an id the failed run never saved, and -r said there was no such session.
    const fake = e2e.serve([overloaded({ retryAfterMs: 1 }), reply("First answer."), reply("Second answer.")]);
    const { root, env } = e2e.workspace();
    let r = await runHeadless(root, env, ["-p", "first question", "--output-format", "stream-json"]);
    expect(r.code).toBe(0);
    let events = follow(r.stdout).events;
    // Init first; a retry goes out as it happens (R11-12), before anything is saved: init then has no id, and the
    // retry none either; the reply and the result carry the id the run was saved as.
    expect(events.map((e) => e.subtype ?? e.type)).toEqual(["init", "retry", "assistant", "success"]);
    expect(events.slice(0, 2).map((e) => e.session_id)).toEqual([null, null]);
    const id = events[2]!.session_id!;
    expect(id).toMatch(/^[0-9a-z]{10}$/);
    expect(events.slice(2).every((e) => e.session_id === id)).toBe(true);
    r = await runHeadless(root, env, ["-r", id, "-p", "second question", "--output-format", "json"]);
    expect(r.code).toBe(0);
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain("First answer.");

    // No answer at all (the key refused): init has no id, nor does the result, and no session was kept for -c.
    const refusing = e2e.serve([apiError(401), apiError(401)]);
    const other = e2e.workspace();
    r = await runHeadless(other.root, { ...other.env, ANTHROPIC_BASE_URL: refusing.url }, ["-p", "hi", "--output-format", "stream-json"]);
    expect(r.code).toBe(1);
    events = follow(r.stdout).events;
    expect(events.map((e) => e.subtype ?? e.type)).toEqual(["init", "error_during_execution"]);
    expect(events[0]!.session_id).toBeNull();
    expect(events[1]).toHaveProperty("session_id", null);
    r = await runHeadless(other.root, { ...other.env, ANTHROPIC_BASE_URL: refusing.url }, ["-c", "-p", "again"]);
    expect(r.stderr).toContain("No earlier session in this workspace");
  });
});
