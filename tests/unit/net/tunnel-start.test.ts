// What a CONNECT tunnel carries: the verdict on its first bytes, and the same
// through the real proxy with a real TLS client (openssl s_client, Bun's
// tls.connect) against a real TLS server: a granted host cannot front for
// another by the name asked for inside the tunnel (red team 7).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, createServer, type Server, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { judgeTunnelStart, sameHost, type TunnelTarget } from "../../../src/net/tunnel-start.ts";
import { gate, withProxy } from "../../support/net-proxy.ts";
import { opensslAvailable, startTestServer, type TestServer } from "../../support/net-servers.ts";
import { captureClientHello, extension, helloMessage, inRecords, serverNameData } from "../../support/tls-hello.ts";

const named: TunnelTarget = { host: "front.example", port: 443, local: false };
const hello = (...names: string[]) => inRecords(helloMessage(names.length === 0 ? null : extension(0, serverNameData(...names))));

describe("judgeTunnelStart", () => {
  test("TLS: the server name must be the tunnel's host, case and a trailing dot aside; localhost is 127.0.0.1", () => {
    expect(judgeTunnelStart(hello("front.example"), named)).toEqual({ kind: "carry" });
    expect(judgeTunnelStart(hello("FRONT.Example."), named)).toEqual({ kind: "carry" });
    expect(judgeTunnelStart(hello("front.example"), { ...named, host: "front.example." })).toEqual({ kind: "carry" });
    expect(judgeTunnelStart(hello("localhost"), { host: "127.0.0.1", port: 8443, local: true })).toEqual({ kind: "carry" });
    expect(judgeTunnelStart(hello("evil.example"), named)).toEqual({
      kind: "refuse",
      reason: "the TLS client inside the tunnel to front.example:443 asked for the server evil.example (SNI); a tunnel carries TLS only to the host it was opened to (a server that fronts many sites would serve the other one): grant and connect to evil.example itself",
      answer: { tlsAlert: 49 },
    });
    // A name below the granted one is another host too (a wildcard grant judged the tunnel's host, not this one).
    expect(judgeTunnelStart(hello("a.front.example"), named).kind).toBe("refuse");
    expect(sameHost("front.example", "front.example.")).toBe(true);
    expect(sameHost("front.examplE", "front.example")).toBe(true);
    expect(sameHost("front.example.com", "front.example")).toBe(false);
  });

  test("TLS without a name: carried to an address (clients send none for one), refused to a host name; an address tunnel asked for a name is refused", () => {
    expect(judgeTunnelStart(hello(), { host: "203.0.113.7", port: 443, local: false })).toEqual({ kind: "carry" });
    expect(judgeTunnelStart(hello(), { host: "[2001:db8::1]", port: 443, local: false })).toEqual({ kind: "carry" });
    expect(judgeTunnelStart(hello(), named)).toMatchObject({ kind: "refuse", reason: "the TLS client inside the tunnel to front.example:443 named no server (no SNI); bunker carries TLS to a host name only when the ClientHello names that host" });
    expect(judgeTunnelStart(hello("evil.example"), { host: "203.0.113.7", port: 443, local: false })).toMatchObject({ kind: "refuse", answer: { tlsAlert: 49 } });
  });

  test("ECH is refused even when the outer name is the tunnel's host; a malformed hello is refused with why", () => {
    const ech = inRecords(helloMessage([...extension(0, serverNameData("front.example")), ...extension(0xfe0d, [0])]));
    expect(judgeTunnelStart(ech, named)).toMatchObject({ kind: "refuse", reason: "the TLS client inside the tunnel to front.example:443 offered Encrypted Client Hello, which hides the server it asks for from bunker; turn ECH off in the client (Chrome and Chromium, headless too: --disable-features=EncryptedClientHello)" });
    expect(judgeTunnelStart(hello("front.example", "evil.example"), named)).toEqual({
      kind: "refuse",
      reason: "the TLS ClientHello inside the tunnel to front.example:443 is malformed (more than one server name); bunker did not carry it",
      answer: { tlsAlert: 50 },
    });
  });

  test("plain HTTP: carried to an address granted by address, refused to a host name (its Host header could name another site), never on 443", () => {
    const get = Buffer.from("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n");
    expect(judgeTunnelStart(Buffer.from("GE"), named)).toEqual({ kind: "more" });
    expect(judgeTunnelStart(get, { host: "127.0.0.1", port: 8765, local: true })).toEqual({ kind: "carry" });
    expect(judgeTunnelStart(get, { ...named, port: 80 })).toEqual({
      kind: "refuse",
      reason: "plain HTTP inside a CONNECT tunnel to front.example:80 is not carried (its Host header could name another site on the same server): send it as a proxy request (http://front.example:80/…), where bunker checks the Host header",
      answer: "http",
    });
    expect(judgeTunnelStart(get, named)).toMatchObject({ kind: "refuse", answer: "http" });
    // As a lenient server reads it: blank lines first, a method in lower case.
    expect(judgeTunnelStart(Buffer.from("\r\n\r\nget / HTTP/1.1\r\nHost: evil.example\r\n\r\n"), { ...named, port: 8080 })).toMatchObject({ kind: "refuse", answer: "http" });
    expect(judgeTunnelStart(Buffer.from("\r\n"), { ...named, port: 8080 })).toEqual({ kind: "more" });
    // nginx skips any number of blank lines and routes any token method by Host: 40 blank lines, `A_B`, a 20-letter word.
    const port80 = { ...named, port: 80 };
    expect(judgeTunnelStart(Buffer.from("\r\n".repeat(40) + "GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n"), port80)).toMatchObject({ kind: "refuse", answer: "http" });
    expect(judgeTunnelStart(Buffer.from("\r\n".repeat(40)), port80)).toEqual({ kind: "more" });
    expect(judgeTunnelStart(Buffer.from("A_B /secret HTTP/1.1\r\nHost: evil.example\r\n\r\n"), port80)).toMatchObject({ kind: "refuse", answer: "http" });
    expect(judgeTunnelStart(Buffer.from("ABCDEFGHIJKLMNOPQRST /secret HTTP/1.1\r\nHost: evil.example\r\n\r\n"), port80)).toMatchObject({ kind: "refuse", answer: "http" });
    expect(judgeTunnelStart(Buffer.from("ABCDEFGHIJKLMNOPQRST"), port80)).toEqual({ kind: "more" });
    // A method not starting with a letter (nginx takes `_GET` and `-GET` and routes them by Host as GET; HAProxy any
    // token: red team 9's F03): HTTP when its line is a request line, waited for when the line has not ended.
    for (const method of ["_GET", "-GET", "0GET", "!"]) {
      expect(judgeTunnelStart(Buffer.from(`${method} /exfil?d=1 HTTP/1.1\r\nHost: other-site.example\r\n\r\n`), port80)).toMatchObject({ kind: "refuse", answer: "http" });
      expect(judgeTunnelStart(Buffer.from(`${method} /exfil?d=1 HT`), port80)).toEqual({ kind: "more" });
    }
    expect(judgeTunnelStart(Buffer.from("_"), port80)).toEqual({ kind: "more" });
    expect(judgeTunnelStart(Buffer.from("_GET /exfil?d=1 http/1.0\n\n"), port80)).toMatchObject({ kind: "refuse", answer: "http" });
    expect(judgeTunnelStart(Buffer.from("_" + " ".repeat(9000)), port80)).toMatchObject({ kind: "refuse", answer: "http" });
    // Spaces inside the target (older nginx took them): still a request line.
    expect(judgeTunnelStart(Buffer.from("_GET /a b HTTP/1.1\r\nHost: other-site.example\r\n\r\n"), port80)).toMatchObject({ kind: "refuse", answer: "http" });
    // Such a token and a space in a line that is no request line: another protocol's.
    expect(judgeTunnelStart(Buffer.from("_x hello there\r\n"), port80)).toEqual({ kind: "carry" });
    // Blank lines or a method that never end are not carried unjudged either.
    expect(judgeTunnelStart(Buffer.from("\r\n".repeat(5000)), port80)).toMatchObject({ kind: "refuse", answer: "http" });
    expect(judgeTunnelStart(Buffer.from("A".repeat(9000)), port80)).toMatchObject({ kind: "refuse", answer: "http" });
  });

  test("other protocols are carried (SSH, a database: no name to front with), except on 443, which is carried only as TLS", () => {
    const ssh = Buffer.from("SSH-2.0-OpenSSH_9.6\r\n");
    expect(judgeTunnelStart(ssh, { ...named, port: 22 })).toEqual({ kind: "carry" });
    // git's own protocol: a pkt-line's length in hex, then the request.
    expect(judgeTunnelStart(Buffer.from("0032git-upload-pack /project.git\0host=front.example\0"), { ...named, port: 9418 })).toEqual({ kind: "carry" });
    expect(judgeTunnelStart(Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]), { ...named, port: 5432 })).toEqual({ kind: "carry" });
    expect(judgeTunnelStart(ssh, named)).toEqual({ kind: "refuse", reason: "the tunnel to front.example:443 carried something other than TLS; port 443 is carried only as TLS, whose server name bunker checks", answer: null });
    expect(judgeTunnelStart(new Uint8Array(), named)).toEqual({ kind: "more" });
    // A TLS record that is not the hello, first (a lenient server might skip it and read the hello after): refused on any port.
    const ccsFirst = Buffer.concat([Buffer.from([20, 3, 3, 0, 1, 1]), hello("evil.example")]);
    expect(judgeTunnelStart(ccsFirst, { ...named, port: 8443 })).toMatchObject({ kind: "refuse", reason: "the TLS ClientHello inside the tunnel to front.example:8443 is malformed (a TLS record of type 20 came before the ClientHello was whole); bunker did not carry it" });
  });
});

let A: TestServer;
beforeAll(() => {
  A = startTestServer("A", "127.0.0.2");
});
afterAll(() => A.stop());

/** front.example (and anything else) resolves to A's address; A's TLS port is granted by name and by address. */
const toA = async () => ["127.0.0.2"];
const grantA = () => gate([`front.example:${A.tlsPort}`, `127.0.0.2:${A.tlsPort}`]);

/** openssl s_client through the proxy at `proxyUrl`; its exit code and stderr (where -brief reports). */
async function sClient(proxyUrl: string, connectTo: string, args: string[]): Promise<{ code: number; err: string }> {
  const { port } = new URL(proxyUrl);
  const p = Bun.spawn(["openssl", "s_client", "-brief", "-proxy", `127.0.0.1:${port}`, "-connect", connectTo, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  return { code, err };
}

describe.skipIf(!opensslAvailable)("through the real proxy, with openssl s_client", () => {
  test("SNI for another host in a tunnel to a granted one: the client gets access_denied, the command's note says why; the granted name (any case, trailing dot) connects", async () => {
    await withProxy(grantA(), async (proxy, p) => {
      const evil = await sClient(proxy, `front.example:${A.tlsPort}`, ["-servername", "evil.example"]);
      expect(evil.code).not.toBe(0);
      expect(evil.err).toContain("tlsv1 alert access denied");
      expect(evil.err).not.toContain("CONNECTION ESTABLISHED");
      const none = await sClient(proxy, `front.example:${A.tlsPort}`, ["-noservername"]);
      expect(none.err).toContain("tlsv1 alert access denied");
      expect(p.refusals).toEqual([
        { target: `front.example:${A.tlsPort}`, reason: `the TLS client inside the tunnel to front.example:${A.tlsPort} asked for the server evil.example (SNI); a tunnel carries TLS only to the host it was opened to (a server that fronts many sites would serve the other one): grant and connect to evil.example itself` },
        { target: `front.example:${A.tlsPort}`, reason: `the TLS client inside the tunnel to front.example:${A.tlsPort} named no server (no SNI); bunker carries TLS to a host name only when the ClientHello names that host` },
      ]);
      for (const name of ["front.example", "FRONT.example."]) {
        const ok = await sClient(proxy, `front.example:${A.tlsPort}`, ["-servername", name]);
        expect(ok.err).toContain("CONNECTION ESTABLISHED");
        expect(ok.code).toBe(0);
      }
      expect(p.refusals.length).toBe(2);
    }, toA);
  });

  test("a tunnel to a granted address: no SNI connects, any name is refused", async () => {
    await withProxy(grantA(), async (proxy, p) => {
      const plain = await sClient(proxy, `127.0.0.2:${A.tlsPort}`, []);
      expect(plain.err).toContain("CONNECTION ESTABLISHED");
      const evil = await sClient(proxy, `127.0.0.2:${A.tlsPort}`, ["-servername", "evil.example"]);
      expect(evil.err).toContain("tlsv1 alert access denied");
      expect(p.refusals.map((r) => r.reason)).toEqual([expect.stringContaining(`inside the tunnel to 127.0.0.2:${A.tlsPort} asked for the server evil.example (SNI)`)]);
    });
  });
});

/** A raw CONNECT through the proxy: the socket once the 200 is read (paused, holding what came after the head), or the refusal's text. */
function tunnel(proxyUrl: string, target: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(Number(new URL(proxyUrl).port), "127.0.0.1", () => s.write(`CONNECT ${target} HTTP/1.1\r\n\r\n`));
    let head = "";
    const onData = (d: Buffer) => {
      head += d.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) return;
      s.off("data", onData);
      s.pause();
      if (!head.startsWith("HTTP/1.1 200")) return reject(new Error(head));
      if (head.length > end + 4) s.unshift(Buffer.from(head.slice(end + 4), "latin1"));
      resolve(s);
    };
    s.on("data", onData);
    s.on("error", reject);
  });
}

/** All a socket sends until it closes. */
const allOf = (s: Socket) => new Promise<Buffer>((resolve) => {
  const chunks: Buffer[] = [];
  s.on("data", (d: Buffer) => chunks.push(d));
  s.on("close", () => resolve(Buffer.concat(chunks)));
  s.resume();
});

/** A raw TCP server on 127.0.0.2 that records what it is sent, and says `greeting` first when given one. */
async function recorder(greeting?: string): Promise<{ server: Server; port: number; got: () => Buffer }> {
  const chunks: Buffer[] = [];
  const server = createServer((s) => {
    if (greeting !== undefined) s.write(greeting);
    s.on("data", (d: Buffer) => chunks.push(d));
    s.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.2", () => r()));
  return { server, port: (server.address() as { port: number }).port, got: () => Buffer.concat(chunks) };
}

describe("through the real proxy, byte by byte", () => {
  test("a real hello sent a byte at a time: nothing reaches the server until the hello is whole and checked, then all of it, unchanged", async () => {
    const up = await recorder();
    const bytes = await captureClientHello("front.example");
    try {
      await withProxy(gate([`front.example:${up.port}`, `127.0.0.2:${up.port}`]), async (proxy) => {
        const s = await tunnel(proxy, `front.example:${up.port}`);
        for (let i = 0; i < bytes.length - 1; i++) {
          s.write(bytes.subarray(i, i + 1));
          if (i % 200 === 0) await Bun.sleep(5);
        }
        await Bun.sleep(150);
        expect(up.got().length).toBe(0);
        s.write(bytes.subarray(bytes.length - 1));
        for (let i = 0; i < 100 && up.got().length < bytes.length; i++) await Bun.sleep(10);
        expect(up.got().equals(bytes)).toBe(true);
        s.destroy();
      }, toA);
    } finally {
      up.server.close();
    }
  });

  test("a client that starts a hello and stalls is cut after the hello timeout; the server never sees its bytes", async () => {
    const up = await recorder();
    const bytes = await captureClientHello("front.example");
    try {
      await withProxy(gate([`front.example:${up.port}`, `127.0.0.2:${up.port}`]), async (proxy, p) => {
        const s = await tunnel(proxy, `front.example:${up.port}`);
        const answer = allOf(s);
        s.write(bytes.subarray(0, 100));
        expect((await answer).length).toBe(0);
        expect(up.got().length).toBe(0);
        expect(p.refusals).toEqual([{ target: `front.example:${up.port}`, reason: `the first bytes inside the tunnel to front.example:${up.port} did not arrive whole within 0.3 s; bunker did not carry them` }]);
      }, toA, { helloTimeoutMs: 300 });
    } finally {
      up.server.close();
    }
  });

  test("a server that speaks first (SSH) is heard before the client says anything; then the client's bytes go through", async () => {
    const up = await recorder("SSH-2.0-test\r\n");
    try {
      await withProxy(gate([`127.0.0.2:${up.port}`]), async (proxy) => {
        const s = await tunnel(proxy, `127.0.0.2:${up.port}`);
        const banner = await new Promise<string>((resolve) => s.once("data", (d: Buffer) => resolve(d.toString())).resume());
        expect(banner).toBe("SSH-2.0-test\r\n");
        s.write("SSH-2.0-client\r\n");
        for (let i = 0; i < 100 && up.got().length === 0; i++) await Bun.sleep(10);
        expect(up.got().toString()).toBe("SSH-2.0-client\r\n");
        s.destroy();
      });
    } finally {
      up.server.close();
    }
  });

  test("Bun's own TLS client asking for another name in the tunnel fails the handshake; asking for the tunnel's host works end to end", async () => {
    await withProxy(grantA(), async (proxy, p) => {
      const handshake = async (servername: string) => {
        const s = await tunnel(proxy, `front.example:${A.tlsPort}`);
        return new Promise<string>((resolve) => {
          const t = tlsConnect({ socket: s, servername, rejectUnauthorized: false }, () => {
            t.destroy();
            resolve("connected");
          });
          t.on("error", (e) => resolve(e.message));
        });
      };
      expect(await handshake("evil.example")).not.toBe("connected");
      expect(p.refusals.map((r) => r.reason)).toEqual([expect.stringContaining("asked for the server evil.example (SNI)")]);
      expect(await handshake("front.example")).toBe("connected");
    }, toA);
  });
});
