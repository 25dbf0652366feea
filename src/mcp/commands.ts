// The REPL's MCP commands: `/mcp` lists the servers (state, tools, schema
// size, confinement), `/mcp restart NAME` starts one again, `/mcp start NAME`
// asks again about a project's server that was not started, and each ready
// server's prompts are slash commands `/mcp__server__prompt ARGS…` whose text
// becomes the next message. Reads the hub only: the MCP client stays unloaded
// when no server is configured.
import pc from "../ui/colors.ts";
import { escapeControl } from "../ui/escape.ts";
import type { ServerPrompt } from "./connection.ts";
import type { McpHub, ServerRow } from "./hub.ts";

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/**
 * One server as a row of the table, or, where that row is wider than the screen (`columns`), its name, source and
 * state on a line and each detail on a line of its own under it (a table re-wrapped by the terminal reads as noise).
 */
function rowLines(r: ServerRow, nameWidth: number, columns: number): string[] {
  const state = r.state === "ready" ? pc.green(r.state) : r.state === "starting" ? pc.yellow(r.state) : pc.red(escapeControl(r.state));
  const tools = r.state === "ready" || r.tools > 0 ? `${r.tools} tool${r.tools === 1 ? "" : "s"}, ${kb(r.schemaBytes)} of schemas${r.held ? ` (${r.held} loaded on demand)` : ""}` : "";
  const where = r.sandbox ? pc.dim(r.sandbox) : "";
  const name = escapeControl(r.name);
  const row = [`  ${name.padEnd(nameWidth)}  ${pc.dim(r.source.padEnd(7))}  ${state}`, tools, where].filter(Boolean).join("  ");
  // Off the last column: a row that fills it leaves the cursor waiting to wrap.
  if (Bun.stringWidth(row) < columns) return [row];
  return [`  ${name}  ${pc.dim(r.source)}  ${state}`, ...[tools, where].filter(Boolean).map((d) => `    ${d}`)];
}

/** `/mcp` and `/mcp restart NAME`; returns the text to show. */
export async function mcpCommand(hub: McpHub | undefined, args: string[], columns = Infinity): Promise<string> {
  if (!hub) return pc.dim("No MCP servers are configured (mcpServers in your settings.json, or a project's .mcp.json).\n");
  const [verb, name] = args;
  if (verb === undefined) {
    const rows = hub.rows();
    const width = Math.max(...rows.map((r) => r.name.length));
    const prompts = hub.prompts().map((p) => p.command);
    return [
      "MCP servers:",
      ...rows.flatMap((r) => rowLines(r, width, columns)),
      ...(prompts.length ? [pc.dim(`Prompts: ${prompts.map((p) => escapeControl(p)).join(" ")}`)] : []),
      pc.dim("/mcp restart NAME starts a server again; /mcp start NAME asks again about one not started."),
    ].join("\n") + "\n";
  }
  if (verb === "restart" && name !== undefined) {
    const conn = await hub.restart(name);
    if (!conn) return pc.red(`No MCP server ${escapeControl(name)} is running in this session. `) + "/mcp lists them.\n";
    return conn.state === "ready"
      ? pc.dim(`MCP server ${escapeControl(name)} restarted (${conn.tools.length} tool${conn.tools.length === 1 ? "" : "s"}).\n`)
      : pc.red(`MCP server ${escapeControl(name)} ${escapeControl(conn.reason)}.\n`);
  }
  if (verb === "start" && name !== undefined) {
    const started = await hub.startSkipped(name);
    if (!started) {
      return hub.get(name)
        ? pc.dim(`MCP server ${escapeControl(name)} is already started; /mcp restart ${escapeControl(name)} starts it again.\n`)
        : pc.red(`No MCP server ${escapeControl(name)} is configured. `) + "/mcp lists them.\n";
    }
    if ("refused" in started) return pc.dim(`MCP server ${escapeControl(name)} ${escapeControl(started.refused)}.\n`);
    const { conn } = started;
    return conn.state === "ready"
      ? pc.dim(`MCP server ${escapeControl(name)} started (${conn.tools.length} tool${conn.tools.length === 1 ? "" : "s"}).\n`)
      : pc.red(`MCP server ${escapeControl(name)} ${escapeControl(conn.reason)}.\n`);
  }
  return pc.red(`Unknown use of /mcp. `) + "Use /mcp, /mcp restart NAME or /mcp start NAME.\n";
}

/** Positional words for a prompt's arguments, in order; the last argument takes the rest of the line. */
export function promptArguments(prompt: ServerPrompt, words: string[]): Record<string, string> | { missing: string[] } {
  const out: Record<string, string> = {};
  prompt.arguments.forEach((a, i) => {
    const last = i === prompt.arguments.length - 1;
    const value = last ? words.slice(i).join(" ") : words[i];
    if (value !== undefined && value !== "") out[a.name] = value;
  });
  const missing = prompt.arguments.filter((a) => a.required && out[a.name] === undefined).map((a) => a.name);
  return missing.length ? { missing } : out;
}

function isMissing(a: Record<string, string> | { missing: string[] }): a is { missing: string[] } {
  return Array.isArray((a as { missing?: unknown }).missing);
}

/** A prompt's messages as one message to send: their text, in order. */
export function promptText(messages: { role: string; content: unknown }[]): string {
  return messages
    .map((m) => {
      const c = m.content as { type?: string; text?: string; resource?: { text?: string; uri?: string } };
      if (c?.type === "text" && typeof c.text === "string") return c.text;
      if (c?.type === "resource" && typeof c.resource?.text === "string") return c.resource.text;
      return `[${String(c?.type ?? "content")} left out]`;
    })
    .join("\n\n");
}

export interface PromptCommand {
  name: string;
  usage: string;
  help: string;
  /** The message to send, or an error line to show. */
  run(words: string[]): Promise<{ send: string } | { error: string }>;
}

/** Every ready server's prompts as slash commands. */
export function promptCommands(hub: McpHub | undefined): PromptCommand[] {
  return (hub?.prompts() ?? []).map(({ command, server, prompt }) => ({
    name: command,
    // The server wrote these: escaped before they reach the terminal in /help.
    usage: escapeControl(prompt.arguments.map((a) => (a.required ? a.name.toUpperCase() : `[${a.name.toUpperCase()}]`)).join(" ")),
    help: escapeControl(`${prompt.description.split("\n")[0] || "a prompt"} (MCP server ${server.def.name})`),
    run: async (words) => {
      const args = promptArguments(prompt, words);
      if (isMissing(args)) return { error: `${command} needs ${args.missing.map((m) => m.toUpperCase()).join(" ")}` };
      try {
        return { send: promptText(await server.getPrompt(prompt.name, args)) };
      } catch (err) {
        return { error: `${command}: ${err instanceof Error ? err.message : String(err)}` };
      }
    },
  }));
}
