// The tool list handed to the API, and the dispatcher. The loop sees tools
// only through here. A tool never throws into the loop: every failure comes
// back as an is_error result with a message the model can act on.
import type { Tool as ApiTool } from "@anthropic-ai/sdk/resources/messages";
import type { ToolImage } from "./image.ts";
import { PermissionDenied } from "../perms/permissions.ts";
import { ToolError, type AnyTool, type ToolContext } from "./tool.ts";
import { validateInput } from "./validate.ts";

export interface ToolCallResult {
  content: string;
  isError: boolean;
  /** Image blocks sent after the text. */
  images?: ToolImage[];
  /** What the person sees of the result instead of `content` ("": nothing more); never sent to the model. */
  shown?: string;
}

/** Finds a tool the registry does not hold yet (an MCP server still starting), or undefined. */
export type ToolResolver = (name: string) => Promise<AnyTool | undefined>;

export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();
  /** Tools held but not sent with requests (MCP tools beyond the schema budget, until found). */
  private readonly deferred = new Set<string>();
  private resolver: ToolResolver | undefined;

  constructor(tools: AnyTool[]) {
    for (const t of tools) this.byName.set(t.name, t);
  }

  // Loops, not .filter and .map: a read-only headless turn calls neither (jit.ts).
  get names(): string[] {
    const out: string[] = [];
    for (const n of this.byName.keys()) if (!this.deferred.has(n)) out.push(n);
    return out;
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  /** Adds a tool (MCP tools join when their server is ready); `offered: false` holds it back from requests until offer(). */
  add(tool: AnyTool, opts: { offered?: boolean } = {}): void {
    this.byName.set(tool.name, tool);
    if (opts.offered === false) this.deferred.add(tool.name);
    else this.deferred.delete(tool.name);
  }

  remove(name: string): void {
    this.byName.delete(name);
    this.deferred.delete(name);
  }

  /** Sends a held-back tool with every request from now on. */
  offer(name: string): void {
    this.deferred.delete(name);
  }

  isOffered(name: string): boolean {
    return this.byName.has(name) && !this.deferred.has(name);
  }

  setResolver(resolver: ToolResolver): void {
    this.resolver = resolver;
  }

  /** The tool definitions sent with every request. */
  apiTools(): ApiTool[] {
    const out: ApiTool[] = [];
    for (const t of this.byName.values()) if (!this.deferred.has(t.name)) out.push(apiTool(t));
    return out;
  }

  /** Loads the code of a tool that loads on first call (its summary needs it); nothing for the rest. */
  async ready(name: string): Promise<void> {
    await this.byName.get(name)?.ready?.();
  }

  /** The dim one-line summary shown for a call (after `ready`); falls back to the name. */
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
    const tool = this.byName.get(name) ?? (await this.resolver?.(name).catch(() => undefined));
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
      // The person's refusal that cancelled the turn (Escape or Ctrl+C at the question) is still told as a refusal.
      if (ctx.signal.aborted && !(err instanceof PermissionDenied)) return { isError: true, content: "Interrupted by the user." };
      if (err instanceof ToolError) {
        return { isError: true, content: err.message, ...(err.shown !== undefined ? { shown: err.shown } : {}) };
      }
      const message = err instanceof Error ? err.message : String(err);
      return { isError: true, content: `${name} failed unexpectedly: ${message}` };
    }
  }
}

/** One tool as the API takes it. */
export function apiTool(t: AnyTool): ApiTool {
  return { name: t.name, description: t.description, input_schema: (t.apiInputSchema ?? t.inputSchema) as ApiTool["input_schema"] };
}
