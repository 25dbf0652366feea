// Network for one sandboxed command: a proxy of its own (so a question names
// the command that asked), reached from inside the sandbox through the
// forwarder on 127.0.0.1:PORT (bubblewrap) or on the host's loopback port
// that the Seatbelt profile alone allows (macOS). The command is told where
// it is through HTTP_PROXY and friends; its own loopback stays direct.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { UNDUMPABLE, forwarderCommand } from "./forwarder.ts";
import { NetProxy, type NetGate, type Refusal } from "./proxy.ts";
import { processFolder, tmpFolder } from "../sandbox/private-folder.ts";

/** What the sandbox must provide for the proxy path (SandboxSpec.netProxy). */
export interface NetProxySpec {
  /** Linux: the proxy's Unix socket on the host, bound at PROXY_SOCKET_IN_SANDBOX. */
  socket?: string;
  /** The port commands connect to: inside the sandbox's own network namespace (Linux), or on the host (macOS). */
  port: number;
  /** Paths the forwarder needs to be readable (bunker's binary, or bun and the source). */
  readable: string[];
}

export const PROXY_SOCKET_IN_SANDBOX = "/run/bunker-net/proxy.sock";

/** The extra bubblewrap arguments for the proxy path: the socket, and the forwarder's own files. */
export function proxyBwrapArgs(p: NetProxySpec): string[] {
  const args: string[] = [];
  if (p.socket) args.push("--dir", "/run/bunker-net", "--ro-bind", p.socket, PROXY_SOCKET_IN_SANDBOX);
  return args;
}

/** The Seatbelt rule for the proxy path: outbound to the proxy's loopback port, nothing else. */
export function proxySeatbeltRule(p: NetProxySpec): string {
  return `; network: only bunker's proxy on localhost:${p.port} (it judges each host)\n(allow network-outbound (remote ip "localhost:${p.port}"))`;
}

/** HTTP_PROXY and the rest, upper and lower case: curl, git, bun, npm, pip and cargo read one or the other. */
export function proxyEnv(proxyUrl: string): Record<string, string> {
  const noProxy = "localhost,127.0.0.1,::1";
  return {
    HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, ALL_PROXY: proxyUrl, http_proxy: proxyUrl, https_proxy: proxyUrl, all_proxy: proxyUrl,
    NO_PROXY: noProxy, no_proxy: noProxy,
  };
}

export interface CommandNet {
  spec: NetProxySpec;
  env: Record<string, string>;
  /**
   * The command line to give the sandbox: wrapped in the forwarder where one is needed. `undumpable`: the forwarder
   * makes itself untraceable first (an MCP server under no-unix-sockets.ts's filter must not borrow its sockets).
   */
  wrap(argv: string[], o?: { undumpable?: boolean }): string[];
  refusals(): readonly Refusal[];
  close(): Promise<void>;
}

/**
 * Starts the proxy for one command; `kind` is the sandbox it runs in. `tunnels`: granted host loopback
 * targets ("127.0.0.1:8765") the forwarder also listens on inside the sandbox (Linux; on macOS the host's loopback is the command's).
 */
export async function startCommandNet(kind: "bubblewrap" | "seatbelt", gate: NetGate, tunnels: readonly string[] = [], fwd = forwarderCommand()): Promise<CommandNet> {
  if (kind === "seatbelt") {
    // No network namespace on macOS: the proxy listens on the host's loopback, behind a password only the command holds.
    const password = crypto.randomUUID();
    const proxy = new NetProxy({ gate, credentials: `bunker:${password}` });
    const port = await proxy.listenLoopback();
    return {
      spec: { port, readable: [] },
      env: proxyEnv(`http://bunker:${password}@127.0.0.1:${port}`),
      wrap: (argv) => argv,
      refusals: () => proxy.refusals,
      close: () => proxy.close(),
    };
  }
  const socket = socketPath();
  const proxy = new NetProxy({ gate });
  try {
    await proxy.listenUnix(socket);
  } catch (err) {
    rmSync(socket, { force: true });
    throw err;
  }
  // Any port is free in the command's fresh network namespace; a random one rarely meets a server the command starts.
  let port = 20_000 + Math.floor(Math.random() * 40_000);
  while (tunnels.some((t) => t.endsWith(`:${port}`))) port = 20_000 + Math.floor(Math.random() * 40_000);
  const tunnelArgs = tunnels.flatMap((t) => ["--tunnel", t]);
  return {
    spec: { socket, port, readable: fwd.paths },
    env: proxyEnv(`http://127.0.0.1:${port}`),
    wrap: (argv, o) => [...fwd.argv, PROXY_SOCKET_IN_SANDBOX, String(port), ...(o?.undumpable ? [UNDUMPABLE] : []), ...tunnelArgs, "--", ...argv],
    refusals: () => proxy.refusals,
    close: async () => {
      await proxy.close();
      rmSync(socket, { force: true });
    },
  };
}

/**
 * A path for a command's proxy socket: in a folder of this bunker's own in its private folder, where no command can
 * put a listener of its own in the proxy's place for the commands after it (in $TMPDIR a command granted /tmp could),
 * and which the next bunker sweeps away if this one is killed; in $TMPDIR only when that path is too
 * long for a socket (108 bytes on Linux): one of its own there too (private-folder.ts), swept the same way.
 */
let sockets: string | undefined;
let shortSockets: string | undefined;
let made = 0;
function socketPath(): string {
  sockets ??= processFolder("bunker-net");
  const path = join(sockets, `${++made}.sock`);
  if (Buffer.byteLength(path) < 100) return path;
  shortSockets ??= processFolder("bunker-net", tmpFolder());
  return join(shortSockets, `${made}.sock`);
}

/** What run_bash adds to a command's result when the proxy refused connections. */
export function refusalNote(refusals: readonly Refusal[]): string | null {
  if (refusals.length === 0) return null;
  const seen = new Map<string, string>();
  for (const r of refusals) if (!seen.has(r.target)) seen.set(r.target, r.reason);
  const lines = [...seen].map(([target, reason]) => `bunker's network proxy refused ${target}: ${reason}`);
  return `note: ${lines.join("\nnote: ")}`;
}

const REFUSED = /couldn't connect|connection refused|econnrefused|failed to connect/i;
const LOOPBACK_URL = /(\blocalhost|\b127(?:\.\d{1,3}){3}|\[::1\]):(\d{1,5})\b/g;

/**
 * When a command failed to connect and names a loopback address:port not granted (`tunnels`: those that are):
 * one line saying the sandbox's loopback is its own and which flag reaches the person's server there. Null otherwise.
 */
export function loopbackNote(command: string, output: string, tunnels: readonly string[]): string | null {
  if (!REFUSED.test(output)) return null;
  const missing = new Set<string>();
  const low = new Set<string>();
  for (const m of command.matchAll(LOOPBACK_URL)) {
    const target = `${m[1] === "localhost" ? "127.0.0.1" : m[1]}:${Number(m[2])}`;
    if (tunnels.includes(target)) continue;
    (Number(m[2]) < 1024 ? low : missing).add(target);
  }
  if (low.size > 0) {
    const list = [...low].join(", ");
    return `note: in the sandbox, localhost is the command's own loopback, and nothing there may listen on a port below 1024, so bunker cannot carry ${list} to the person's machine; a client told to use bunker's proxy for it (curl --noproxy '' …) reaches it when granted: --allow-net=${[...low].join(",")}`;
  }
  if (missing.size === 0) return null;
  const flag = `--allow-net=${[...missing].join(",")}`;
  return `note: in the sandbox, localhost is the command's own loopback (a server the command starts is there); a server on the person's machine at ${[...missing].join(", ")} is reached only when granted: ${flag}`;
}
