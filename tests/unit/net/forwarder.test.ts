// The forwarder outside a sandbox: it listens, carries connections to the
// proxy's Unix socket, runs the command, and exits with its status.
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { forwarderCommand, runForwarder } from "../../../src/net/forwarder.ts";
import { NetProxy } from "../../../src/net/proxy.ts";
import { tempDir } from "../../support/context.ts";
import { startTestServer } from "../../support/net-servers.ts";

/** A port free on this machine's loopback now (other test runs share it: a random one was sometimes taken). */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

const BIG = Buffer.alloc(8 * 1024 * 1024, "bunker ");
const A = startTestServer("A", "127.0.0.2", {
  "/big": () => new Response(BIG),
  "/echo-size": async (req: Request) => new Response(String((await req.arrayBuffer()).byteLength)),
});
afterAll(() => A.stop());

/** A proxy that admits everything, on a Unix socket in a fresh folder; `fn` gets the folder, the socket and a free port. */
async function withProxy(fn: (dir: string, socket: string, port: number) => Promise<void>): Promise<void> {
  const dir = tempDir("bunker-fwd-");
  const socket = join(dir, "proxy.sock");
  const proxy = new NetProxy({ gate: { admit: async () => null, addressGranted: () => true } });
  await proxy.listenUnix(socket);
  try {
    await fn(dir, socket, freePort());
  } finally {
    await proxy.close();
  }
}

test("connections to 127.0.0.1:PORT reach the proxy; the command's status comes back", () =>
  withProxy(async (dir, socket, port) => {
    const out = join(dir, "out.txt");
    const code = await runForwarder([socket, String(port), "--", "sh", "-c", `curl -sS -x http://127.0.0.1:${port} ${A.url}/via > ${out}; exit 7`]);
    expect(code).toBe(7);
    expect(readFileSync(out, "utf8")).toBe("hello from A\n");
  }));

test("8 MB each way arrive whole (the forwarder waits when either side is slow to take bytes)", () =>
  withProxy(async (dir, socket, port) => {
    const up = join(dir, "up.bin");
    await Bun.write(up, BIG);
    const down = join(dir, "down.bin");
    const echoed = join(dir, "echoed.txt");
    const curl = `curl -sS -x http://127.0.0.1:${port}`;
    const code = await runForwarder([socket, String(port), "--", "sh", "-c", `${curl} -o ${down} ${A.url}/big && ${curl} --limit-rate 4M --data-binary @${up} -o ${echoed} ${A.url}/echo-size`]);
    expect(code).toBe(0);
    expect(Buffer.compare(readFileSync(down), BIG)).toBe(0);
    expect(readFileSync(echoed, "utf8")).toBe(String(BIG.length));
  }), 30_000);

test("bad arguments: usage, status 2; from source the forwarder is bun running main.ts", async () => {
  expect(await runForwarder(["only-a-socket"])).toBe(2);
  const { argv, paths } = forwarderCommand();
  const checkout = join(import.meta.dir, "../../..");
  expect(argv.slice(-5)).toEqual([process.execPath, "--no-env-file", `--config=${join(checkout, "bunfig.toml")}`, join(checkout, "src/main.ts"), "__net-forward"]);
  expect(paths).toContain(process.execPath);
});
