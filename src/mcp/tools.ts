// An MCP server's tool as a bunker tool: named mcp__<server>__<tool>, its
// schema sent as the server wrote it, every call a permission (server, tool,
// arguments shown), and the result converted for the API. A failure of any
// kind is a tool error for the model; the person sees the usual one line.
import { ToolError, type AnyTool } from "../tools/tool.ts";
import { escapeControl } from "../ui/escape.ts";
import type { McpConnection, ServerTool } from "./connection.ts";
import { McpCallError } from "./connection.ts";
import { mcpTarget } from "./decide.ts";
import { mcpToolName } from "./naming.ts";
import { prettyArgs } from "./preview.ts";
import { convertResult } from "./results.ts";

/** Longest description sent (servers write essays; the budget is shared). */
const MAX_DESCRIPTION = 1024;
const SUMMARY_CHARS = 100;

export function mcpTool(conn: McpConnection, t: ServerTool): AnyTool {
  const server = conn.def.name;
  const name = mcpToolName(server, t.name);
  const description = t.description.length > MAX_DESCRIPTION ? `${t.description.slice(0, MAX_DESCRIPTION)}…` : t.description;
  return {
    name,
    description: description || `${t.name} (MCP server ${server})`,
    // Checked by the server; bunker only insists on an object.
    inputSchema: { type: "object" },
    apiInputSchema: { type: "object", ...t.inputSchema },
    summarize(input) {
      const args = JSON.stringify(input);
      return args === "{}" ? "" : args.length > SUMMARY_CHARS ? `${args.slice(0, SUMMARY_CHARS)}…` : args;
    },
    async run(input: Record<string, unknown>, ctx) {
      await ctx.perms.authorize({
        kind: "mcp",
        target: mcpTarget(server, t.name),
        tool: name,
        mcp: { server, tool: t.name, args: prettyArgs(input), readOnlyHint: t.readOnlyHint },
      });
      let result: unknown;
      // What the call planted in the server's write folders for the person's git and tools, undone (git-wall.ts).
      const wall = () => {
        const lines = conn.wallNotes();
        for (const line of lines) ctx.ui.info(`  ${escapeControl(line)}`);
        return lines.map((l) => `note: ${l}`).join("\n");
      };
      try {
        result = await conn.call(t.name, input, { signal: ctx.signal });
      } catch (err) {
        const notes = wall();
        if (err instanceof McpCallError) throw new ToolError(notes ? `${err.message}\n\n${notes}` : err.message);
        throw err;
      }
      const notes = wall();
      const out = await convertResult(result, server);
      return notes ? { ...out, content: `${out.content}\n\n${notes}` } : out;
    },
  };
}
