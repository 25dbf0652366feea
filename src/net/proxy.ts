// bunker's filtering HTTP proxy. Sandboxed commands reach the network only
// through it (their own network namespace has nothing but loopback), and
// web_fetch uses it too, so one piece of code decides where a connection
// may go:
//   CONNECT host:port            (TLS: a tunnel, bytes carried as they are)
//   GET http://host[:port]/path  (plain HTTP: forwarded in origin form, one request per connection)
// Each connection is judged by host and port (the gate: flags, rules, the
// person), then the name is resolved here and a loopback, link-local or
// private address is refused unless the person granted that address itself,
// and the connection goes to the address that was checked (no second lookup
// a rebinding DNS server could answer differently). A refusal is an HTTP 403
// whose body is one line saying why and which flag grants it. A tunnel's
// first bytes are read before they go on (tunnel-start.ts): a TLS client must
// ask for the host the tunnel was opened to.
import { lookup } from "node:dns/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { networkInterfaces } from "node:os";
import { addressAsHost, canonicalAddress, isIpLiteral, localAddressKind } from "./address.ts";
import { netTarget, normalizeHost, splitHostPort } from "./host-pattern.ts";
import { splice } from "./splice.ts";
import { judgeTunnelStart, tlsAlert, type TunnelStart, type TunnelTarget } from "./tunnel-start.ts";

export interface NetGate {
  /** null to let the connection go ahead, or the one-line reason it may not. May ask the person. */
  admit(host: string, port: number): Promise<string | null>;
  /** Whether a local (loopback, private…) address was granted by address (a flag or rule naming it, or the person asked about it). */
  addressGranted(host: string, port: number): boolean;
  /** Why an address a name resolved to may not be reached (a --deny-net naming the address), or null. */
  addressDenied?(host: string, port: number): string | null;
}

export interface ProxyOptions {
  gate: NetGate;
  /** Name → addresses (default: the system resolver). */
  resolve?: (host: string) => Promise<string[]>;
  /** "user:password" the client must send as Proxy-Authorization (for a proxy on a TCP port others could reach). */
  credentials?: string;
  /** Milliseconds to wait for the request head or the upstream connection (default 30 000). */
  timeoutMs?: number;
  /** Milliseconds a tunnel's first bytes (a TLS ClientHello) may take to arrive whole once they start (default 10 000). */
  helloTimeoutMs?: number;
}

export interface Refusal {
  target: string;
  reason: string;
}

const MAX_HEAD = 32 * 1024;
const HEAD_END = Buffer.from("\r\n\r\n");

async function systemResolve(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

const article = (kind: string) => (kind.startsWith("this ") ? kind : `a ${kind}`);

/**
 * The addresses of this machine's own interfaces: a service bound to 0.0.0.0
 * answers on them as on loopback, so a public one is local all the same
 * (red team 7: 192.0.2.2 on eth0 reached a loopback-only-in-spirit service).
 */
function ownAddresses(): Set<string> {
  return new Set(Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => canonicalAddress(i.address))));
}

class ProxyRefusal extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 403: "Forbidden", 407: "Proxy Authentication Required", 431: "Request Header Fields Too Large", 502: "Bad Gateway", 504: "Gateway Timeout" };

export class NetProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  /** Every connection refused, in order (run_bash tells the model). */
  readonly refusals: Refusal[] = [];
  /** Every granted connection that failed (a name that does not resolve, a refused port): web_fetch says why. */
  readonly failures: Refusal[] = [];
  /** How many requests came with the right credentials: web_fetch checks each of its requests did. */
  asked = 0;

  constructor(private readonly opts: ProxyOptions) {
    this.server = createServer({ noDelay: true }, (client) => this.accept(client));
  }

  /** Listen on a Unix socket path (bound into the sandbox). */
  listenUnix(path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(path, () => resolve());
    });
  }

  /** Listen on 127.0.0.1 (port 0: any free port); resolves to the port. */
  listenLoopback(port = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", () => resolve((this.server.address() as { port: number }).port));
    });
  }

  /** Stop listening and cut every open connection. */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(s: Socket): void {
    this.sockets.add(s);
    s.once("close", () => this.sockets.delete(s));
  }

  private accept(client: Socket): void {
    this.track(client);
    client.on("error", () => client.destroy());
    client.setTimeout(this.opts.timeoutMs ?? 30_000, () => client.destroy());
    let buffered: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf(HEAD_END);
      if (end === -1) {
        if (buffered.length > MAX_HEAD) this.refuse(client, null, new ProxyRefusal(431, "the request head is larger than 32 KB"));
        return;
      }
      client.off("data", onData);
      client.pause();
      client.setTimeout(0);
      const head = buffered.subarray(0, end).toString("latin1");
      const rest = buffered.subarray(end + HEAD_END.length);
      this.handle(client, head, rest).catch((err: unknown) => {
        const refusal = err instanceof ProxyRefusal ? err : new ProxyRefusal(502, (err as Error).message);
        this.refuse(client, null, refusal);
      });
    };
    client.on("data", onData);
  }

  private async handle(client: Socket, head: string, rest: Buffer): Promise<void> {
    const [requestLine = "", ...headerLines] = head.split("\r\n");
    const m = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(requestLine);
    if (!m) throw new ProxyRefusal(400, "not an HTTP/1.1 proxy request");
    const [, method, uri] = m as unknown as [string, string, string];
    checkHeaderLines(headerLines);
    this.checkCredentials(headerLines);
    this.asked++;
    const { host, port, path } = parseTarget(method, uri);
    const target = netTarget(host, port);
    if (method !== "CONNECT") checkHostHeader(headerLines, host, port);
    const reason = await this.opts.gate.admit(host, port);
    if (reason !== null) return this.refuse(client, target, new ProxyRefusal(403, reason));
    let address: string;
    try {
      address = await this.checkedAddress(host, port);
    } catch (err) {
      if (err instanceof ProxyRefusal) return this.refuse(client, target, err);
      throw err;
    }
    let upstream: Socket;
    try {
      upstream = await this.connectTo(address, port);
    } catch (err) {
      return this.refuse(client, target, new ProxyRefusal(502, `cannot connect to ${target}: ${(err as Error).message}`));
    }
    if (client.destroyed) return void upstream.destroy();
    if (method === "CONNECT") {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      const first = await this.tunnelStart(client, upstream, rest, { host, port, local: this.addressKind(address) !== null });
      if (first === null) return;
      rest = first;
    } else {
      upstream.write(originFormHead(method, path, headerLines), "latin1");
    }
    if (rest.length > 0) upstream.write(rest);
    splice(client, upstream);
  }

  /**
   * Holds the client's bytes until judgeTunnelStart says what they are, while the server's go to the client at once
   * (an SSH or SMTP server speaks first). The bytes to send on, or null when the tunnel was refused or closed.
   */
  private tunnelStart(client: Socket, upstream: Socket, rest: Buffer, t: TunnelTarget): Promise<Buffer | null> {
    const limit = this.opts.helloTimeoutMs ?? 10_000;
    return new Promise((resolve) => {
      let held = rest;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let finished = false;
      const finish = (result: Buffer | null) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        client.off("data", onData);
        upstream.off("data", early);
        client.off("close", cut);
        upstream.off("close", cut);
        client.pause();
        upstream.pause();
        resolve(result);
      };
      const cut = () => {
        client.destroy();
        upstream.destroy();
        finish(null);
      };
      const early = (chunk: Buffer) => {
        if (client.write(chunk)) return;
        upstream.pause();
        client.once("drain", () => upstream.resume());
      };
      const judge = () => {
        const verdict = judgeTunnelStart(held, t);
        if (verdict.kind === "carry") return finish(held);
        if (verdict.kind === "refuse") {
          this.refuseTunnel(client, upstream, t, verdict);
          return finish(null);
        }
        // A client that starts and then stalls is cut: nothing of it is carried unjudged.
        timer ??= held.length > 0 ? setTimeout(() => {
          this.refuseTunnel(client, upstream, t, { kind: "refuse", reason: `the first bytes inside the tunnel to ${t.host}:${t.port} did not arrive whole within ${limit / 1000} s; bunker did not carry them`, answer: null });
          finish(null);
        }, limit) : undefined;
      };
      const onData = (chunk: Buffer) => {
        held = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
        judge();
      };
      upstream.on("error", cut);
      upstream.on("data", early);
      upstream.once("close", cut);
      client.once("close", cut);
      client.on("data", onData);
      judge();
      if (!finished) client.resume();
    });
  }

  /** Ends a refused tunnel: the client gets an answer it can read (a TLS alert, an HTTP 403), the command a note. */
  private refuseTunnel(client: Socket, upstream: Socket, t: TunnelTarget, r: Extract<TunnelStart, { kind: "refuse" }>): void {
    this.refusals.push({ target: netTarget(t.host, t.port), reason: r.reason });
    upstream.destroy();
    if (r.answer === "http") {
      const body = `bunker: ${r.reason}\n`;
      client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    } else if (r.answer !== null) client.end(tlsAlert(r.answer.tlsAlert));
    else client.end();
  }

  private checkCredentials(headerLines: string[]): void {
    if (this.opts.credentials === undefined) return;
    const expected = `Basic ${Buffer.from(this.opts.credentials).toString("base64")}`;
    const given = headerLines.find((l) => /^proxy-authorization:/i.test(l))?.replace(/^[^:]*:\s*/, "");
    if (given !== expected) throw new ProxyRefusal(407, "this proxy serves bunker only");
  }

  /** The address to connect to: resolved here, and a local one only when granted by address. */
  private async checkedAddress(host: string, port: number): Promise<string> {
    const literal = isIpLiteral(host);
    let addresses: string[];
    if (literal) addresses = [host.replace(/^\[|\]$/g, "")];
    else {
      try {
        addresses = await (this.opts.resolve ?? systemResolve)(host);
      } catch (err) {
        throw new ProxyRefusal(502, `cannot resolve ${host}: ${(err as { code?: string }).code ?? (err as Error).message}`);
      }
      if (addresses.length === 0) throw new ProxyRefusal(502, `cannot resolve ${host}: no addresses`);
    }
    // A deny by address holds whatever name leads there (reviewer's R11-03): every address the name gave is checked.
    if (!literal) {
      for (const address of addresses) {
        const denied = this.opts.gate.addressDenied?.(addressAsHost(address), port);
        if (denied) throw new ProxyRefusal(403, `${host} resolves to ${address}: ${denied}`);
      }
    }
    const own = ownAddresses();
    const kind = (address: string) => this.addressKind(address, own);
    for (const address of addresses) {
      if (kind(address) === null || this.opts.gate.addressGranted(addressAsHost(address), port)) return address;
    }
    const first = addresses[0]!;
    const shown = netTarget(addressAsHost(first), port);
    const firstKind = kind(first)!;
    const what = literal ? `${host} is ${article(firstKind)} address` : `${host} resolves to ${first}, ${article(firstKind)} address`;
    const rule = firstKind.startsWith("this ") ? "this machine's own addresses, as to loopback," : "loopback, link-local and private addresses";
    throw new ProxyRefusal(403, `${what}; bunker connects to ${rule} only when they are granted by address: --allow-net=${shown}`);
  }

  /** Why an address is local ("loopback", "this machine's own"…), or null for a public one. */
  private addressKind(address: string, own = ownAddresses()): string | null {
    return localAddressKind(address) ?? (own.has(canonicalAddress(address)) ? "this machine's own" : null);
  }

  private connectTo(address: string, port: number): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: address, port, noDelay: true });
      this.track(s);
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Error("timed out"));
      }, this.opts.timeoutMs ?? 30_000);
      s.once("connect", () => {
        clearTimeout(timer);
        s.off("error", reject);
        resolve(s);
      });
      s.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  private refuse(client: Socket, target: string | null, r: ProxyRefusal): void {
    const line = r.message.replace(/[\r\n]+/g, " ");
    if (target !== null) (r.status === 403 ? this.refusals : this.failures).push({ target, reason: line });
    const body = `bunker: ${line}\n`;
    const status = `${r.status} ${STATUS_TEXT[r.status] ?? "Error"}`;
    const extra = r.status === 407 ? "Proxy-Authenticate: Basic realm=\"bunker\"\r\n" : "";
    if (client.destroyed) return;
    client.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\n${extra}Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
}

/**
 * Every header line a name (a token), a colon, and a value with no CR or LF: the head is split on CRLF only, and
 * a server that also ends a line at a bare LF, or unfolds a line that starts with a space, would read a header
 * bunker never saw (`X: 1\nHost: other.example` reached the server as that Host, past checkHostHeader).
 */
function checkHeaderLines(headerLines: string[]): void {
  const bad = headerLines.find((l) => !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\r\n]*$/.test(l));
  if (bad !== undefined) throw new ProxyRefusal(400, `a header line is malformed (a bare line break, a folded line or a name with spaces): ${JSON.stringify(bad.slice(0, 80))}; bunker does not forward it`);
}

/**
 * A plain request's Host header must name the host it is judged by: the
 * server answers for the Host it is given, and one CDN fronts many sites, so
 * a granted registry.npmjs.org could otherwise carry a request for another.
 */
function checkHostHeader(headerLines: string[], host: string, port: number): void {
  const given = headerLines.filter((l) => /^host:/i.test(l)).map((l) => l.replace(/^[^:]*:\s*/, "").trim());
  if (given.length === 0) return;
  if (given.length > 1) throw new ProxyRefusal(400, "a request with more than one Host header is not forwarded");
  const hp = splitHostPort(given[0]!);
  // The port is the URL's to say (and judged); a Host without one names the same host.
  if (hp && normalizeHost(hp.host) === host && (hp.port === null || hp.port === port)) return;
  throw new ProxyRefusal(400, `the Host header names ${JSON.stringify(given[0])}, but the request is for ${netTarget(host, port)}; bunker forwards a request only to the host it names`);
}

/** Host, port and (for plain HTTP) the origin-form path of a proxy request. */
export function parseTarget(method: string, uri: string): { host: string; port: number; path: string } {
  if (method === "CONNECT") {
    const hp = splitHostPort(uri);
    if (!hp || hp.port === null) throw new ProxyRefusal(400, `CONNECT needs host:port, not ${JSON.stringify(uri)}`);
    const host = normalizeHost(hp.host);
    if (!host) throw new ProxyRefusal(400, `not a host name: ${JSON.stringify(hp.host)}`);
    return { host, port: hp.port, path: "" };
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new ProxyRefusal(400, `a proxy request names the whole URL (http://host/path), not ${JSON.stringify(uri)}`);
  }
  if (url.protocol !== "http:") throw new ProxyRefusal(400, `${url.protocol} requests go through CONNECT; only http: is forwarded as a request`);
  if (url.username || url.password) throw new ProxyRefusal(400, "credentials in the URL are not forwarded");
  return { host: normalizeHost(url.hostname) ?? url.hostname, port: Number(url.port || 80), path: `${url.pathname}${url.search}` };
}

/** The request head for the server: origin-form, no proxy headers, one request per connection. */
function originFormHead(method: string, path: string, headerLines: string[]): string {
  const drop = /^(proxy-[a-z-]*|connection|keep-alive):/i;
  const kept = headerLines.filter((l) => l !== "" && !drop.test(l));
  return `${method} ${path} HTTP/1.1\r\n${[...kept, "Connection: close"].join("\r\n")}\r\n\r\n`;
}

