// splice (src/net/splice.ts) joins two sockets for the proxy and the
// in-sandbox forwarder: bytes go both ways, and when one side is done the
// other is ended.
import { afterEach, expect, test } from "bun:test";
import { connect, createServer, type Server, type Socket } from "node:net";
import { splice } from "../../../src/net/splice.ts";

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A listening server whose first connection is handed to `onSocket`; its port. */
async function listen(onSocket: (s: Socket) => void): Promise<number> {
  const server = createServer(onSocket);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as { port: number }).port;
}

const readAll = (s: Socket) => new Promise<string>((resolve) => {
  let got = "";
  s.on("data", (d) => (got += d.toString()));
  s.on("end", () => resolve(got));
  s.on("close", () => resolve(got));
});

test("bytes go both ways through the splice, and closing one end ends the other", async () => {
  // upstream echoes what it gets, upper-cased, and closes after "BYE"
  const upstream = await listen((s) => s.on("data", (d) => {
    const text = d.toString();
    s.write(text.toUpperCase());
    if (text.includes("bye")) s.end();
  }));
  const front = await listen((client) => {
    const out = connect(upstream, "127.0.0.1");
    out.on("connect", () => splice(client, out));
  });
  const client = connect(front, "127.0.0.1");
  const got = readAll(client);
  await new Promise<void>((r) => client.on("connect", () => r()));
  client.write("hello ");
  await Bun.sleep(20);
  client.write("and bye");
  expect(await got).toBe("HELLO AND BYE");
});

test("an error on one side cuts both", async () => {
  const upstream = await listen(() => {});
  const front = await listen((client) => {
    const out = connect(upstream, "127.0.0.1");
    out.on("connect", () => {
      splice(client, out);
      out.destroy(new Error("upstream failed"));
    });
  });
  const client = connect(front, "127.0.0.1");
  client.on("error", () => {});
  // The client is cut with nothing received (were it not, this would wait until the test's timeout).
  expect(await readAll(client)).toBe("");
});
