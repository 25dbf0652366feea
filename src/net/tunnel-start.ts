// What a CONNECT tunnel may carry, judged from the client's first bytes. The
// gate judged the host the tunnel was opened to, but a front that serves many
// sites (a CDN) routes by the name the client asks for inside: TLS's server
// name (SNI), plain HTTP's Host header. So:
//   TLS          the ClientHello's server name must be the tunnel's host (case and a trailing dot aside;
//                `localhost` is 127.0.0.1); no name is accepted only for a tunnel opened to an address;
//                Encrypted Client Hello is refused (its real name is hidden from bunker)
//   plain HTTP   (a method and a space first, after any number of blank lines: see httpStart) carried only to an address granted by address (the forwarder's loopback tunnels, a
//                server on the person's network); elsewhere it must come as a proxy request, where the
//                proxy checks its Host header
//   other bytes  carried (SSH, a database's protocol: no name to front with), except on port 443,
//                which is carried only as TLS
// What TLS carries after the handshake (the Host header inside it) cannot be read without
// intercepting TLS, which bunker does not do. Pure: no I/O.
import { normalizeHost } from "./host-pattern.ts";
import { readClientHello, startsTls } from "./tls-hello.ts";

export interface TunnelTarget {
  /** The host as CONNECT named it, normalized (host-pattern.ts). */
  host: string;
  port: number;
  /** The address it goes to is local (loopback, private, this machine's): connecting there needed a grant by address. */
  local: boolean;
}

/** TLS alert descriptions the proxy answers a refused ClientHello with (RFC 8446 6.2). */
export const ACCESS_DENIED = 49;
export const DECODE_ERROR = 50;

export type TunnelStart =
  | { kind: "more" }
  | { kind: "carry" }
  /** `answer`: a TLS alert for a TLS client, an HTTP 403 for an HTTP one, nothing otherwise. */
  | { kind: "refuse"; reason: string; answer: { tlsAlert: number } | "http" | null };

const TCHAR = "A-Za-z0-9!#$%&'*+.^_`|~-";
/**
 * A request line's start: a method and a space. A method is any token (RFC 9110 5.6.2: nginx routes `A_B` or a
 * 40-letter word by the Host header as it does GET). One starting with a letter and its space is taken for HTTP at
 * once (a text protocol that starts so, SMTP's `EHLO x`, is too).
 */
const HTTP_METHOD = new RegExp(`^[A-Za-z][${TCHAR}]*[ \t]`);
/** A token not yet followed by its space: wait for more, up to a request line's usual limit (nginx's 8 KB). */
const TOKEN_SO_FAR = new RegExp(`^[${TCHAR}]*$`);
/**
 * A token starting otherwise (nginx also takes `_GET` and `-GET`, HAProxy any token: red team 9's F03) is HTTP when
 * its line is a request line, `TOKEN TARGET HTTP/…`. Told apart by the rest of its line: git's pkt-line
 * (`0032git-upload-pack /x\0host=…`) has a control character in it, which no request line has.
 */
const TOKEN_SPACE = new RegExp(`^[${TCHAR}]+[ \t]`);
// HTTP/ anywhere after the target: nginx before 1.21.1 took spaces inside it (`_GET /a b HTTP/1.1`; the reviewer).
const REQUEST_LINE = new RegExp(`^[${TCHAR}]+[ \t]+[^\s].*[ \t]HTTP/`, "i");
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;
const MAX_REQUEST_START = 8192;

/** Whether `start` (the first bytes after any blank lines) is an HTTP request's, or more is needed to tell. */
function httpStart(start: string, full: boolean): "http" | "not" | "more" {
  if (start === "" || TOKEN_SO_FAR.test(start)) return full ? "http" : "more";
  if (HTTP_METHOD.test(start)) return "http";
  if (!TOKEN_SPACE.test(start)) return "not";
  const end = start.search(/[\r\n]/);
  const line = end === -1 ? start : start.slice(0, end);
  if (CONTROL.test(line)) return "not";
  if (end === -1) return full ? "http" : "more";
  return REQUEST_LINE.test(line) ? "http" : "not";
}

/** The verdict on a tunnel's first bytes (all the client has sent so far); "more" until there are enough. */
export function judgeTunnelStart(bytes: Uint8Array, t: TunnelTarget): TunnelStart {
  if (bytes.length === 0) return { kind: "more" };
  const target = `${t.host}:${t.port}`;
  if (startsTls(bytes)) return judgeHello(bytes, t, target);
  // A server may skip any number of blank lines before a request line (RFC 9112 2.2; nginx does) and take a
  // method in any case: all of the blank lines are skipped here too, not only those in the first bytes.
  let from = 0;
  while (from < bytes.length && (bytes[from] === 10 || bytes[from] === 13 || bytes[from] === 9 || bytes[from] === 32)) from++;
  const start = new TextDecoder("latin1").decode(bytes.subarray(from, from + MAX_REQUEST_START));
  const http = httpStart(start, bytes.length >= MAX_REQUEST_START);
  if (http === "more") return { kind: "more" };
  if (http === "http") {
    if (t.port === 443) return refuse(`the tunnel to ${target} carried plain HTTP; port 443 is carried only as TLS, whose server name bunker checks`, "http");
    if (t.local) return { kind: "carry" };
    return refuse(`plain HTTP inside a CONNECT tunnel to ${target} is not carried (its Host header could name another site on the same server): send it as a proxy request (http://${target}/…), where bunker checks the Host header`, "http");
  }
  if (t.port === 443) return refuse(`the tunnel to ${target} carried something other than TLS; port 443 is carried only as TLS, whose server name bunker checks`, null);
  return { kind: "carry" };
}

function judgeHello(bytes: Uint8Array, t: TunnelTarget, target: string): TunnelStart {
  const hello = readClientHello(bytes);
  if (hello.kind === "more") return hello;
  if (hello.kind === "malformed") return refuse(`the TLS ClientHello inside the tunnel to ${target} is malformed (${hello.reason}); bunker did not carry it`, { tlsAlert: DECODE_ERROR });
  if (hello.ech) return refuse(`the TLS client inside the tunnel to ${target} offered Encrypted Client Hello, which hides the server it asks for from bunker; turn ECH off in the client (Chrome and Chromium, headless too: --disable-features=EncryptedClientHello)`, { tlsAlert: ACCESS_DENIED });
  if (hello.serverName === null) {
    if (isAddress(t.host)) return { kind: "carry" };
    return refuse(`the TLS client inside the tunnel to ${target} named no server (no SNI); bunker carries TLS to a host name only when the ClientHello names that host`, { tlsAlert: ACCESS_DENIED });
  }
  if (sameHost(hello.serverName, t.host)) return { kind: "carry" };
  return refuse(`the TLS client inside the tunnel to ${target} asked for the server ${hello.serverName} (SNI); a tunnel carries TLS only to the host it was opened to (a server that fronts many sites would serve the other one): grant and connect to ${hello.serverName} itself`, { tlsAlert: ACCESS_DENIED });
}

const refuse = (reason: string, answer: { tlsAlert: number } | "http" | null): TunnelStart => ({ kind: "refuse", reason, answer });

/** An IP literal as host-pattern.ts normalizes it (IPv6 bracketed). */
function isAddress(host: string): boolean {
  return host.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(host);
}

/** The same host, as the URL parser reads both (case, `localhost`, numeric forms), a trailing dot aside. */
export function sameHost(serverName: string, host: string): boolean {
  const strip = (h: string) => h.replace(/\.$/, "");
  const name = normalizeHost(serverName);
  return name !== null && strip(name) === strip(host);
}

/** The bytes of a fatal TLS alert record. */
export function tlsAlert(description: number): Uint8Array {
  return new Uint8Array([21, 3, 3, 0, 2, 2, description]);
}
