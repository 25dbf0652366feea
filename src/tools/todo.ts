// The `todo` tool: the model's visible plan. Each call replaces the whole list
// in the session; the person sees it coloured, the model gets it back plain.
import { formatTodoProblems, renderTodos, renderTodosColoured, TODO_TOOL_NAME, validateTodos } from "../agent/todo.ts";
import { todoSpec } from "./specs.ts";
import { ToolError, type Tool } from "./tool.ts";

export interface TodoInput {
  items: { id: string; text: string; status: string }[];
}

export const todoTool: Tool<TodoInput> = {
  ...todoSpec,
  summarize(input) {
    if (!Array.isArray(input.items)) return "";
    const items = input.items.filter((t) => typeof t === "object" && t !== null);
    const done = items.filter((t) => t.status === "completed").length;
    return `${items.length} ${items.length === 1 ? "item" : "items"}, ${done} completed`;
  },

  async run(input, ctx) {
    const checked = validateTodos(input.items);
    if (!checked.ok) throw new ToolError(formatTodoProblems(checked.problems));
    ctx.session.todos = checked.todos;
    // Nested under the dim `todo …` call line.
    for (const line of renderTodosColoured(checked.todos)) ctx.ui.info(`    ${line}`);
    return renderTodos(checked.todos);
  },
};
