// The REPL's todo commands: /todos shows the plan, /clear forgets it,
// /clear keep-todos keeps it and hands it to the model with the next message.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { TodoItem } from "../../src/agent/session-state.ts";
import { keptTodosNote, renderTodos } from "../../src/agent/todo.ts";
import { buildApp, type App } from "../../src/app.ts";
import { parseConfig } from "../../src/config.ts";
import { slashCommand, withKeptTodos, type ReplState } from "../../src/repl.ts";
import { TerminalUI } from "../../src/ui/terminal.ts";
import { tempDir } from "../support/context.ts";

const plan: TodoItem[] = [
  { id: "1", text: "Read the failing test", status: "completed" },
  { id: "2", text: "Fix the parser", status: "in_progress" },
  { id: "3", text: "Run the tests", status: "pending" },
];
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");

let written: string[] = [];
const realWrite = process.stderr.write.bind(process.stderr);
beforeEach(() => {
  written = [];
  process.stderr.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
});
afterEach(() => {
  process.stderr.write = realWrite;
});
const shown = () => stripAnsi(written.join(""));

async function app(): Promise<App> {
  const { config } = parseConfig(["-C", tempDir()], { ANTHROPIC_API_KEY: "test", XDG_STATE_HOME: tempDir("bunker-state-") }, true);
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false });
  const a = await buildApp(config!, ui);
  a.agent.history.addUser("earlier");
  a.session.todos = plan.map((t) => ({ ...t }));
  return a;
}

describe("REPL todo commands", () => {
  test("/todos shows the list, or says there is none", async () => {
    const a = await app();
    const carry: ReplState = { keptTodos: false };
    slashCommand("/todos", a, carry);
    expect(shown()).toBe(renderTodos(plan) + "\n");
    a.session.todos = [];
    written = [];
    slashCommand("/todos", a, carry);
    expect(shown()).toBe("No todos yet.\n");
  });

  test("/clear forgets the conversation and the list", async () => {
    const a = await app();
    const carry: ReplState = { keptTodos: false };
    const old = a.recorder.id;
    slashCommand("/clear", a, carry);
    expect(a.agent.history.messages).toEqual([]);
    expect(a.session.todos).toEqual([]);
    expect(shown()).toBe(`Conversation cleared (the old one is saved: bunker -r ${old}).\n`);
    expect(a.recorder.id).not.toBe(old);
    expect(withKeptTodos(a, "next", carry)).toBe("next");
  });

  test("/clear keep-todos keeps the list and hands it to the next message only", async () => {
    const a = await app();
    const carry: ReplState = { keptTodos: false };
    const old = a.recorder.id;
    slashCommand("/clear keep-todos", a, carry);
    expect(a.agent.history.messages).toEqual([]);
    expect(a.session.todos).toEqual(plan);
    expect(shown()).toBe(`Conversation cleared (the old one is saved: bunker -r ${old}); kept 3 todos.\n`);
    expect(withKeptTodos(a, "go on", carry)).toBe(`go on\n\n${keptTodosNote(plan)}`);
    expect(withKeptTodos(a, "and then", carry)).toBe("and then");
  });

  test("an unknown /clear option changes nothing", async () => {
    const a = await app();
    const carry: ReplState = { keptTodos: false };
    slashCommand("/clear keep", a, carry);
    expect(shown()).toBe("Unknown option keep. Use /clear or /clear keep-todos.\n");
    expect(a.agent.history.messages).toHaveLength(1);
    expect(a.session.todos).toEqual(plan);
  });
});
