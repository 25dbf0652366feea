import { describe, expect, test } from "bun:test";
import pc from "../../../src/ui/colors.ts";
import type { TodoItem } from "../../../src/agent/session-state.ts";
import {
  keptTodosNote,
  readTodoAfter,
  renderTodos,
  renderTodosColoured,
  TODO_REMINDER,
  TodoReminder,
  validateTodos,
} from "../../../src/agent/todo.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { todoTool } from "../../../src/tools/todo.ts";
import { makeContext, tempDir } from "../../support/context.ts";

const item = (id: string, status: TodoItem["status"], text = `step ${id}`): TodoItem => ({ id, text, status });
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");

const example: TodoItem[] = [
  item("1", "completed", "Read the failing test"),
  item("2", "in_progress", "Fix the parser"),
  item("3", "pending", "Run the tests"),
];

describe("validateTodos", () => {
  test("accepts a good list and returns a trimmed copy", () => {
    const input = [{ id: " 1 ", text: "  Read the test ", status: "pending" }];
    const r = validateTodos(input);
    expect(r).toEqual({ ok: true, todos: [{ id: "1", text: "Read the test", status: "pending" }] });
    if (r.ok) expect(r.todos[0]).not.toBe(input[0]);
  });

  test("accepts an empty list (clearing the plan)", () => {
    expect(validateTodos([])).toEqual({ ok: true, todos: [] });
  });

  test("accepts exactly 20 items, rejects 21", () => {
    const twenty = Array.from({ length: 20 }, (_, i) => item(String(i + 1), "pending"));
    expect(validateTodos(twenty).ok).toBe(true);
    const r = validateTodos([...twenty, item("21", "pending")]);
    expect(r).toEqual({
      ok: false,
      problems: ["the list has 21 items; at most 20 are allowed (merge small steps or drop finished ones)"],
    });
  });

  test("empty or blank text", () => {
    const r = validateTodos([item("1", "pending", ""), item("2", "pending", "   ")]);
    expect(r).toEqual({
      ok: false,
      problems: ["item 1 (#1) has empty text; say what the step is", "item 2 (#2) has empty text; say what the step is"],
    });
  });

  test("duplicate ids name every position once", () => {
    const r = validateTodos([item("a", "pending"), item("b", "pending"), item("a", "pending"), item("a ", "pending")]);
    expect(r).toEqual({ ok: false, problems: ['id "a" is used by items 1, 3, 4; ids must be unique'] });
  });

  test("missing id", () => {
    const r = validateTodos([{ id: "", text: "x", status: "pending" }, { text: "y", status: "pending" }]);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems).toEqual([
        'item 1 needs a non-empty id (a string such as "1")',
        'item 2 needs a non-empty id (a string such as "1")',
      ]);
    }
  });

  test("unknown status", () => {
    const r = validateTodos([{ id: "1", text: "x", status: "done" }]);
    expect(r).toEqual({
      ok: false,
      problems: ['item 1 (#1) has unknown status "done"; use one of pending, in_progress, completed'],
    });
  });

  test("more than one in_progress", () => {
    const r = validateTodos([item("1", "in_progress"), item("2", "pending"), item("3", "in_progress")]);
    expect(r).toEqual({
      ok: false,
      problems: [
        "2 items are in_progress (item 1 (#1), item 3 (#3)); at most one may be, mark the others pending or completed",
      ],
    });
  });

  test("lists every problem, one message each", () => {
    const many = Array.from({ length: 19 }, (_, i) => item(String(i + 1), "pending"));
    const r = validateTodos([
      ...many,
      item("1", "in_progress", ""),
      { id: "x", text: "y", status: "doing" },
      item("z", "in_progress"),
    ]);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems).toEqual([
        "the list has 22 items; at most 20 are allowed (merge small steps or drop finished ones)",
        "item 20 (#1) has empty text; say what the step is",
        'item 21 (#x) has unknown status "doing"; use one of pending, in_progress, completed',
        'id "1" is used by items 1, 20; ids must be unique',
        "2 items are in_progress (item 20 (#1), item 22 (#z)); at most one may be, mark the others pending or completed",
      ]);
    }
  });

  test("non-array and non-object input get a clear message", () => {
    expect(validateTodos("1. do it")).toEqual({
      ok: false,
      problems: ['items must be an array of {id, text, status}, got "1. do it"'],
    });
    expect(validateTodos([null])).toEqual({
      ok: false,
      problems: ["item 1 must be an object {id, text, status}, got null"],
    });
  });
});

describe("rendering", () => {
  test("plain list for the model", () => {
    expect(renderTodos(example)).toBe(
      ["[x] #1 Read the failing test", "[>] #2 Fix the parser", "[ ] #3 Run the tests", "(1/3 completed)"].join("\n"),
    );
  });

  test("empty list", () => {
    expect(renderTodos([])).toBe("(no todos)");
  });

  test("coloured list for the person says the same thing, in colour", () => {
    const colours = pc.createColors(true);
    const lines = renderTodosColoured(example, colours);
    expect(lines.map(stripAnsi)).toEqual(renderTodos(example).split("\n"));
    expect(lines[0]).toBe(colours.green("[x] #1 Read the failing test"));
    expect(lines[1]).toBe(colours.bold(colours.yellow("[>] #2 Fix the parser")));
    expect(lines[2]).toBe("[ ] #3 Run the tests");
    expect(lines[3]).toBe(colours.dim("(1/3 completed)"));
  });

  test("without colour support the coloured rendering is plain", () => {
    const lines = renderTodosColoured(example, pc.createColors(false));
    expect(lines.join("\n")).toBe(renderTodos(example));
  });

  test("control characters from the model are escaped, not sent to the terminal", () => {
    const out = renderTodos([item("1", "pending", "evil\x1b[2Jtext\nnext")]);
    expect(out).toBe("[ ] #1 evil\\x1b[2Jtext\\nnext\n(0/1 completed)");
    expect(out).not.toContain("\x1b");
  });
});

describe("TodoReminder, round by round", () => {
  const unfinished = [item("1", "completed"), item("2", "in_progress"), item("3", "pending")];
  const allDone = [item("1", "completed"), item("2", "completed")];

  test("empty list: fires at round 3, then every 3 rounds, never on consecutive rounds", () => {
    const r = new TodoReminder(3);
    const fired = Array.from({ length: 9 }, () => r.afterRound(true, false, []));
    expect(fired).toEqual([null, null, TODO_REMINDER, null, null, TODO_REMINDER, null, null, TODO_REMINDER]);
  });

  test("unfinished list: the reminder carries the current list", () => {
    const r = new TodoReminder(3);
    r.afterRound(true, false, unfinished);
    r.afterRound(true, false, unfinished);
    expect(r.afterRound(true, false, unfinished)).toBe(
      `${TODO_REMINDER}\nCurrent todos:\n${renderTodos(unfinished)}`,
    );
  });

  test("a round that uses todo resets the count", () => {
    const r = new TodoReminder(3);
    expect(r.afterRound(true, false, unfinished)).toBeNull();
    expect(r.afterRound(true, false, unfinished)).toBeNull();
    expect(r.afterRound(true, true, unfinished)).toBeNull();
    expect(r.count).toBe(0);
    expect(r.afterRound(true, false, unfinished)).toBeNull();
    expect(r.afterRound(true, false, unfinished)).toBeNull();
    expect(r.afterRound(true, false, unfinished)).not.toBeNull();
  });

  test("an all-completed list is never reminded", () => {
    const r = new TodoReminder(3);
    for (let i = 0; i < 10; i++) expect(r.afterRound(true, false, allDone)).toBeNull();
  });

  test("rounds without tools are not counted", () => {
    const r = new TodoReminder(3);
    r.afterRound(true, false, []);
    r.afterRound(false, false, []);
    r.afterRound(true, false, []);
    expect(r.count).toBe(2);
    expect(r.afterRound(false, false, [])).toBeNull();
    expect(r.afterRound(true, false, [])).toBe(TODO_REMINDER);
  });

  test("reset() starts a new turn from zero", () => {
    const r = new TodoReminder(3);
    r.afterRound(true, false, []);
    r.afterRound(true, false, []);
    r.reset();
    expect(r.afterRound(true, false, [])).toBeNull();
    expect(r.afterRound(true, false, [])).toBeNull();
    expect(r.afterRound(true, false, [])).toBe(TODO_REMINDER);
  });

  test("0 turns it off; other intervals are honoured", () => {
    const off = new TodoReminder(0);
    for (let i = 0; i < 10; i++) expect(off.afterRound(true, false, unfinished)).toBeNull();
    const two = new TodoReminder(2);
    const fired = Array.from({ length: 6 }, () => two.afterRound(true, false, []) !== null);
    expect(fired).toEqual([false, true, false, true, false, true]);
  });

  test("default is 3; a bad interval is refused with a clear message", () => {
    expect(new TodoReminder().after).toBe(3);
    expect(() => new TodoReminder(-1)).toThrow("reminders.todoAfter must be a whole number ≥ 0 (0 turns the todo reminder off), got -1");
    expect(() => new TodoReminder(1.5)).toThrow("got 1.5");
  });
});

describe("the todo tool", () => {
  const registry = new ToolRegistry([todoTool]);

  test("replaces the whole list, returns it plain, shows it to the person", async () => {
    const ctx = makeContext(tempDir());
    ctx.session.todos = [item("old", "pending")];
    const res = await registry.run("todo", { items: example }, ctx);
    expect(res).toEqual({ isError: false, content: renderTodos(example) });
    expect(ctx.session.todos).toEqual(example);
    expect(ctx.notices.map(stripAnsi)).toEqual(renderTodos(example).split("\n").map((l) => `    ${l}`));
  });

  test("an invalid call changes nothing and lists every problem", async () => {
    const ctx = makeContext(tempDir());
    ctx.session.todos = [...example];
    const res = await registry.run(
      "todo",
      { items: [item("1", "in_progress"), item("1", "in_progress", " ")] },
      ctx,
    );
    expect(res.isError).toBe(true);
    expect(res.content).toBe(
      [
        "Todo list not changed: 3 problems.",
        "- item 2 (#1) has empty text; say what the step is",
        '- id "1" is used by items 1, 2; ids must be unique',
        "- 2 items are in_progress (item 1 (#1), item 2 (#1)); at most one may be, mark the others pending or completed",
        "Send the whole corrected list again.",
      ].join("\n"),
    );
    expect(ctx.session.todos).toEqual(example);
    expect(ctx.notices).toEqual([]);
  });

  test("an unknown status is caught by the schema before run", async () => {
    const ctx = makeContext(tempDir());
    const res = await registry.run("todo", { items: [{ id: "1", text: "x", status: "done" }] }, ctx);
    expect(res.isError).toBe(true);
    expect(res.content).toContain('items[0].status must be one of "pending", "in_progress", "completed", got "done"');
    expect(ctx.session.todos).toEqual([]);
  });

  test("an empty list clears the plan", async () => {
    const ctx = makeContext(tempDir());
    ctx.session.todos = [...example];
    const res = await registry.run("todo", { items: [] }, ctx);
    expect(res).toEqual({ isError: false, content: "(no todos)" });
    expect(ctx.session.todos).toEqual([]);
  });

  test("summary line and a short definition", () => {
    expect(registry.summarize("todo", { items: example })).toBe("todo 3 items, 1 completed");
    // Every request carries every tool; the whole first request must stay under 8 KB.
    expect(JSON.stringify(registry.apiTools()[0]).length).toBeLessThan(1000);
  });
});

describe("reminders.todoAfter from settings", () => {
  test("absent means the default applies", () => {
    expect(readTodoAfter({})).toBeUndefined();
    expect(readTodoAfter({ allow: ["run:git status"] })).toBeUndefined();
    expect(readTodoAfter({ reminders: {} })).toBeUndefined();
  });

  test("a whole number ≥ 0 is taken as it is", () => {
    expect(readTodoAfter({ reminders: { todoAfter: 5 } })).toBe(5);
    expect(readTodoAfter({ reminders: { todoAfter: 0 } })).toBe(0);
  });

  test("anything else is refused with the fix", () => {
    expect(() => readTodoAfter({ reminders: { todoAfter: "3" } })).toThrow(
      'reminders.todoAfter must be a whole number ≥ 0 (0 turns the todo reminder off), got "3"',
    );
    expect(() => readTodoAfter({ reminders: { todoAfter: -2 } })).toThrow("got -2");
    expect(() => readTodoAfter({ reminders: 3 })).toThrow('"reminders" must be an object such as { "todoAfter": 3 }, got number');
  });
});

test("the note carried across /clear keep-todos holds the list", () => {
  expect(keptTodosNote(example)).toBe(
    `<reminder>Your todo list, kept from before the conversation was cleared:\n${renderTodos(example)}</reminder>`,
  );
});
