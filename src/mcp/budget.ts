// MCP tool schemas count toward every request. Up to 10 KB of them are sent
// as tools; past that the model gets one small tool to search the rest by
// name and description, and what it finds is sent from then on (as Claude
// Code's tool search does). Room for the search tool is kept from the start,
// so the first request never grows by more than the budget, however many
// servers there are or in what order they join.
import { apiTool, type ToolRegistry } from "../tools/registry.ts";
import type { AnyTool } from "../tools/tool.ts";

export const SCHEMA_BUDGET_BYTES = 10 * 1024;
export const SEARCH_TOOL_NAME = "mcp_tool_search";
const MAX_FOUND = 5;

/** Bytes a tool adds to a request (its JSON and the comma before it). */
export function schemaBytes(tool: AnyTool): number {
  return Buffer.byteLength(JSON.stringify(apiTool(tool))) + 1;
}

interface Held {
  tool: AnyTool;
  server: string;
}

export class SchemaBudget {
  private used = 0;
  /** Tools held back, by name. */
  private readonly held = new Map<string, Held>();
  private searchAdded = false;
  private readonly reserve: number;
  /** Waits for servers still starting, so a search sees their tools too. */
  beforeSearch: () => Promise<void> = async () => {};

  constructor(
    private readonly registry: ToolRegistry,
    private readonly limit = SCHEMA_BUDGET_BYTES,
  ) {
    this.reserve = schemaBytes(this.searchTool());
  }

  /** Adds a server's tool: sent if it fits, else held for the search tool. */
  add(tool: AnyTool, server: string): "sent" | "held" {
    const size = schemaBytes(tool);
    if (this.used + size + this.reserve <= this.limit) {
      this.used += size;
      this.registry.add(tool);
      return "sent";
    }
    this.held.set(tool.name, { tool, server });
    this.registry.add(tool, { offered: false });
    if (!this.searchAdded) {
      this.searchAdded = true;
      this.registry.add(this.searchTool());
    }
    return "held";
  }

  /** A server went away: its tools leave the registry (and the budget). */
  removeServer(names: string[]): void {
    for (const name of names) {
      if (this.held.delete(name)) {
        this.registry.remove(name);
        continue;
      }
      const tool = this.registry.get(name);
      if (tool) this.used -= schemaBytes(tool);
      this.registry.remove(name);
    }
  }

  get heldCount(): number {
    return this.held.size;
  }

  /** Held tools matching the query, best first; found ones are sent from now on. */
  search(query: string): Held[] {
    const words = query.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1);
    if (words.length === 0) return [];
    const scored = [...this.held.values()]
      .map((h) => {
        const name = h.tool.name.toLowerCase();
        const text = `${name} ${h.tool.description.toLowerCase()}`;
        const score = words.reduce((n, w) => n + (name.includes(w) ? 3 : 0) + (text.includes(w) ? 1 : 0), 0);
        return { h, score };
      })
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_FOUND)
      .map((x) => x.h);
    for (const h of scored) {
      this.held.delete(h.tool.name);
      this.registry.offer(h.tool.name);
    }
    return scored;
  }

  private searchTool(): AnyTool {
    return {
      name: SEARCH_TOOL_NAME,
      description:
        "Search the MCP tools that are available but not loaded (their schemas did not fit). Give words from the tool's name or purpose; " +
        `up to ${MAX_FOUND} matching tools are loaded and can be called from your next step on.`,
      inputSchema: { type: "object", properties: { query: { type: "string", description: "words to look for, e.g. \"create issue\"" } }, required: ["query"], additionalProperties: false },
      summarize: (input: { query?: string }) => JSON.stringify(input.query ?? ""),
      run: async (input: { query: string }) => {
        await this.beforeSearch();
        const found = this.search(input.query);
        if (found.length === 0) {
          return `No unloaded MCP tool matches "${input.query}" (${this.held.size} are not loaded). Try other words, or the server's name.`;
        }
        const lines = found.map((h) => `- ${h.tool.name}: ${h.tool.description.split("\n")[0]}`);
        return `Loaded ${found.length} tool${found.length === 1 ? "" : "s"}; call ${found.length === 1 ? "it" : "them"} directly from now on:\n${lines.join("\n")}`;
      },
    };
  }
}
