// The in-sandbox end of the proxy path:
//   `bunker __net-forward SOCKET PORT [--tunnel ADDR:PORT]… -- COMMAND…`
// listens on 127.0.0.1:PORT inside the command's network namespace, carries
// each connection to bunker's proxy on the Unix socket SOCKET (bound into
// the sandbox), runs COMMAND with the terminal's streams, and exits with its
// status. Each --tunnel is a host loopback port the person granted: the
// sandbox's own loopback is not the host's, and NO_PROXY sends loopback
// connections straight to it, so the forwarder listens on ADDR:PORT in the
// sandbox too and carries each connection to the proxy as
// `CONNECT ADDR:PORT` (judged there like any other). bunker's own binary is the forwarder, so nothing needs installing.
// It sits in front of every command that may use the network, so it uses
// Bun's own sockets: loading node:net cost each command about 4 ms more.
import { escapeControl } from "../ui/escape.ts";
import { constants } from "node:os";
import { selfInvocation } from "../self-command.ts";

export const FORWARD_SUBCOMMAND = "__net-forward";

/** One direction of a connection: bytes the peer has not taken yet, and whether the sender has finished. */
interface Side {
  peer?: Bun.Socket<Side>;
  /** Bytes read from this socket that the peer's send buffer has not accepted yet. */
  pending: Uint8Array[];
  ended: boolean;
  closed: boolean;
}

const side = (): Side => ({ pending: [], ended: false, closed: false });

/** Writes what is pending from `from` to its peer; true when all of it went. */
function flush(from: Bun.Socket<Side>): boolean {
  const { peer, pending } = from.data;
  if (!peer) return false;
  while (pending.length > 0) {
    const chunk = pending[0]!;
    const n = peer.write(chunk);
    if (n < chunk.length) {
      pending[0] = chunk.subarray(Math.max(n, 0));
      return false;
    }
    pending.shift();
  }
  return true;
}

/** After `from`'s bytes are all with its peer: resume reading, or pass on the end of its stream. */
function settle(from: Bun.Socket<Side>): void {
  if (!flush(from)) return void from.pause();
  if (from.data.closed) from.data.peer?.end();
  else if (from.data.ended) from.data.peer?.shutdown(); // half-close: the answer may still come back
  else from.resume();
}

/** The handlers both ends share: read, pass on when the peer can take it, end the peer when done, cut both on error. */
const relay: Bun.SocketHandler<Side> = {
  data(s, chunk) {
    s.data.pending.push(new Uint8Array(chunk));
    settle(s);
  },
  drain(s) {
    // `s` can take more: what its peer has been holding back goes now.
    if (s.data.peer) settle(s.data.peer);
  },
  end(s) {
    s.data.ended = true;
    settle(s);
  },
  close(s) {
    s.data.closed = true;
    if (s.data.pending.length === 0) s.data.peer?.end();
  },
  error(s) {
    s.terminate();
    s.data.peer?.terminate();
  },
};

/** The proxy's side of a tunnel: the head of its answer to CONNECT, until it is whole. */
interface TunnelSide extends Side {
  head?: Uint8Array;
}

const HEAD_END = "\r\n\r\n";

/**
 * Listens on `hostname:port` and carries each connection to the proxy on `socket`;
 * with `tunnelTo`, each first asks the proxy for `CONNECT tunnelTo` and is cut when refused.
 */
function listenToProxy(hostname: string, port: number, socket: string, tunnelTo?: string): Bun.TCPSocketListener<Side> {
  return Bun.listen<Side>({
    hostname,
    port,
    data: side(),
    socket: {
      ...relay,
      open(client) {
        client.data = side();
        client.pause(); // nothing is read until the proxy end is there to take it
        client.setNoDelay(true);
        const connected = (upstream: Bun.Socket<Side>) => {
          client.data.peer = upstream;
          settle(client);
        };
        const data: TunnelSide = { ...side(), peer: client };
        if (tunnelTo !== undefined) data.head = new Uint8Array(0);
        Bun.connect<TunnelSide>({ unix: socket, data, socket: {
          ...relay,
          open(upstream) {
            if (tunnelTo === undefined) return connected(upstream);
            upstream.write(`CONNECT ${tunnelTo} HTTP/1.1\r\nHost: ${tunnelTo}\r\n\r\n`);
          },
          data(upstream, chunk) {
            const head = upstream.data.head;
            if (head === undefined) return relay.data!(upstream, chunk);
            const all = new Uint8Array(head.length + chunk.length);
            all.set(head);
            all.set(chunk, head.length);
            const text = Buffer.from(all).toString("latin1");
            const end = text.indexOf(HEAD_END);
            if (end === -1) return void (upstream.data.head = all);
            delete upstream.data.head;
            // Refused (the proxy recorded why, and run_bash says so): the program sees the connection cut.
            if (!/^HTTP\/1\.[01] 200 /.test(text)) return void (upstream.terminate(), client.terminate());
            const rest = all.subarray(end + HEAD_END.length);
            if (rest.length > 0) upstream.data.pending.push(rest);
            connected(upstream);
            settle(upstream);
          },
          connectError() {
            client.terminate();
          },
        } }).catch(() => client.terminate());
      },
    },
  });
}

/** Runs the forwarder with the words after the subcommand; resolves to the exit status. */
/**
 * The forwarder's flag that makes it untraceable (PR_SET_DUMPABLE 0: ptrace, /proc/PID/mem and pidfd_getfd then need
 * a capability no sandboxed process has). An MCP server refused Unix sockets (no-unix-sockets.ts) would otherwise
 * have its parent, the forwarder, make them for it (red team 9's F12). Costs bun:ffi's start, so only where needed.
 */
export const UNDUMPABLE = "--undumpable";
const PR_SET_DUMPABLE = 4;

export async function runForwarder(args: string[]): Promise<number> {
  const [socket, portText, ...rest] = args;
  const port = Number(portText);
  if (rest[0] === UNDUMPABLE) {
    rest.shift();
    const { openLibc } = await import("../sandbox/landlock.ts");
    if (openLibc()?.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) !== 0) {
      process.stderr.write(`bunker ${FORWARD_SUBCOMMAND}: could not make itself untraceable (prctl PR_SET_DUMPABLE); the program was not started\n`);
      return 126;
    }
  }
  const tunnels: { host: string; port: number }[] = [];
  while (rest[0] === "--tunnel" && rest.length > 1) {
    // 127.0.0.1:8765, or [::1]:8765 (listened on as ::1).
    const m = /^(\d{1,3}(?:\.\d{1,3}){3}|\[::1\]):(\d{1,5})$/.exec(rest[1]!);
    if (!m) break;
    tunnels.push({ host: m[1]!, port: Number(m[2]) });
    rest.splice(0, 2);
  }
  const [sep, ...command] = rest;
  if (!socket || !Number.isInteger(port) || sep !== "--" || command.length === 0) {
    process.stderr.write(`bunker ${FORWARD_SUBCOMMAND}: usage: SOCKET PORT [--undumpable] [--tunnel ADDR:PORT]… -- COMMAND…\n`);
    return 2;
  }
  const servers: Bun.TCPSocketListener<Side>[] = [];
  try {
    servers.push(listenToProxy("127.0.0.1", port, socket));
  } catch (err) {
    process.stderr.write(`bunker: the network proxy could not listen on 127.0.0.1:${port}: ${escapeControl((err as Error).message)}\n`);
    return 1;
  }
  for (const t of tunnels) {
    // A port below 1024 cannot be bound without privileges (none is given: gate.ts leaves those out), nor ::1 where
    // the kernel has IPv6 off: that grant then reaches web_fetch and proxied clients only.
    try {
      servers.push(listenToProxy(t.host.replace(/^\[|\]$/g, ""), t.port, socket, `${t.host}:${t.port}`));
    } catch {}
  }
  for (const s of servers) s.unref();
  const child = Bun.spawn(command, { stdio: ["inherit", "inherit", "inherit"] });
  const code = await child.exited;
  for (const s of servers) s.stop(true);
  const signal = child.signalCode as keyof typeof constants.signals | null;
  return signal ? 128 + (constants.signals[signal] ?? 0) : code;
}


/**
 * How to start the forwarder from this bunker: the compiled binary runs
 * itself; from source, bun runs main.ts. `paths` must be readable in the sandbox.
 */
export function forwarderCommand(): { argv: string[]; paths: string[] } {
  return selfInvocation(FORWARD_SUBCOMMAND);
}
