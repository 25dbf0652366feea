// The stdio transport for a sandboxed server, on Bun.spawn: newline-framed
// JSON-RPC on stdin/stdout, as the SDK's own, plus what bunker needs to say
// what went wrong — lines on stdout that are not MCP are counted (the SDK's
// transport skips them silently, so a server that prints only a banner would
// just hang), stderr is kept as a short tail (never all of it), the exit
// status is known, and one message larger than the cap ends the connection.
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/client";
import type { Subprocess } from "bun";
import { inheritedFds } from "../sandbox/self-binary.ts";
import { STATUS_FD, withSetupStatus } from "../sandbox/bubblewrap.ts";
import { readSync, closeSync } from "node:fs";

export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The bwrap program the command line runs, when it does: asked for its status report (bubblewrap.ts withSetupStatus). */
  bwrap?: string;
}

export interface StdioHooks {
  /** A line on stdout that is not a JSON-RPC message. */
  onGarbage(line: string): void;
  /** A line on stderr. */
  onStderr(line: string): void;
}

/** One message larger than this ends the connection. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const KILL_GRACE_MS = 2000;

export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The exit status once it has exited (a signal as 128+n), else null. */
  exitCode: number | null = null;
  /** What bwrap wrote on its status descriptor (bubblewrap.ts withSetupStatus), once it has exited; undefined when not asked. */
  setupStatus: string | undefined;
  private proc: Subprocess<"pipe", "pipe", "pipe"> | undefined;

  constructor(
    private readonly launch: StdioLaunch,
    private readonly hooks: StdioHooks,
  ) {}

  get pid(): number | null {
    return this.proc?.pid ?? null;
  }

  async start(): Promise<void> {
    const given = [this.launch.command, ...this.launch.args];
    const argv = this.launch.bwrap ? withSetupStatus(given, this.launch.bwrap) ?? given : given;
    const inherited = inheritedFds(argv);
    // bwrap's status report, when it was asked for one: whether it started the server, read from bwrap, not the server.
    const reported = argv.some((a, i) => a === "--json-status-fd" && argv[i + 1] === String(STATUS_FD));
    const proc = Bun.spawn(argv, {
      cwd: this.launch.cwd,
      env: this.launch.env,
      // bunker's binary, where bwrap binds it for the checker and the forwarder (self-binary.ts).
      stdio: reported ? ["pipe", "pipe", "pipe", inherited[0] ?? "ignore", "pipe"] : ["pipe", "pipe", "pipe", ...inherited],
    });
    const statusFd = reported ? (proc.stdio[STATUS_FD] as unknown as number) : undefined;
    this.proc = proc;
    void this.readLines(proc.stdout, MAX_MESSAGE_BYTES, (line) => this.onLine(line));
    const stderrRead = this.readLines(proc.stderr, 64 * 1024, (line) => this.hooks.onStderr(line));
    // Its last words read before the close is said (bwrap's one line when it could not start it: connection.ts), a
    // little while at most (a child of it may hold stderr open).
    void proc.exited.then(async (code) => {
      await Promise.race([stderrRead, Bun.sleep(200)]);
      this.exitCode = proc.signalCode ? 128 + (SIGNALS[proc.signalCode] ?? 0) : code;
      if (typeof statusFd === "number") this.setupStatus = drain(statusFd);
      this.proc = undefined;
      this.onclose?.();
    });
  }

  private onLine(line: string): void {
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch {
      this.hooks.onGarbage(line);
      return;
    }
    this.onmessage?.(message);
  }

  /** Splits a stream into lines; a line longer than `max` ends the connection (stdout) or is cut (stderr). */
  private async readLines(stream: ReadableStream<Uint8Array>, max: number, each: (line: string) => void): Promise<void> {
    const decoder = new TextDecoder();
    let partial = "";
    try {
      for await (const chunk of stream) {
        partial += decoder.decode(chunk, { stream: true });
        let nl = partial.indexOf("\n");
        while (nl !== -1) {
          each(partial.slice(0, nl).replace(/\r$/, ""));
          partial = partial.slice(nl + 1);
          nl = partial.indexOf("\n");
        }
        if (partial.length > max) {
          if (stream === this.proc?.stdout) {
            this.onerror?.(new Error(`it sent a message larger than ${max / 1024 / 1024} MB`));
            void this.close();
            return;
          }
          partial = partial.slice(-max);
        }
      }
    } catch {
      // the process went away: onclose says so
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const proc = this.proc;
    if (!proc) throw new Error("Not connected");
    try {
      // A write the pipe cannot take at once settles later: awaited, so a broken pipe is this call's error, never an unhandled one.
      await proc.stdin.write(serializeMessage(message));
      await proc.stdin.flush();
    } catch (err) {
      if ((err as { code?: unknown }).code !== "EPIPE") throw err;
      // The server exited (or closed its input) before reading: said as the exit it is, with its status once known.
      await Promise.race([proc.exited, Bun.sleep(KILL_GRACE_MS)]);
      throw new Error("Connection closed: the server exited before reading what was sent");
    }
  }

  async close(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    try {
      proc.stdin.end();
    } catch {
      // already closed
    }
    const exited = (ms: number) => Promise.race([proc.exited.then(() => true), Bun.sleep(ms).then(() => false)]);
    if (await exited(KILL_GRACE_MS)) return;
    proc.kill("SIGTERM");
    if (await exited(KILL_GRACE_MS)) return;
    proc.kill("SIGKILL");
  }
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGSEGV: 11, SIGTERM: 15, SIGABRT: 6 };

/** What is left in a pipe whose writer has exited (bwrap's few status lines), then closed. */
function drain(fd: number): string {
  const chunks: Buffer[] = [];
  try {
    const buf = Buffer.alloc(4096);
    for (let n = readSync(fd, buf); n > 0 && chunks.length < 16; n = readSync(fd, buf)) chunks.push(Buffer.from(buf.subarray(0, n)));
  } catch {
    // EAGAIN: nothing more
  }
  try {
    closeSync(fd);
  } catch {
    // closed already
  }
  return Buffer.concat(chunks).toString("utf8");
}
