// The tool list handed to the API, and the dispatcher. The loop sees tools
// only through here. A tool never throws into the loop: every failure comes
// back as an is_error result with a message the model can act on.
import type { Tool as ApiTool } from "@anthropic-ai/sdk/resources/messages";
import type { ToolImage } from "./image.ts";
import { ToolError, type AnyTool, type ToolContext } from "./tool.ts";
import { validateInput } from "./validate.ts";

export interface ToolCallResult {
  content: string;
  isError: boolean;
  /** Image blocks sent after the text. */
  images?: ToolImage[];
}

export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();

  constructor(tools: AnyTool[]) {
    for (const t of tools) this.byName.set(t.name, t);
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  /** The tool definitions sent with every request. */
  apiTools(): ApiTool[] {
    return [...this.byName.values()].map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema as ApiTool["input_schema"],
    }));
  }

  /** The dim one-line summary shown for a call; falls back to the name. */
  summarize(name: string, input: unknown): string {
    const tool = this.byName.get(name);
    if (!tool || typeof input !== "object" || input === null) return name;
    // A summary of input that does not fit the schema would read "read_file undefined".
    if (validateInput(tool.inputSchema, input).length > 0) return `${name} (invalid input)`;
    try {
      return `${name} ${tool.summarize(input)}`.trim();
    } catch {
      return name;
    }
  }

  async run(name: string, input: unknown, ctx: ToolContext): Promise<ToolCallResult> {
    const tool = this.byName.get(name);
    if (!tool) {
      return { isError: true, content: `Unknown tool "${name}". Available tools: ${this.names.join(", ")}.` };
    }
    const problems = validateInput(tool.inputSchema, input);
    if (problems.length > 0) {
      return { isError: true, content: `Invalid input for ${name}: ${problems.join("; ")}.` };
    }
    try {
      const out = await tool.run(input as Record<string, unknown>, ctx);
      return typeof out === "string" ? { content: out, isError: false } : out;
    } catch (err) {
      if (ctx.signal.aborted) return { isError: true, content: "Interrupted by the user." };
      if (err instanceof ToolError) return { isError: true, content: err.message };
      const message = err instanceof Error ? err.message : String(err);
      return { isError: true, content: `${name} failed unexpectedly: ${message}` };
    }
  }
}
