// The todo reminder end to end: the real loop, the real tools and the real
// SDK against the scripted server, checking the requests it received.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { Agent } from "../../src/agent/loop.ts";
import { Model, ModelError } from "../../src/agent/model.ts";
import type { TodoItem } from "../../src/agent/session-state.ts";
import { renderTodos, TODO_REMINDER, TodoRoundHook } from "../../src/agent/todo.ts";
import { readFileTool } from "../../src/tools/read-file.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { todoTool } from "../../src/tools/todo.ts";
import { TerminalUI } from "../../src/ui/terminal.ts";
import { makeContext, tempDir } from "../support/context.ts";
import { reply, toolUse, type FakeAnthropic, type Step } from "../support/fake-anthropic.ts";
import { endToEnd } from "../support/cli.ts";

const e2e = endToEnd();

/** Captures what the terminal UI writes to stderr. */
function captured(): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const stream = { write: (s: string) => (chunks.push(s), true) } as unknown as NodeJS.WriteStream;
  return { stream, text: () => chunks.join("") };
}

function setup(steps: Step[], opts: { verbose?: boolean; todoAfter?: number } = {}) {
  const root = tempDir();
  writeFileSync(join(root, "a.txt"), "alpha\n");
  writeFileSync(join(root, "b.txt"), "beta\n");
  const fake = e2e.serve(steps);
  const ctx = makeContext(root);
  const err = captured();
  const ui = new TerminalUI({ streamText: false, verbose: opts.verbose ?? false, spinner: false, out: captured().stream, err: err.stream });
  const agent = new Agent({
    model: new Model({ apiKey: "test", baseURL: fake.url, model: "claude-test", retryBaseMs: 1 }),
    registry: new ToolRegistry([readFileTool, todoTool]),
    system: "You are a test.",
    maxTurns: 30,
    hooks: [new TodoRoundHook(ctx.session, opts.todoAfter ?? 3)],
  });
  return { agent, ctx, ui, stderr: err.text, fake };
}

/** One tool round reading two files, so "after every tool_result" means something. */
const readRound = () => reply([toolUse("read_file", { path: "a.txt" }), toolUse("read_file", { path: "b.txt" })]);
const todoRound = (items: TodoItem[]) => reply([toolUse("todo", { items })]);

function lastUserBlocks(messages: MessageParam[]): ContentBlockParam[] {
  const last = messages.at(-1)!;
  expect(last.role).toBe("user");
  return typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
}

/** The reminder text in request `round` (1-based), or null; asserts it sits after every tool_result. */
function reminderIn(f: FakeAnthropic, round: number): string | null {
  const req = f.requests[round - 1]!;
  expect(req.status).toBe(200);
  const blocks = lastUserBlocks(req.body.messages);
  const reminders = blocks.filter((b) => b.type === "text" && b.text.startsWith(TODO_REMINDER));
  if (reminders.length === 0) return null;
  expect(reminders).toHaveLength(1);
  const at = blocks.indexOf(reminders[0]!);
  expect(at).toBe(blocks.length - 1);
  expect(blocks.slice(0, at).every((b) => b.type === "tool_result")).toBe(true);
  expect(at).toBeGreaterThan(0);
  return (reminders[0] as { text: string }).text;
}

function remindedRounds(f: FakeAnthropic): number[] {
  return f.requests.map((_, i) => i + 1).filter((r) => reminderIn(f, r) !== null);
}

const plan: TodoItem[] = [
  { id: "1", text: "Read a.txt", status: "in_progress" },
  { id: "2", text: "Read b.txt", status: "pending" },
  { id: "3", text: "Report", status: "pending" },
];

describe("todo reminder against the scripted server", () => {
  test("without todo: none in rounds 1-3, in round 4 after both tool_results, none again until round 7", async () => {
    const steps = [...Array.from({ length: 8 }, readRound), reply("done")];
    const s = setup(steps);
    const out = await s.agent.runTurn("read both files, many times", s.ctx, s.ui);
    expect(out).toMatchObject({ end: "done", text: "done", modelCalls: 9 });
    expect(s.fake.requests).toHaveLength(9);
    expect(remindedRounds(s.fake)).toEqual([4, 7]);
    // Round 4's user message: the two results of round 3, then the reminder (no list yet).
    const blocks = lastUserBlocks(s.fake.requests[3]!.body.messages);
    expect(blocks.map((b) => b.type)).toEqual(["tool_result", "tool_result", "text"]);
    expect(reminderIn(s.fake, 4)).toBe(TODO_REMINDER);
    // Normal output does not show it.
    expect(s.stderr()).not.toContain("Update your todos");
  });

  test("a todo call resets the count; the reminder carries the current list; --verbose shows it", async () => {
    const steps = [
      todoRound(plan), // round 1
      readRound(), // 2
      readRound(), // 3
      readRound(), // 4 → reminder in request 5
      todoRound([{ ...plan[0]!, status: "completed" }, { ...plan[1]!, status: "in_progress" }, plan[2]!]), // 5
      readRound(), // 6
      readRound(), // 7
      reply("done"), // 8
    ];
    const s = setup(steps, { verbose: true });
    const out = await s.agent.runTurn("plan, then read", s.ctx, s.ui);
    expect(out.end).toBe("done");
    expect(remindedRounds(s.fake)).toEqual([5]);
    expect(reminderIn(s.fake, 5)).toBe(`${TODO_REMINDER}\nCurrent todos:\n${renderTodos(plan)}`);
    // The todo call's own result is the rendered list.
    const todoResult = lastUserBlocks(s.fake.requests[1]!.body.messages)[0]!;
    expect(todoResult).toMatchObject({ type: "tool_result", content: renderTodos(plan) });
    expect(s.ctx.session.todos.map((t) => t.status)).toEqual(["completed", "in_progress", "pending"]);
    expect(s.stderr()).toContain(`[injected] ${TODO_REMINDER}`);
  });

  test("a list that is all completed is never reminded", async () => {
    const done = plan.map((t) => ({ ...t, status: "completed" as const }));
    const steps = [todoRound(done), ...Array.from({ length: 7 }, readRound), reply("done")];
    const s = setup(steps, { verbose: true });
    await s.agent.runTurn("go", s.ctx, s.ui);
    expect(s.fake.requests).toHaveLength(9);
    expect(remindedRounds(s.fake)).toEqual([]);
    expect(s.stderr()).not.toContain("[injected]");
  });

  test("the count starts again each user turn; reminders.todoAfter 0 turns it off", async () => {
    const s = setup([readRound(), readRound(), reply("one"), readRound(), readRound(), reply("two")]);
    await s.agent.runTurn("first", s.ctx, s.ui);
    await s.agent.runTurn("second", s.ctx, s.ui);
    expect(s.fake.requests).toHaveLength(6);
    expect(remindedRounds(s.fake)).toEqual([]);

    await e2e.fake.stop();
    const off = setup([...Array.from({ length: 7 }, readRound), reply("done")], { todoAfter: 0 });
    await off.agent.runTurn("go", off.ctx, off.ui);
    expect(off.fake.requests).toHaveLength(8);
    expect(remindedRounds(off.fake)).toEqual([]);
  });

  test("the server enforces the ordering: a reminder before the tool_result is a 400", async () => {
    const fake = e2e.serve([reply("never sent")]);
    const model = new Model({ apiKey: "test", baseURL: fake.url, model: "claude-test", retryBaseMs: 1 });
    const messages: MessageParam[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.txt" } }] },
      {
        role: "user",
        content: [
          { type: "text", text: TODO_REMINDER },
          { type: "tool_result", tool_use_id: "toolu_1", content: "alpha" },
        ],
      },
    ];
    const tools = new ToolRegistry([readFileTool, todoTool]).apiTools();
    const events = { onText: () => {}, onRetry: () => {} };
    const sent = model.send("test", messages, tools, events, new AbortController().signal);
    expect(sent).rejects.toThrow(ModelError);
    await expect(sent).rejects.toThrow("tool_result blocks must come first");
    expect(fake.requests[0]!.status).toBe(400);
  });
});
