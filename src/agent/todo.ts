// The todo list and the reminder policy, pure: validating a list the model
// sent, rendering it (plain for the model, coloured for the person), and
// deciding when the loop should nudge the model to update its plan.
import pc from "../ui/colors.ts";
import type { RoundHook } from "./loop.ts";
import type { SessionState, TodoItem, TodoStatus } from "./session-state.ts";
import { escapeControl } from "../ui/escape.ts";
import { KEPT_TODOS_HEAD, TODO_REMINDER } from "./history.ts";

export const MAX_TODOS = 20;
export const TODO_STATUSES: readonly TodoStatus[] = ["pending", "in_progress", "completed"];
export const DEFAULT_TODO_REMINDER_AFTER = 3;
export { TODO_REMINDER } from "./history.ts";
/** The tool's name, as the loop reports it in a round's tool calls. */
export const TODO_TOOL_NAME = "todo";

export type TodoValidation = { ok: true; todos: TodoItem[] } | { ok: false; problems: string[] };

/**
 * Checks a whole list as the model sent it. Every problem is reported (one
 * message each) so the model can fix them all in one retry; a valid list comes
 * back as fresh objects with trimmed text, so the caller stores a copy.
 */
export function validateTodos(items: unknown): TodoValidation {
  if (!Array.isArray(items)) {
    return { ok: false, problems: [`items must be an array of {id, text, status}, got ${describe(items)}`] };
  }
  const problems: string[] = [];
  if (items.length > MAX_TODOS) {
    problems.push(`the list has ${items.length} items; at most ${MAX_TODOS} are allowed (merge small steps or drop finished ones)`);
  }

  const todos: TodoItem[] = [];
  const positionsById = new Map<string, number[]>();
  const inProgress: string[] = [];
  items.forEach((raw: unknown, i) => {
    const where = `item ${i + 1}`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      problems.push(`${where} must be an object {id, text, status}, got ${describe(raw)}`);
      return;
    }
    const { id, text, status } = raw as Record<string, unknown>;
    const label = typeof id === "string" && id.trim() !== "" ? `${where} (#${id.trim()})` : where;
    let itemOk = true;

    if (typeof id !== "string" || id.trim() === "") {
      problems.push(`${where} needs a non-empty id (a string such as "1")`);
      itemOk = false;
    } else {
      const key = id.trim();
      positionsById.set(key, [...(positionsById.get(key) ?? []), i + 1]);
    }
    if (typeof text !== "string" || text.trim() === "") {
      problems.push(`${label} has empty text; say what the step is`);
      itemOk = false;
    }
    if (typeof status !== "string" || !(TODO_STATUSES as readonly string[]).includes(status)) {
      problems.push(`${label} has unknown status ${describe(status)}; use one of ${TODO_STATUSES.join(", ")}`);
      itemOk = false;
    } else if (status === "in_progress") {
      inProgress.push(label);
    }
    if (itemOk) {
      todos.push({ id: (id as string).trim(), text: (text as string).trim(), status: status as TodoStatus });
    }
  });

  for (const [id, positions] of positionsById) {
    if (positions.length > 1) {
      problems.push(`id "${id}" is used by items ${positions.join(", ")}; ids must be unique`);
    }
  }
  if (inProgress.length > 1) {
    problems.push(
      `${inProgress.length} items are in_progress (${inProgress.join(", ")}); at most one may be, mark the others pending or completed`,
    );
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, todos };
}

/** The error the model sees for an invalid list: every problem, one per line. */
export function formatTodoProblems(problems: string[]): string {
  const head = `Todo list not changed: ${problems.length === 1 ? "1 problem" : `${problems.length} problems`}.`;
  return [head, ...problems.map((p) => `- ${p}`), "Send the whole corrected list again."].join("\n");
}

const MARKS: Record<TodoStatus, string> = { completed: "[x]", in_progress: "[>]", pending: "[ ]" };

/** Plain rendering, as returned to the model and carried by the reminder. */
export function renderTodos(todos: readonly TodoItem[]): string {
  return renderLines(todos, NO_COLOUR).join("\n");
}

/**
 * Coloured rendering for the person, one string per line. `colors` is
 * injectable so tests can force colour on; by default picocolors decides
 * (off when stderr is not a terminal or NO_COLOR is set).
 */
export function renderTodosColoured(todos: readonly TodoItem[], colors: Palette = pc): string[] {
  return renderLines(todos, colors);
}

export function countCompleted(todos: readonly TodoItem[]): number {
  return todos.filter((t) => t.status === "completed").length;
}

/** True when the list has something left to do. */
export function hasUnfinished(todos: readonly TodoItem[]): boolean {
  return todos.some((t) => t.status !== "completed");
}

type Formatter = (s: string) => string;
/** The few picocolors styles the list uses (any picocolors instance fits). */
export interface Palette {
  green: Formatter;
  yellow: Formatter;
  bold: Formatter;
  dim: Formatter;
}
const identity: Formatter = (s) => s;
const NO_COLOUR: Palette = { green: identity, yellow: identity, bold: identity, dim: identity };

function renderLines(todos: readonly TodoItem[], c: Palette): string[] {
  if (todos.length === 0) return [c.dim("(no todos)")];
  const lines = todos.map((t) => {
    const line = `${MARKS[t.status]} #${printable(t.id)} ${printable(t.text)}`;
    if (t.status === "completed") return c.green(line);
    if (t.status === "in_progress") return c.bold(c.yellow(line));
    return line;
  });
  lines.push(c.dim(`(${countCompleted(todos)}/${todos.length} completed)`));
  return lines;
}

/** Characters from the model that do not show themselves (controls, bidi, zero-width) are shown escaped. */
const printable = (s: string): string => escapeControl(s);

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value);
  return typeof value;
}

/**
 * When to remind the model of its plan. The loop calls `afterRound` once per
 * model round that ended in tool calls; a non-null answer is the text block to
 * append after that round's tool_result blocks.
 *
 * Counts rounds that used tools but not `todo`. At `after` such rounds it
 * fires if the list is empty (three tool rounds make a multi-step turn) or
 * has unfinished items, then starts counting again, so it recurs every
 * `after` rounds and never on consecutive ones. A round that used `todo`
 * resets the count; a list whose items are all completed is never reminded.
 * `after` 0 turns it off. Call `reset()` at the start of each user turn.
 */
export class TodoReminder {
  private rounds = 0;

  constructor(readonly after: number = DEFAULT_TODO_REMINDER_AFTER) {
    checkTodoAfter(after);
  }

  /** Rounds counted since the last todo call or reminder. */
  get count(): number {
    return this.rounds;
  }

  reset(): void {
    this.rounds = 0;
  }

  afterRound(usedTools: boolean, usedTodo: boolean, todos: readonly TodoItem[]): string | null {
    if (usedTodo) {
      this.rounds = 0;
      return null;
    }
    if (!usedTools || this.after === 0) return null;
    this.rounds++;
    if (this.rounds < this.after) return null;
    if (todos.length > 0 && !hasUnfinished(todos)) return null;
    this.rounds = 0;
    return todoReminderText(todos);
  }
}

/** The injected text: the reminder, and the current list when there is one. */
export function todoReminderText(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return TODO_REMINDER;
  return `${TODO_REMINDER}\nCurrent todos:\n${renderTodos(todos)}`;
}

/**
 * The reminder as a loop hook: counts the rounds of each user turn against
 * the session's current list. `new TodoRoundHook(session, settingsValue)`.
 */
export class TodoRoundHook implements RoundHook {
  readonly reminder: TodoReminder;

  constructor(
    private readonly session: SessionState,
    after: number = DEFAULT_TODO_REMINDER_AFTER,
  ) {
    this.reminder = new TodoReminder(after);
  }

  onTurnStart(): void {
    this.reminder.reset();
  }

  afterRound(toolNames: string[]): string | null {
    return this.reminder.afterRound(toolNames.length > 0, toolNames.includes(TODO_TOOL_NAME), this.session.todos);
  }
}

/**
 * `reminders.todoAfter` from a parsed settings file: undefined when absent,
 * the number when valid, a RangeError with the fix when not.
 */
export function readTodoAfter(settings: unknown): number | undefined {
  if (typeof settings !== "object" || settings === null) return undefined;
  const reminders = (settings as Record<string, unknown>).reminders;
  if (reminders === undefined) return undefined;
  if (typeof reminders !== "object" || reminders === null || Array.isArray(reminders)) {
    throw new RangeError(`"reminders" must be an object such as { "todoAfter": 3 }, got ${describe(reminders)}`);
  }
  const value = (reminders as Record<string, unknown>).todoAfter;
  if (value === undefined) return undefined;
  checkTodoAfter(value);
  return value;
}

function checkTodoAfter(value: unknown): asserts value is number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    const got = typeof value === "number" ? String(value) : describe(value);
    throw new RangeError(`reminders.todoAfter must be a whole number ≥ 0 (0 turns the todo reminder off), got ${got}`);
  }
}

/**
 * After `/clear keep-todos` the new conversation has not seen the plan: this
 * note goes with the person's next message so the model can pick it up.
 */
export function keptTodosNote(todos: readonly TodoItem[]): string {
  return `${KEPT_TODOS_HEAD}${renderTodos(todos)}</reminder>`;
}
