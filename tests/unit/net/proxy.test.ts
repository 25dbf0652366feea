// The proxy in-process, against real local servers: CONNECT tunnels and
// plain requests reach granted targets; refusals are a 403 with one line;
// names that resolve to local addresses need a grant by address.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { networkInterfaces } from "node:os";
import { NetProxy, type NetGate } from "../../../src/net/proxy.ts";
import { gate, raw, withProxy } from "../../support/net-proxy.ts";
import { startTestServer, type TestServer } from "../../support/net-servers.ts";

let A: TestServer;
beforeAll(() => {
  A = startTestServer("A", "127.0.0.2", { "/headers": (req) => Response.json(Object.fromEntries(req.headers)) });
});
afterAll(() => A.stop());

describe("the proxy", () => {
  test("plain HTTP to a granted host:port is forwarded in origin form; proxy headers are not passed on", async () => {
    const g = gate([`127.0.0.2:${A.port}`]);
    await withProxy(g, async (proxy) => {
      const res = await fetch(`${A.url}/page?q=1`, { proxy });
      expect(await res.text()).toBe("hello from A\n");
      const answer = await raw(proxy, `GET ${A.url}/headers HTTP/1.1\r\nHost: 127.0.0.2:${A.port}\r\nProxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\n\r\n`);
      expect(answer).toStartWith("HTTP/1.1 200");
      const headers = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as Record<string, string>;
      expect(headers.host).toBe(`127.0.0.2:${A.port}`);
      expect(headers.connection).toBe("close");
      expect(Object.keys(headers).filter((h) => h.startsWith("proxy-"))).toEqual([]);
    });
    expect(A.seen).toContain(`GET /page 127.0.0.2:${A.port}`);
    expect(A.seen).toContain(`GET /headers 127.0.0.2:${A.port}`);
  });

  test("TLS goes through a CONNECT tunnel, the certificate checked end to end", async () => {
    await withProxy(gate([`127.0.0.2:${A.tlsPort}`]), async (proxy) => {
      const res = await fetch(`${A.tlsUrl}/tls`, { proxy, tls: { ca: await Bun.file(A.caFile).text() } });
      expect(await res.text()).toBe("hello from A\n");
    });
  });

  test("a target not granted gets 403 and one line saying why; nothing reaches the server", async () => {
    const before = A.seen.length;
    await withProxy(gate([]), async (proxy, p) => {
      const answer = await raw(proxy, `CONNECT 127.0.0.2:${A.port} HTTP/1.1\r\n\r\n`);
      expect(answer).toStartWith("HTTP/1.1 403 Forbidden");
      expect(answer).toEndWith(`\r\n\r\nbunker: not granted: --allow-net=127.0.0.2:${A.port}\n`);
      expect(p.refusals).toEqual([{ target: `127.0.0.2:${A.port}`, reason: `not granted: --allow-net=127.0.0.2:${A.port}` }]);
    });
    expect(A.seen.length).toBe(before);
  });

  test("the host is judged as the URL parser reads it: 0x7f.2 is 127.0.0.2", async () => {
    const g = gate([]);
    await withProxy(g, async (proxy) => {
      await raw(proxy, `CONNECT 0x7f.2:${A.port} HTTP/1.1\r\n\r\n`);
      await raw(proxy, `GET http://2130706434:${A.port}/ HTTP/1.1\r\n\r\n`);
    });
    expect(g.asked).toEqual([`127.0.0.2:${A.port}`, `127.0.0.2:${A.port}`]);
  });

  test("a name that resolves to a loopback address is refused unless that address is granted", async () => {
    const resolve = async () => ["127.0.0.2"];
    await withProxy(gate([`sneaky.example:${A.port}`], []), async (proxy) => {
      const answer = await raw(proxy, `GET http://sneaky.example:${A.port}/ HTTP/1.1\r\nHost: sneaky.example\r\n\r\n`);
      expect(answer).toStartWith("HTTP/1.1 403");
      expect(answer).toContain(`sneaky.example resolves to 127.0.0.2, a loopback address; bunker connects to loopback, link-local and private addresses only when they are granted by address: --allow-net=127.0.0.2:${A.port}`);
    }, resolve);
    await withProxy(gate([`sneaky.example:${A.port}`], [`127.0.0.2:${A.port}`]), async (proxy) => {
      const res = await fetch(`http://sneaky.example:${A.port}/`, { proxy });
      expect(await res.text()).toBe("hello from A\n");
    }, resolve);
  });

  test("a deny by address holds for a name that resolves to it (reviewer's R11-03)", async () => {
    const resolve = async () => ["127.0.0.2"];
    const denying: NetGate = { ...gate([`sneaky.example:${A.port}`]), addressGranted: () => true, addressDenied: (host, port) => (host === "127.0.0.2" ? `${host}:${port} is denied (--deny-net or a net: deny rule)` : null) };
    const seen = A.seen.length;
    await withProxy(denying, async (proxy) => {
      const answer = await raw(proxy, `GET http://sneaky.example:${A.port}/ HTTP/1.1\r\nHost: sneaky.example\r\n\r\n`);
      expect(answer).toStartWith("HTTP/1.1 403");
      expect(answer).toContain(`sneaky.example resolves to 127.0.0.2: 127.0.0.2:${A.port} is denied (--deny-net or a net: deny rule)`);
    }, resolve);
    expect(A.seen.length).toBe(seen);
  });

  test("an address admitted without being granted by address (say under bare --allow-net) is still refused", async () => {
    await withProxy(gate([`127.0.0.2:${A.port}`], []), async (proxy) => {
      const answer = await raw(proxy, `CONNECT 127.0.0.2:${A.port} HTTP/1.1\r\n\r\n`);
      expect(answer).toContain(`bunker: 127.0.0.2 is a loopback address; bunker connects to loopback, link-local and private addresses only when they are granted by address: --allow-net=127.0.0.2:${A.port}`);
    });
  });

  // A service bound to 0.0.0.0 answers on every address of the machine: one that looks public is local all the same.
  const own = Object.values(networkInterfaces()).flat().find((i) => i && i.family === "IPv4" && !i.internal)?.address;
  test.skipIf(own === undefined)("this machine's own interface address is refused unless granted by address, as loopback is (red team 7)", async () => {
    const server = Bun.serve({ hostname: "0.0.0.0", port: 0, fetch: () => new Response("bound everywhere\n") });
    try {
      await withProxy(gate([`${own}:${server.port}`], []), async (proxy) => {
        const answer = await raw(proxy, `GET http://${own}:${server.port}/ HTTP/1.1\r\nHost: ${own}\r\n\r\n`);
        expect(answer).toStartWith("HTTP/1.1 403");
        expect(answer).toContain(`bunker: ${own} is this machine's own address; bunker connects to this machine's own addresses, as to loopback, only when they are granted by address: --allow-net=${own}:${server.port}`);
      });
      // The same address in IPv6 clothing (a dual-stack socket reaches it so): a literal, or a name whose AAAA says it.
      const anyHost: NetGate = { admit: async () => null, addressGranted: () => false };
      await withProxy(anyHost, async (proxy) => {
        const mapped = await raw(proxy, `GET http://[::ffff:${own}]:${server.port}/ HTTP/1.1\r\nHost: [::ffff:${own}]:${server.port}\r\n\r\n`);
        expect(mapped).toStartWith("HTTP/1.1 403");
        expect(mapped).toContain("is this machine's own address");
        const named = await raw(proxy, `GET http://own.example:${server.port}/ HTTP/1.1\r\nHost: own.example:${server.port}\r\n\r\n`);
        expect(named).toStartWith("HTTP/1.1 403");
        expect(named).toContain(`own.example resolves to ::ffff:${own}, this machine's own address`);
      }, async () => [`::ffff:${own}`]);
      await withProxy(gate([`${own}:${server.port}`]), async (proxy) => {
        expect(await (await fetch(`http://${own}:${server.port}/`, { proxy })).text()).toBe("bound everywhere\n");
      });
    } finally {
      server.stop(true);
    }
  });

  test("a plain request whose Host header names another host is refused: a granted host cannot front for another (red team 7)", async () => {
    await withProxy(gate([`127.0.0.2:${A.port}`]), async (proxy) => {
      const other = await raw(proxy, `GET http://127.0.0.2:${A.port}/ HTTP/1.1\r\nHost: elsewhere.example\r\n\r\n`);
      expect(other).toStartWith("HTTP/1.1 400");
      expect(other).toContain(`bunker: the Host header names "elsewhere.example", but the request is for 127.0.0.2:${A.port}; bunker forwards a request only to the host it names`);
      const two = await raw(proxy, `GET http://127.0.0.2:${A.port}/ HTTP/1.1\r\nHost: 127.0.0.2:${A.port}\r\nHost: elsewhere.example\r\n\r\n`);
      expect(two).toContain("more than one Host header");
      // A Host a lenient server would read from a bare LF, a folded line or a spaced name never gets past the check.
      for (const smuggled of ["X-A: 1\nHost: elsewhere.example", " Host: elsewhere.example", "Host : elsewhere.example"]) {
        const answer = await raw(proxy, `GET http://127.0.0.2:${A.port}/ HTTP/1.1\r\n${smuggled}\r\n\r\n`);
        expect(answer).toStartWith("HTTP/1.1 400");
        expect(answer).toContain("a header line is malformed");
      }
      // The same host, however it is spelled, goes through.
      const same = await raw(proxy, `GET http://127.0.0.2:${A.port}/ HTTP/1.1\r\nHost: 0x7f.2:${A.port}\r\n\r\n`);
      expect(same).toStartWith("HTTP/1.1 200");
    });
  });

  test("not a proxy request, an https: URL without CONNECT, or a huge head: a clear 4xx", async () => {
    await withProxy(gate(["*.x"]), async (proxy) => {
      expect(await raw(proxy, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")).toContain("a proxy request names the whole URL");
      expect(await raw(proxy, "GET https://a.x/ HTTP/1.1\r\n\r\n")).toContain("https: requests go through CONNECT");
      expect(await raw(proxy, "CONNECT a.x HTTP/1.1\r\n\r\n")).toContain("CONNECT needs host:port");
      expect(await raw(proxy, `GET http://a.x/ HTTP/1.1\r\nX: ${"y".repeat(40_000)}`)).toStartWith("HTTP/1.1 431");
    });
  });

  test("with credentials set, a client without them gets 407", async () => {
    const proxy = new NetProxy({ gate: gate([`127.0.0.2:${A.port}`]), credentials: "bunker:pw" });
    const port = await proxy.listenLoopback();
    try {
      expect(await raw(`http://127.0.0.1:${port}`, `GET ${A.url}/ HTTP/1.1\r\n\r\n`)).toStartWith("HTTP/1.1 407");
      const res = await fetch(`${A.url}/`, { proxy: `http://bunker:pw@127.0.0.1:${port}` });
      expect(await res.text()).toBe("hello from A\n");
    } finally {
      await proxy.close();
    }
  });
});
