// What bunker's network proxy costs a sandboxed command, measured on the
// path commands use (client → the forwarder process on 127.0.0.1:PORT →
// Unix socket → the proxy, judging with real Permissions → the server)
// beside a direct connection to the same loopback server, in the same run:
// added latency per connection (connect, CONNECT, one request and answer)
// and throughput through the tunnel.
import { connect, createServer, type Server, type Socket } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startCommandNet } from "../../src/net/command-net.ts";
import { FORWARD_SUBCOMMAND, forwarderCommand } from "../../src/net/forwarder.ts";
import { confine, detectSandbox, planSandbox } from "../../src/sandbox/detect.ts";
import { freshBinary } from "../build/fresh.ts";
import { permissionGate } from "../../src/net/gate.ts";
import { NetProxy } from "../../src/net/proxy.ts";
import { NoPromptApprover } from "../../src/perms/approver.ts";
import { Permissions } from "../../src/perms/permissions.ts";
import { emptyGrants, Policy } from "../../src/perms/policy.ts";
import { median, type BenchRow } from "./types.ts";

const HOST = "127.0.0.2";
const CONNECTIONS = 300;
const BULK_BYTES = 512 * 1024 * 1024;
const round = (n: number, places = 2) => Number(n.toFixed(places));

/** Answers "ping" with "pong" and closes; on "bulk" streams BULK_BYTES. */
function startServer(): Promise<{ server: Server; port: number }> {
  const block = Buffer.alloc(1024 * 1024, 7);
  const server = createServer({ noDelay: true }, (s) => {
    s.once("data", (d) => {
      if (d.toString() !== "bulk") return void s.end("pong");
      let sent = 0;
      const pump = () => {
        while (sent < BULK_BYTES) {
          sent += block.length;
          if (!s.write(block)) return void s.once("drain", pump);
        }
        s.end();
      };
      pump();
    });
    s.on("error", () => s.destroy());
  });
  return new Promise((resolve) => server.listen(0, HOST, () => resolve({ server, port: (server.address() as { port: number }).port })));
}

/** Opens a connection to `port` on 127.0.0.1 (through the forwarder) or HOST (direct), CONNECTs when `tunnel`, then sends `what`. */
function open(port: number, host: string, tunnel: string | null, what: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host, noDelay: true }, () => {
      if (!tunnel) {
        s.write(what);
        return resolve(s);
      }
      s.write(`CONNECT ${tunnel} HTTP/1.1\r\nHost: ${tunnel}\r\n\r\n`);
      s.once("data", (d) => {
        if (!d.toString("latin1").startsWith("HTTP/1.1 200")) return reject(new Error(`proxy said: ${d.toString().split("\r\n")[0]}`));
        s.write(what);
        resolve(s);
      });
    });
    s.once("error", reject);
  });
}

async function pingOnce(port: number, host: string, tunnel: string | null): Promise<number> {
  const t0 = performance.now();
  const s = await open(port, host, tunnel, "ping");
  await new Promise<void>((resolve, reject) => {
    s.once("data", () => resolve());
    s.once("error", reject);
  });
  const ms = performance.now() - t0;
  s.destroy();
  return ms;
}

async function bulkOnce(port: number, host: string, tunnel: string | null): Promise<number> {
  const t0 = performance.now();
  const s = await open(port, host, tunnel, "bulk");
  let got = 0;
  await new Promise<void>((resolve, reject) => {
    s.on("data", (d: Buffer) => (got += d.length));
    s.once("end", () => resolve());
    s.once("error", reject);
  });
  const seconds = (performance.now() - t0) / 1000;
  if (got !== BULK_BYTES) throw new Error(`received ${got} of ${BULK_BYTES} bytes`);
  return got / (1024 * 1024) / seconds;
}

async function waitForListener(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, "127.0.0.1", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
    });
    if (ok) return;
    await Bun.sleep(25);
  }
  throw new Error("the forwarder did not start listening");
}

/**
 * `bash -c true` in bubblewrap as commands run without a net grant: with the
 * proxy path (the compiled bunker as the forwarder, for a line that may
 * connect) against without it (a line that only reads gets none), beside
 * the same command unconfined.
 */
async function startupRows(): Promise<BenchRow[]> {
  const plan = planSandbox("on", detectSandbox());
  if (!plan.confined || plan.kind !== "bubblewrap") return [];
  const { path: bunker } = await freshBinary();
  const root = mkdtempSync(join(tmpdir(), "bunker-bench-net-ws-"));
  const gate = { admit: async () => null, addressGranted: () => true };
  const spec = { root, allowNet: false, gitWritable: false, writable: [] };
  const argv = ["bash", "-c", "true"];
  const run = async (cmd: string[]) => {
    const t0 = performance.now();
    if ((await Bun.spawn(cmd, { stdio: ["ignore", "ignore", "inherit"] }).exited) !== 0) throw new Error(`${cmd.join(" ")} failed`);
    return performance.now() - t0;
  };
  const withProxy = async () => {
    const t0 = performance.now();
    const net = await startCommandNet("bubblewrap", gate, [], { argv: [bunker, FORWARD_SUBCOMMAND], paths: [bunker] });
    await run(confine(plan, { ...spec, netProxy: net.spec, readable: net.spec.readable }, net.wrap(argv), ""));
    await net.close();
    return performance.now() - t0;
  };
  try {
    const unconfined: number[] = [];
    const plain: number[] = [];
    const proxied: number[] = [];
    await run(confine(plan, spec, argv, ""));
    await withProxy();
    // Interleaved, so drift in the machine's load hits all three alike.
    for (let i = 0; i < 30; i++) {
      unconfined.push(await run(argv));
      plain.push(await run(confine(plan, spec, argv, "")));
      proxied.push(await withProxy());
    }
    const added = median(proxied) - median(plain);
    return [
      { name: "`bash -c true` unconfined (reference)", value: round(median(unconfined)), unit: "ms" },
      { name: "`bash -c true` in bubblewrap, no network path (as a line that only reads runs)", value: round(median(plain)), unit: "ms" },
      { name: "`bash -c true` in bubblewrap with the proxy path (compiled bunker as forwarder)", value: round(median(proxied)), unit: "ms" },
      { name: "start-up added per sandboxed command by the proxy path", value: round(added), unit: "ms" },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function bench(): Promise<BenchRow[]> {
  const rows = [...(await tunnelRows()), ...(await startupRows())];
  return rows;
}

async function tunnelRows(): Promise<BenchRow[]> {
  const { server, port } = await startServer();
  const dir = mkdtempSync(join(tmpdir(), "bunker-bench-net-"));
  const grants = emptyGrants();
  grants.allow.net.hosts.push(`${HOST}:${port}`);
  const perms = new Permissions({ policy: new Policy(dir, grants), approver: new NoPromptApprover(), notify: () => {} });
  const proxy = new NetProxy({ gate: permissionGate(perms, "run_bash", "bench") });
  const socket = join(dir, "proxy.sock");
  await proxy.listenUnix(socket);
  const fwdPort = 20_000 + Math.floor(Math.random() * 40_000);
  const forwarder = Bun.spawn([...forwarderCommand().argv, socket, String(fwdPort), "--", "sleep", "600"], { stdio: ["ignore", "inherit", "inherit"] });
  const target = `${HOST}:${port}`;
  try {
    await waitForListener(fwdPort);
    const direct = () => pingOnce(port, HOST, null);
    const proxied = () => pingOnce(fwdPort, "127.0.0.1", target);
    await direct();
    await proxied();
    // Interleaved, so drift in the machine's load hits both alike.
    const d: number[] = [];
    const p: number[] = [];
    for (let i = 0; i < CONNECTIONS; i++) {
      d.push(await direct());
      p.push(await proxied());
    }
    const added = median(p) - median(d);
    const directMBs = await bulkOnce(port, HOST, null);
    const tunnelMBs = Math.max(await bulkOnce(fwdPort, "127.0.0.1", target), await bulkOnce(fwdPort, "127.0.0.1", target));
    return [
      { name: "connection + one exchange, direct (loopback)", value: round(median(d), 3), unit: "ms" },
      { name: "connection + one exchange, through forwarder and proxy (CONNECT)", value: round(median(p), 3), unit: "ms" },
      { name: "proxy latency added per connection", value: round(added, 3), unit: "ms", target: "< 2 ms", ok: added < 2 },
      { name: "throughput, direct (loopback, 512 MiB)", value: round(directMBs, 0), unit: "MiB/s" },
      { name: "throughput through the tunnel (forwarder + proxy, 512 MiB)", value: round(tunnelMBs, 0), unit: "MiB/s", target: ">= 200 MB/s", ok: tunnelMBs * 1.048576 >= 200 },
    ];
  } finally {
    forwarder.kill();
    await proxy.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) console.table(await bench());
