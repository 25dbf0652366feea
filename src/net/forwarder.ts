// The in-sandbox end of the proxy path: `bunker __net-forward SOCKET PORT -- COMMAND…`
// listens on 127.0.0.1:PORT inside the command's network namespace, carries
// each connection to bunker's proxy on the Unix socket SOCKET (bound into
// the sandbox), runs COMMAND with the terminal's streams, and exits with its
// status. bunker's own binary is the forwarder, so nothing needs installing.
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

/** Runs the forwarder with the words after the subcommand; resolves to the exit status. */
export async function runForwarder(args: string[]): Promise<number> {
  const [socket, portText, sep, ...command] = args;
  const port = Number(portText);
  if (!socket || !Number.isInteger(port) || sep !== "--" || command.length === 0) {
    process.stderr.write(`bunker ${FORWARD_SUBCOMMAND}: usage: SOCKET PORT -- COMMAND…\n`);
    return 2;
  }
  let server: Bun.TCPSocketListener<Side>;
  try {
    server = Bun.listen<Side>({
      hostname: "127.0.0.1",
      port,
      data: side(),
      socket: {
        ...relay,
        open(client) {
          client.data = side();
          client.pause(); // nothing is read until the proxy end is there to take it
          client.setNoDelay(true);
          Bun.connect<Side>({ unix: socket, data: { ...side(), peer: client }, socket: {
            ...relay,
            open(upstream) {
              client.data.peer = upstream;
              settle(client);
            },
            connectError() {
              client.terminate();
            },
          } }).catch(() => client.terminate());
        },
      },
    });
  } catch (err) {
    process.stderr.write(`bunker: the network proxy could not listen on 127.0.0.1:${port}: ${escapeControl((err as Error).message)}\n`);
    return 1;
  }
  server.unref();
  const child = Bun.spawn(command, { stdio: ["inherit", "inherit", "inherit"] });
  const code = await child.exited;
  server.stop(true);
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
