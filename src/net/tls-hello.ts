// The server name a TLS client asks for, read from its ClientHello (RFC 8446
// 4.1.2, RFC 6066 3): what a front (a CDN, a shared load balancer) routes by.
// The proxy reads it from the first bytes of a CONNECT tunnel to check that
// it names the host the tunnel was opened to. Strict on purpose: anything a
// lenient server might read differently from bunker (a duplicate extension,
// two names, trailing bytes) is malformed, and malformed is refused.
// Pure: no I/O.

/** TLS record content types and handshake types used here. */
const HANDSHAKE_RECORD = 22;
const CLIENT_HELLO = 1;
/** The largest plaintext record (RFC 8446 5.1: 2^14). */
export const MAX_RECORD = 16_384;
/** A ClientHello larger than this is refused (post-quantum key shares make real ones about 2 KB; 64 KB is generous). */
export const MAX_HELLO = 64 * 1024;
const SERVER_NAME = 0x0000;
/** encrypted_client_hello (RFC 9849) and the draft ESNI extension: the real name is inside, encrypted. */
const ECH_EXTENSIONS = new Set([0xfe0d, 0xffce]);

export type HelloRead =
  | { kind: "more" }
  | { kind: "hello"; serverName: string | null; ech: boolean }
  | { kind: "malformed"; reason: string };

/**
 * Whether `first` (at least one byte) starts a TLS record of any type (change_cipher_spec 20 to heartbeat 24):
 * the ClientHello must come first, so a lenient server cannot be handed a record bunker skipped before the hello.
 */
export function startsTls(first: Uint8Array): boolean {
  return first[0]! >= 20 && first[0]! <= 24 && (first.length < 2 || first[1] === 3);
}

const malformed = (reason: string): HelloRead => ({ kind: "malformed", reason });

/**
 * Reads the ClientHello from the bytes a client sent so far (records may be split anywhere across reads, and the
 * hello across records): "more" until it is whole, then its server name, or why it is malformed.
 */
export function readClientHello(bytes: Uint8Array): HelloRead {
  const fragments: Uint8Array[] = [];
  let handshake = 0;
  let off = 0;
  while (off + 5 <= bytes.length) {
    if (bytes[off] !== HANDSHAKE_RECORD) return malformed(`a TLS record of type ${bytes[off]} came before the ClientHello was whole`);
    if (bytes[off + 1] !== 3 || bytes[off + 2]! > 4) return malformed("the record's version is not TLS");
    const length = (bytes[off + 3]! << 8) | bytes[off + 4]!;
    if (length === 0) return malformed("an empty handshake record");
    if (length > MAX_RECORD) return malformed(`a record of ${length} bytes, over TLS's 16 KB`);
    if (off + 5 + length > bytes.length) break;
    fragments.push(bytes.subarray(off + 5, off + 5 + length));
    handshake += length;
    off += 5 + length;
    if (handshake < 4) continue;
    const head = joined(fragments, 4);
    if (head[0] !== CLIENT_HELLO) return malformed(`the first handshake message is of type ${head[0]}, not a ClientHello`);
    const size = (head[1]! << 16) | (head[2]! << 8) | head[3]!;
    if (size > MAX_HELLO) return malformed(`a ClientHello of ${size} bytes, over bunker's limit of 64 KB`);
    if (handshake >= 4 + size) return parseHelloBody(joined(fragments, 4 + size).subarray(4));
  }
  if (bytes.length > MAX_HELLO + 5 * Math.ceil(MAX_HELLO / MAX_RECORD) + 5) return malformed("no whole ClientHello in the first 64 KB");
  return { kind: "more" };
}

/** The first `n` bytes of the fragments, joined. */
function joined(fragments: Uint8Array[], n: number): Uint8Array {
  const out = new Uint8Array(n);
  let at = 0;
  for (const f of fragments) {
    if (at >= n) break;
    const part = f.subarray(0, n - at);
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A cursor over the hello's bytes that throws (caught below) when a length runs past the end. */
class Reader {
  at = 0;
  constructor(readonly bytes: Uint8Array, readonly end = bytes.length) {}
  take(n: number, what: string): Uint8Array {
    if (this.at + n > this.end) throw new Malformed(`${what} runs past the end of the ClientHello`);
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  u8(what: string): number {
    return this.take(1, what)[0]!;
  }
  u16(what: string): number {
    const b = this.take(2, what);
    return (b[0]! << 8) | b[1]!;
  }
  get left(): number {
    return this.end - this.at;
  }
}

class Malformed extends Error {}

function parseHelloBody(body: Uint8Array): HelloRead {
  try {
    const r = new Reader(body);
    r.take(2 + 32, "the version and random");
    const session = r.u8("the session id's length");
    if (session > 32) throw new Malformed("a session id longer than 32 bytes");
    r.take(session, "the session id");
    const suites = r.u16("the cipher suites' length");
    if (suites === 0 || suites % 2 !== 0) throw new Malformed("a cipher suite list of odd or zero length");
    r.take(suites, "the cipher suites");
    const compression = r.u8("the compression methods' length");
    if (compression === 0) throw new Malformed("no compression method");
    r.take(compression, "the compression methods");
    if (r.left === 0) return { kind: "hello", serverName: null, ech: false };
    const extensionsLength = r.u16("the extensions' length");
    if (extensionsLength !== r.left) throw new Malformed("the extensions' length does not match the ClientHello's");
    const seen = new Set<number>();
    let serverName: string | null = null;
    let ech = false;
    while (r.left > 0) {
      const type = r.u16("an extension's type");
      const data = r.take(r.u16("an extension's length"), "an extension");
      // Two of one kind: a server may read either one (RFC 8446 4.2 forbids it).
      if (seen.has(type)) throw new Malformed(`extension ${type} appears twice`);
      seen.add(type);
      if (type === SERVER_NAME) serverName = parseServerName(data);
      if (ECH_EXTENSIONS.has(type)) ech = true;
    }
    return { kind: "hello", serverName, ech };
  } catch (err) {
    if (err instanceof Malformed) return malformed(err.message);
    throw err;
  }
}

/** The one host_name in a server_name extension (OpenSSL, too, takes exactly one entry of that type). */
function parseServerName(data: Uint8Array): string {
  const r = new Reader(data);
  const listLength = r.u16("the server name list's length");
  if (listLength !== r.left) throw new Malformed("the server name list's length does not match its extension's");
  if (r.u8("the server name's type") !== 0) throw new Malformed("a server name that is not a host name");
  const name = r.take(r.u16("the server name's length"), "the server name");
  if (r.left !== 0) throw new Malformed("more than one server name");
  if (name.length > 254) throw new Malformed("a server name longer than a DNS name can be");
  const text = new TextDecoder("latin1").decode(name);
  // A DNS name (A-labels): letters, digits, hyphens, dots; an underscore is seen in the wild. Nothing else is shown or compared.
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/.test(text)) throw new Malformed("the server name is not a DNS name");
  return text;
}
