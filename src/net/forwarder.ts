// The in-sandbox end of the proxy path: `bunker __net-forward SOCKET PORT -- COMMAND…`
// listens on 127.0.0.1:PORT inside the command's network namespace, carries
// each connection to bunker's proxy on the Unix socket SOCKET (bound into
// the sandbox), runs COMMAND with the terminal's streams, and exits with its
// status. bunker's own binary is the forwarder, so nothing needs installing.
import { connect, createServer } from "node:net";
import { constants } from "node:os";
import { join } from "node:path";
import { splice } from "./splice.ts";

export const FORWARD_SUBCOMMAND = "__net-forward";

/** Runs the forwarder with the words after the subcommand; resolves to the exit status. */
export async function runForwarder(args: string[]): Promise<number> {
  const [socket, portText, sep, ...command] = args;
  const port = Number(portText);
  if (!socket || !Number.isInteger(port) || sep !== "--" || command.length === 0) {
    process.stderr.write(`bunker ${FORWARD_SUBCOMMAND}: usage: SOCKET PORT -- COMMAND…\n`);
    return 2;
  }
  const server = createServer({ noDelay: true }, (client) => splice(client, connect(socket)));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
  } catch (err) {
    process.stderr.write(`bunker: the network proxy could not listen on 127.0.0.1:${port}: ${(err as Error).message}\n`);
    return 1;
  }
  server.unref();
  const child = Bun.spawn(command, { stdio: ["inherit", "inherit", "inherit"] });
  const code = await child.exited;
  server.close();
  const signal = child.signalCode as keyof typeof constants.signals | null;
  return signal ? 128 + (constants.signals[signal] ?? 0) : code;
}


/**
 * How to start the forwarder from this bunker: the compiled binary runs
 * itself; from source, bun runs main.ts. `paths` must be readable in the sandbox.
 */
export function forwarderCommand(): { argv: string[]; paths: string[] } {
  if (import.meta.path.startsWith("/$bunfs/")) return { argv: [process.execPath, FORWARD_SUBCOMMAND], paths: [process.execPath] };
  const src = join(import.meta.dir, "..");
  // The whole checkout: main.ts imports ../package.json and node_modules.
  return { argv: [process.execPath, join(src, "main.ts"), FORWARD_SUBCOMMAND], paths: [process.execPath, join(src, "..")] };
}
