// The `todo` tool: the model's visible plan. Each call replaces the whole list
// in the session; the person sees it coloured, the model gets it back plain.
import { formatTodoProblems, renderTodos, renderTodosColoured, TODO_TOOL_NAME, validateTodos } from "../agent/todo.ts";
import { ToolError, type Tool } from "./tool.ts";

export interface TodoInput {
  items: { id: string; text: string; status: string }[];
}

export const todoTool: Tool<TodoInput> = {
  name: TODO_TOOL_NAME,
  description:
    "Your plan, shown to the user. Use it for tasks of 3+ steps: send the whole list each call (it replaces the old one). " +
    "Mark a step in_progress before starting it (one at a time) and completed right after finishing it; add steps as you find them. " +
    "Do not use it for single quick answers or one-step changes. Max 20 items.",
  inputSchema: {
    type: "object",
    properties: {
      items: {
        type: "array",
        description: "The full list, in order.",
        items: {
          type: "object",
          properties: {
            id: { type: "string", description: 'Short and stable, e.g. "1".' },
            text: { type: "string" },
            status: { type: "string", enum: ["pending", "in_progress", "completed"] },
          },
          required: ["id", "text", "status"],
          additionalProperties: false,
        },
      },
    },
    required: ["items"],
    additionalProperties: false,
  },

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
