// One MCP server: started (in its sandbox, or over HTTP), its tools and
// prompts listed, calls made with a timeout and Ctrl+C, and every way it can
// fail turned into a state and one sentence: it did not start, it stopped,
// it printed something that is not MCP, it did not answer in time, it sent
// an invalid result. Nothing here throws into the session except McpCallError,
// which the tool turns into a tool error for the model.
import { Client } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/client";
import { SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { version } from "../build-info.ts";
import type { McpServerDef } from "./config.ts";
import { httpServerDenial, LaunchError, launchStdio, type LaunchContext } from "./sandbox.ts";
import { SandboxedStdioTransport } from "./stdio.ts";
import { endTree, processTree } from "../sandbox/reaper.ts";
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";

export type ServerState = "starting" | "ready" | "failed" | "stopped";

export interface ServerTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnlyHint: boolean;
}

export interface ServerPrompt {
  name: string;
  description: string;
  arguments: { name: string; required: boolean; description?: string }[];
}

export class McpCallError extends Error {
  override name = "McpCallError";
}

/** Non-MCP lines on stdout before the handshake that mean "this is not an MCP server". */
const GARBAGE_LINES_TO_FAIL = 3;
const STDERR_TAIL = 20;

export interface ConnectionEvents {
  /** The state changed (started, failed, stopped): one line for the person when `line` is set. */
  onState(conn: McpConnection, line?: string): void;
  /** A ready server said its tools changed (notifications/tools/list_changed) and they were listed again. */
  onToolsChanged?(conn: McpConnection, before: string[]): void;
}

export class McpConnection {
  state: ServerState = "stopped";
  /** Whether the program was launched this start (a launch refused or not found never ran: it has no confinement to show). */
  launched = false;
  /** Why it failed or stopped, in words. */
  reason = "";
  tools: ServerTool[] = [];
  prompts: ServerPrompt[] = [];
  /** Whether it runs confined, and what network it has (stdio servers). */
  sandboxed = false;
  network: "all" | "all-but" | "hosts" | "none" = "none";
  private closeLaunch: (() => Promise<void>) | undefined;
  private afterCall: (() => string[]) | undefined;
  private client: Client | undefined;
  private transport: Transport | undefined;
  private readonly stderrTail: string[] = [];
  private garbage = 0;
  private generation = 0;
  /** Settles when the current start attempt does. */
  ready: Promise<void> = Promise.resolve();

  constructor(
    readonly def: McpServerDef,
    private readonly launch: LaunchContext,
    private readonly events: ConnectionEvents,
    private readonly startTimeoutMs: number,
  ) {}

  /** Starts (or restarts) the server; never throws: failure is a state with a reason. */
  start(): Promise<void> {
    this.relaunched = false;
    return this.attempt();
  }

  /** A start that failed only because a socket masked for it went away before bwrap started, launched once more. */
  private relaunched = false;
  private socketVanished: ((firstLine: string, exitCode: number | null, setupStatus: string | undefined) => boolean) | undefined;
  private relaunchFor = 0;

  private attempt(): Promise<void> {
    const gen = ++this.generation;
    this.state = "starting";
    this.reason = "";
    this.launched = false;
    this.tools = [];
    this.prompts = [];
    this.garbage = 0;
    this.stderrTail.length = 0;
    this.ready = this.connect(gen).catch(async (err: unknown) => {
      if (this.relaunchFor === gen) {
        // Looked at again and started once more: the promise callers wait on settles with that start.
        this.relaunchFor = 0;
        this.relaunched = true;
        await this.dispose();
        return this.attempt();
      }
      if (gen !== this.generation) return;
      const why = this.explain(err);
      void this.dispose();
      // bunker refused or could not find the program: its message says what to change; starting it again changes nothing.
      this.fail(`did not start: ${why}`, !(err instanceof LaunchError));
    });
    return this.ready;
  }

  private async connect(gen: number): Promise<void> {
    const transport = await this.makeTransport();
    this.transport = transport;
    const client = new Client({ name: "bunker", version }, {
      capabilities: {},
      // A server may add or drop tools mid-session: the model is offered the new list from the next request.
      listChanged: {
        tools: { onChanged: (err, tools) => this.onToolsListed(gen, err, tools) },
        prompts: { onChanged: (err, prompts) => { if (!err && prompts && gen === this.generation && this.state === "ready") this.prompts = prompts.map(toPrompt); } },
      },
    });
    this.client = client;
    client.onclose = () => this.onClose(gen);
    const timeout = AbortSignal.timeout(this.startTimeoutMs);
    const guard = new Promise<never>((_, reject) =>
      timeout.addEventListener("abort", () => reject(new McpCallError(`it did not finish starting within ${Math.round(this.startTimeoutMs / 1000)} s`))),
    );
    await Promise.race([client.connect(transport, { timeout: this.startTimeoutMs }), guard]);
    const caps = client.getServerCapabilities();
    // Asked only of a server that says it has them: the SDK logs to stdout (the answer, headless) otherwise.
    const listed = caps?.tools ? await Promise.race([client.listTools(undefined, { timeout: this.startTimeoutMs }), guard]) : { tools: [] };
    const prompts = caps?.prompts ? await Promise.race([client.listPrompts(undefined, { timeout: this.startTimeoutMs }), guard]).catch(() => ({ prompts: [] })) : { prompts: [] };
    if (gen !== this.generation) return;
    this.tools = listed.tools.map(toServerTool);
    this.prompts = prompts.prompts.map(toPrompt);
    this.state = "ready";
    this.events.onState(this);
  }

  /** The SDK listed the tools again after the server said they changed. A failed listing keeps the old ones. */
  private onToolsListed(gen: number, err: Error | null, tools: ListedTool[] | null): void {
    if (gen !== this.generation || this.state !== "ready") return;
    if (err || !tools) {
      this.events.onState(this, `MCP server ${this.def.name} said its tools changed, but listing them again failed (${cut(err?.message ?? "no answer", 160)}); the old list stays.`);
      return;
    }
    const before = this.tools.map((t) => t.name);
    this.tools = tools.map(toServerTool);
    this.events.onToolsChanged?.(this, before);
  }

  private async makeTransport(): Promise<Transport> {
    const t = this.def.transport;
    if (t.type === "http") {
      const url = new URL(t.url);
      const denied = httpServerDenial(this.def, url, this.launch);
      if (denied) throw new LaunchError(denied);
      const requestInit = { headers: t.headers };
      return url.pathname.endsWith("/sse") ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
    }
    const l = await launchStdio(this.def, this.launch);
    this.launch.beforeSpawn?.();
    this.socketVanished = l.socketVanished;
    this.launched = true;
    this.sandboxed = l.sandboxed;
    this.network = l.network;
    this.closeLaunch = l.close;
    this.afterCall = l.afterCall;
    const gen = this.generation;
    return new SandboxedStdioTransport(l, {
      // Lines on stdout that are not JSON-RPC before the handshake: a server that logs to stdout, or no MCP server at all.
      onGarbage: (line) => {
        if (gen !== this.generation || this.state !== "starting" || ++this.garbage < GARBAGE_LINES_TO_FAIL) return;
        this.generation++;
        void this.dispose();
        this.fail(`did not start: it printed something that is not MCP on its output ("${cut(line, 80)}")`);
      },
      // The last lines it wrote to stderr, for the one-line reason; never more.
      onStderr: (line) => {
        if (!line.trim()) return;
        this.stderrTail.push(line.slice(0, 400));
        if (this.stderrTail.length > STDERR_TAIL) this.stderrTail.shift();
      },
    });
  }

  private onClose(gen: number): void {
    if (gen !== this.generation) return;
    const code = this.transport instanceof SandboxedStdioTransport ? this.transport.exitCode : null;
    const status = this.transport instanceof SandboxedStdioTransport ? this.transport.setupStatus : undefined;
    if (this.state === "starting" && !this.relaunched && this.socketVanished?.(this.stderrTail[0] ?? "", code, status)) {
      // Not a failure of the server's: the start's pending handshake fails now, and its catch starts it again.
      this.relaunchFor = gen;
      return;
    }
    if (this.state === "ready" || this.state === "starting") {
      const was = this.state;
      this.generation++;
      this.fail(was === "ready" ? `stopped${this.lastWords()}` : `did not start: it exited${this.lastWords()}${this.relativeHint()}`);
    }
  }

  private fail(reason: string, restartHelps = true): void {
    this.state = "failed";
    this.reason = reason;
    this.events.onState(this, `MCP server ${this.def.name} ${reason}.${restartHelps ? ` /mcp restart ${this.def.name} starts it again.` : ""}`);
  }

  private lastWords(): string {
    const code = this.transport instanceof SandboxedStdioTransport ? this.transport.exitCode : null;
    const last = this.stderrTail.at(-1);
    const parts = [...(code !== null ? [`exit status ${code}`] : []), ...(last ? [`its last words: ${cut(last, 160)}`] : [])];
    return parts.length ? ` (${parts.join("; ")})` : "";
  }

  /**
   * The person's own server starts in its state directory, not the workspace (sandbox.ts): a relative path among its
   * arguments is taken from there, which a failure should say (the new user's `bun mcp-local.ts`: "Module not found").
   */
  private relativeHint(): string {
    const t = this.def.transport;
    if (this.def.source !== "user" || t.type !== "stdio") return "";
    const relative = t.args.find((a) => !a.startsWith("-") && !isAbsolute(a) && /[/.]/.test(a) && existsSync(join(this.launch.root, a)));
    return relative ? `; it runs in its own state folder, not the workspace, so name ${relative} by its full path (${join(this.launch.root, relative)})` : "";
  }

  private explain(err: unknown): string {
    const message = err instanceof Error ? err.message : String(err);
    // bunker's own words, ending in the advice: never cut.
    if (err instanceof LaunchError) return message;
    if (/ENOENT|spawn/.test(message)) return `it could not be run: ${message}`;
    if (/Connection closed/i.test(message)) return `it exited${this.lastWords()}${this.relativeHint()}`;
    if (/ECONNREFUSED|fetch failed|Unable to connect/i.test(message)) return `nothing answers at ${this.def.transport.type === "http" ? this.def.transport.url : "its address"}`;
    return `${cut(message, 200)}${this.lastWords()}`;
  }

  /**
   * The git wall's walk of its `write` folders, after a call (it may also have written between calls): what it
   * planted for the person's git and tools, disarmed or set aside, one line each. Never throws.
   */
  wallNotes(): string[] {
    try {
      return this.afterCall?.() ?? [];
    } catch (e) {
      return [`bunker could not check what the MCP server ${this.def.name} wrote (${e instanceof Error ? e.message : String(e)}): before running git in ${this.def.write.join(", ")}, look at what it made`];
    }
  }

  /** Calls a tool; throws McpCallError with a sentence the model and the person can act on. */
  async call(tool: string, args: Record<string, unknown>, opts: { signal: AbortSignal }): Promise<unknown> {
    if (this.state === "starting") await this.ready;
    const client = this.client;
    if (this.state !== "ready" || !client) {
      throw new McpCallError(`the MCP server ${this.def.name} is not running (${this.reason || this.state}). The person can restart it with /mcp restart ${this.def.name}.`);
    }
    const seconds = Math.round(this.def.timeoutMs / 1000);
    try {
      return await client.callTool({ name: tool, arguments: args }, { timeout: this.def.timeoutMs, signal: opts.signal });
    } catch (err) {
      if (opts.signal.aborted) throw new McpCallError("Interrupted by the user.");
      const message = err instanceof Error ? err.message : String(err);
      const code = (err as { code?: unknown }).code;
      if (code === "REQUEST_TIMEOUT" || /timed out/i.test(message)) {
        throw new McpCallError(`the MCP server ${this.def.name} did not answer ${tool} within ${seconds} s; the call was cancelled. Try something smaller, or another way.`);
      }
      if (code === "CONNECTION_CLOSED" || /Connection closed|Not connected/i.test(message)) {
        throw new McpCallError(`the MCP server ${this.def.name} stopped during ${tool}${this.lastWords()}. It is not running now; the person can restart it with /mcp restart ${this.def.name}.`);
      }
      throw new McpCallError(`the MCP server ${this.def.name} failed on ${tool}: ${cut(message, 400)}`);
    }
  }

  async getPrompt(name: string, args: Record<string, string>): Promise<{ role: string; content: unknown }[]> {
    if (this.state === "starting") await this.ready;
    if (this.state !== "ready" || !this.client) throw new McpCallError(`the MCP server ${this.def.name} is not running (${this.reason || this.state})`);
    const r = await this.client.getPrompt({ name, arguments: args }, { timeout: this.def.timeoutMs });
    return r.messages;
  }

  /** The server's process id (stdio), for the exit hook. */
  get pid(): number | null {
    return this.transport instanceof SandboxedStdioTransport ? this.transport.pid : null;
  }

  async stop(): Promise<void> {
    this.generation++;
    this.state = "stopped";
    this.reason = "stopped";
    await this.dispose();
  }

  /**
   * bunker is exiting: its sandbox is ended, and waited for (bounded), so the last walk (wallNotes) comes after
   * anything it left running can write. An unconfined server is only told to go.
   */
  endNow(): void {
    const pid = this.pid;
    if (!pid) return;
    // (The tree is read from /proc: elsewhere, macOS's Seatbelt, it is told to go as before.)
    if (this.sandboxed && process.platform === "linux") endTree(pid, processTree(pid));
    else signalQuietly(pid, "SIGTERM");
  }

  private async dispose(): Promise<void> {
    const client = this.client;
    const closeLaunch = this.closeLaunch;
    const walked = this.afterCall !== undefined;
    // What runs in its sandbox now (taken before it is closed: its pid may be reused once it is reaped).
    const pid = this.pid;
    const tree = pid && walked ? processTree(pid) : null;
    this.client = undefined;
    this.transport = undefined;
    this.closeLaunch = undefined;
    try {
      await client?.close();
    } catch {
      // already gone
    }
    await closeLaunch?.().catch(() => undefined);
    // Its sandbox gone (bounded) before the walk: a task it left running cannot write after the walk.
    if (pid && tree) endTree(pid, tree);
    // What it wrote in its write folders after its last call (a task left running), once it is stopped: said to the person.
    if (walked) for (const line of this.wallNotes()) this.events.onState(this, line);
    this.afterCall = undefined;
  }
}

type ListedTool = Awaited<ReturnType<Client["listTools"]>>["tools"][number];
type ListedPrompt = Awaited<ReturnType<Client["listPrompts"]>>["prompts"][number];

function toServerTool(t: ListedTool): ServerTool {
  return {
    name: t.name,
    description: t.description ?? t.title ?? "",
    inputSchema: withoutMeta(t.inputSchema as Record<string, unknown>),
    readOnlyHint: t.annotations?.readOnlyHint === true,
  };
}

function toPrompt(p: ListedPrompt): ServerPrompt {
  return {
    name: p.name,
    description: p.description ?? "",
    arguments: (p.arguments ?? []).map((a) => ({ name: a.name, required: a.required === true, ...(a.description ? { description: a.description } : {}) })),
  };
}

/** `$schema` and the like cost schema budget and tell the model nothing. */
function withoutMeta(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _s, ...rest } = schema;
  return rest;
}

function cut(text: string, max: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

function signalQuietly(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone
  }
}
