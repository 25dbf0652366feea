// The REPL's slash commands: the table and /help written from it; /todos shows the plan, /clear
// forgets it, /clear keep-todos keeps it and hands it to the model with the next message.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { TodoItem } from "../../src/agent/session-state.ts";
import { keptTodosNote, renderTodos } from "../../src/agent/todo.ts";
import { buildApp, type App } from "../../src/app.ts";
import { parseConfig } from "../../src/config.ts";
import { COMMANDS, helpText, runSlashCommand, withKeptTodos, type ReplState } from "../../src/slash-commands.ts";
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
const slashCommand = (text: string, app: App, carry: ReplState) => runSlashCommand(text, { app, carry, write: (t) => process.stderr.write(t) });

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
    await slashCommand("/todos", a, carry);
    expect(shown()).toBe(renderTodos(plan) + "\n");
    a.session.todos = [];
    written = [];
    await slashCommand("/todos", a, carry);
    expect(shown()).toBe("No todos yet.\n");
  });

  /** Runs `command` on a session with a plan; the conversation is gone, the old session named, a new one started. */
  async function cleared(command: string, says: string) {
    const a = await app();
    const carry: ReplState = { keptTodos: false };
    const old = a.recorder.id;
    await slashCommand(command, a, carry);
    expect(a.agent.history.messages).toEqual([]);
    expect(shown()).toBe(`Conversation cleared (the old one is saved: bunker -r ${old})${says}\n`);
    expect(a.recorder.id).not.toBe(old);
    return { a, carry };
  }

  test("/clear forgets the conversation and the list", async () => {
    const { a, carry } = await cleared("/clear", ".");
    expect(a.session.todos).toEqual([]);
    expect(withKeptTodos(a, "next", carry)).toBe("next");
  });

  test("/clear keep-todos keeps the list and hands it to the next message only", async () => {
    const { a, carry } = await cleared("/clear keep-todos", "; kept 3 todos.");
    expect(a.session.todos).toEqual(plan);
    expect(withKeptTodos(a, "go on", carry)).toBe(`go on\n\n${keptTodosNote(plan)}`);
    expect(withKeptTodos(a, "and then", carry)).toBe("and then");
  });

  test("an unknown /clear option changes nothing", async () => {
    const a = await app();
    const carry: ReplState = { keptTodos: false };
    await slashCommand("/clear keep", a, carry);
    expect(shown()).toBe("Unknown option keep. Use /clear or /clear keep-todos.\n");
    expect(a.agent.history.messages).toHaveLength(1);
    expect(a.session.todos).toEqual(plan);
  });
});

describe("the command table", () => {
  test("/help lists every command of the table with its help line", async () => {
    const a = await app();
    await slashCommand("/help", a, { keptTodos: false });
    for (const c of COMMANDS) expect(shown()).toMatch(new RegExp(`^  ${c.name.replace("/", "\\/")}\\b.*${c.help.slice(0, 20).replace(/[()]/g, ".")}`, "m"));
    expect(shown()).toBe(helpText() + "\n");
  });

  test("an unknown command says so and changes nothing; /exit and /quit ask to leave", async () => {
    const a = await app();
    const carry = { keptTodos: false };
    expect(await slashCommand("/nope", a, carry)).toBeUndefined();
    expect(shown()).toBe("Unknown command /nope. Try /help.\n");
    expect(a.agent.history.messages).toHaveLength(1);
    expect(await slashCommand("/exit", a, carry)).toBe("exit");
    expect(await slashCommand("/quit", a, carry)).toBe("exit");
  });

  test("a mistyped command names the command it most likely meant", async () => {
    const a = await app();
    const carry = { keptTodos: false };
    await slashCommand("/cots", a, carry);
    expect(shown()).toBe("Unknown command /cots. Did you mean /cost? Try /help.\n");
    written = [];
    await slashCommand("/rewnid 2", a, carry);
    expect(shown()).toBe("Unknown command /rewnid. Did you mean /rewind? Try /help.\n");
    written = [];
    await slashCommand("/qiut", a, carry);
    expect(shown()).toBe("Unknown command /qiut. Did you mean /quit? Try /help.\n");
    expect(a.agent.history.messages).toHaveLength(1);
  });

  test("a command added to a table is listed and run", async () => {
    const a = await app();
    let ran: string[] = [];
    const table = [...COMMANDS, { name: "/echo", usage: "WORDS", help: "say the words back", run: (args: string[]) => void (ran = args) }];
    expect(helpText(table)).toMatch(/^  \/echo WORDS\s+say the words back$/m);
    await runSlashCommand("/echo a b", { app: a, carry: { keptTodos: false }, write: () => {} }, table);
    expect(ran).toEqual(["a", "b"]);
  });
});
