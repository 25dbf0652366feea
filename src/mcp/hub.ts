// All of a session's MCP servers: started in parallel, their tools joining
// the registry as each becomes ready (within the schema budget), restarted
// on request, listed for /mcp, stopped when bunker exits. A server that fails
// is a state and one line; the session goes on.
import type { ToolRegistry } from "../tools/registry.ts";
import type { AnyTool } from "../tools/tool.ts";
import { SchemaBudget, schemaBytes, SEARCH_TOOL_NAME } from "./budget.ts";
import type { McpServerDef } from "./config.ts";
import { declinedReason, type ConsentAnswer } from "./consent.ts";
import { McpConnection, type ServerPrompt } from "./connection.ts";
import { mcpPromptCommand, serverPart, sanitize } from "./naming.ts";
import type { LaunchContext } from "./sandbox.ts";
import { mcpTool } from "./tools.ts";

export interface HubOptions {
  /** Servers to start. */
  servers: McpServerDef[];
  /** Servers configured but not started, with why (a project's, not approved). */
  skipped: { def: McpServerDef; reason: string }[];
  /** Asks the person whether a project's server may start (`/mcp start NAME`); absent where no one can be asked. */
  consent?(def: McpServerDef): Promise<ConsentAnswer>;
  launch: LaunchContext;
  registry: ToolRegistry;
  /** One line for the person (a server failed, or joined late). */
  notify(line: string): void;
  startTimeoutMs?: number;
}

export interface ServerRow {
  name: string;
  source: McpServerDef["source"];
  state: string;
  tools: number;
  /** Bytes of its tools' schemas. */
  schemaBytes: number;
  /** Tools held back by the schema budget (found through mcp_tool_search). */
  held: number;
  sandbox: string;
}

export const DEFAULT_START_TIMEOUT_MS = 30_000;
const NETWORK = { all: "all network", "all-but": "all network but denied hosts", hosts: "granted hosts only", none: "no network" } as const;

export class McpHub {
  private readonly conns = new Map<string, McpConnection>();
  private readonly timeoutMs: number;
  private readonly toolNames = new Map<string, string[]>();
  readonly budget: SchemaBudget;
  private firstWaitOver = false;
  /** Servers a command is starting: the command says how it went, so their lines are not said twice. */
  private readonly told = new Set<string>();

  constructor(private readonly opts: HubOptions) {
    this.budget = new SchemaBudget(opts.registry);
    this.timeoutMs = opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    for (const def of opts.servers) this.connect(def);
    opts.registry.setResolver((name) => this.resolve(name));
    this.budget.beforeSearch = async () => void (await Promise.all([...this.conns.values()].map((c) => c.ready)));
    // Each server's sandbox ended and waited for, bounded (unconfined ones are told to go), then the last walk.
    process.once("exit", () => {
      for (const c of this.conns.values()) c.endNow();
      // What a server wrote in its write folders after its last call (a task left running): the git wall's walk, said.
      for (const c of this.conns.values()) for (const line of c.wallNotes()) this.opts.notify(line);
    });
  }

  private connect(def: McpServerDef): McpConnection {
    const conn = new McpConnection(def, this.opts.launch, {
      onState: (c, line) => this.onState(c, line),
      onToolsChanged: (c, before) => this.onToolsChanged(c, before),
    }, this.timeoutMs);
    this.conns.set(def.name, conn);
    return conn;
  }

  /**
   * `/mcp start NAME`: a server not started (declined, or not approved) is asked about
   * again and started on a yes. Returns what to tell the person.
   */
  async startSkipped(name: string): Promise<{ conn: McpConnection } | { refused: string } | undefined> {
    const i = this.opts.skipped.findIndex((s) => s.def.name === name);
    if (i < 0) return undefined;
    const skipped = this.opts.skipped[i]!;
    if (!this.opts.consent) return { refused: `not started: ${skipped.reason}` };
    const answer = await this.opts.consent(skipped.def);
    if (answer !== "yes") {
      skipped.reason = declinedReason(skipped.def, answer);
      return { refused: `not started: ${skipped.reason}` };
    }
    this.opts.skipped.splice(i, 1);
    const conn = this.connect(skipped.def);
    await this.byCommand(name, () => conn.start());
    return { conn };
  }

  /** Starts every server in parallel; resolves when all have settled or after `waitMs`, whichever is first. */
  async start(waitMs: number): Promise<void> {
    const all = Promise.all([...this.conns.values()].map((c) => c.start()));
    await Promise.race([all, Bun.sleep(waitMs)]);
    this.firstWaitOver = true;
    const late = [...this.conns.values()].filter((c) => c.state === "starting").map((c) => c.def.name);
    if (late.length > 0) this.opts.notify(`MCP server${late.length === 1 ? "" : "s"} ${late.join(", ")} still starting; ${late.length === 1 ? "it joins" : "they join"} when ready.`);
  }

  private onState(conn: McpConnection, line?: string): void {
    // A server that stopped keeps its tools: a call says it is not running and how to restart it.
    if (conn.state === "ready") {
      const names = this.register(conn);
      if (this.firstWaitOver && !this.told.has(conn.def.name)) this.opts.notify(`MCP server ${conn.def.name} is ready (${names.length} tool${names.length === 1 ? "" : "s"}).`);
    }
    if (line && !this.told.has(conn.def.name)) this.opts.notify(line);
  }

  /** Puts a ready server's tools in the registry in place of its old ones; returns their registered names. */
  private register(conn: McpConnection): string[] {
    const name = conn.def.name;
    this.budget.removeServer(this.toolNames.get(name) ?? []);
    const names: string[] = [];
    for (const t of conn.tools) {
      const tool = mcpTool(conn, t);
      // Two tools whose names sanitize alike: the first keeps the name.
      if (this.opts.registry.get(tool.name)) continue;
      this.budget.add(tool, name);
      names.push(tool.name);
    }
    this.toolNames.set(name, names);
    return names;
  }

  /** The server's tool list changed mid-session: the model gets the new one from its next request, and the person one line. */
  private onToolsChanged(conn: McpConnection, before: string[]): void {
    this.register(conn);
    const now = conn.tools.map((t) => t.name);
    const added = now.filter((n) => !before.includes(n));
    const removed = before.filter((n) => !now.includes(n));
    const parts = [...(added.length ? [`added ${someNames(added)}`] : []), ...(removed.length ? [`removed ${someNames(removed)}`] : [])];
    this.opts.notify(`MCP server ${conn.def.name} changed its tools${parts.length ? ` (${parts.join("; ")})` : ""}: ${now.length} now.`);
  }

  /** A call to a tool of a server still starting waits for it (the search tool, for them all). */
  private async resolve(toolName: string): Promise<AnyTool | undefined> {
    if (toolName === SEARCH_TOOL_NAME) {
      await this.budget.beforeSearch();
      return this.opts.registry.get(toolName);
    }
    const part = serverPart(toolName);
    if (part === null) return undefined;
    const conn = [...this.conns.values()].find((c) => sanitize(c.def.name) === part);
    if (!conn || conn.state !== "starting") return undefined;
    await conn.ready;
    return this.opts.registry.get(toolName);
  }

  get(name: string): McpConnection | undefined {
    return this.conns.get(name);
  }

  async restart(name: string): Promise<McpConnection | undefined> {
    const conn = this.conns.get(name);
    if (!conn) return undefined;
    await conn.stop();
    this.budget.removeServer(this.toolNames.get(name) ?? []);
    this.toolNames.delete(name);
    await this.byCommand(name, () => conn.start());
    return conn;
  }

  /** Runs a start asked for by a command (/mcp restart, /mcp start), whose answer says how it went. */
  private async byCommand(name: string, start: () => Promise<void>): Promise<void> {
    this.told.add(name);
    try {
      await start();
    } finally {
      this.told.delete(name);
    }
  }

  rows(): ServerRow[] {
    const rows: ServerRow[] = [...this.conns.values()].map((c) => {
      const names = this.toolNames.get(c.def.name) ?? [];
      const tools = names.map((n) => this.opts.registry.get(n)).filter((t): t is AnyTool => t !== undefined);
      return {
        name: c.def.name,
        source: c.def.source,
        state: c.state === "failed" ? `failed: ${c.reason}` : c.state,
        tools: tools.length,
        schemaBytes: tools.reduce((n, t) => n + schemaBytes(t), 0),
        held: names.filter((n) => !this.opts.registry.isOffered(n)).length,
        sandbox: c.def.transport.type === "http" ? "http (bunker connects)" : !c.launched ? (c.state === "starting" ? "" : "never ran") : c.sandboxed ? `sandboxed, ${NETWORK[c.network]}` : "NOT sandboxed",
      };
    });
    for (const s of this.opts.skipped) {
      rows.push({ name: s.def.name, source: s.def.source, state: `not started: ${s.reason}`, tools: 0, schemaBytes: 0, held: 0, sandbox: "" });
    }
    return rows;
  }

  /** Every ready server's prompts, as slash commands. */
  prompts(): { command: string; server: McpConnection; prompt: ServerPrompt }[] {
    return [...this.conns.values()].flatMap((c) => (c.state === "ready" ? c.prompts.map((p) => ({ command: mcpPromptCommand(c.def.name, p.name), server: c, prompt: p })) : []));
  }

  async close(): Promise<void> {
    await Promise.all([...this.conns.values()].map((c) => c.stop()));
  }
}

/** A few names and how many more: a server may list thousands. */
function someNames(names: string[], shown = 5): string {
  const head = names.slice(0, shown).map((n) => (n.length > 60 ? `${n.slice(0, 60)}…` : n)).join(", ");
  return names.length > shown ? `${head} and ${names.length - shown} more` : head;
}
