// ClientHellos for the tunnel tests: real ones, captured from Bun's TLS client
// (node:tls) as a server sees them, and made-up ones with exactly the
// extensions a test needs (a duplicate, an ECH offer, two names).
import { connect } from "node:tls";
import { createServer } from "node:net";

/** The first flight a real TLS client sends when asked for `servername` (undefined: an address, so no SNI). */
export async function captureClientHello(servername?: string): Promise<Buffer> {
  let resolveBytes!: (b: Buffer) => void;
  const bytes = new Promise<Buffer>((r) => (resolveBytes = r));
  const server = createServer((s) => {
    let got = Buffer.alloc(0);
    s.on("data", (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const length = got.length >= 5 ? got.readUInt16BE(3) : Infinity;
      if (got.length >= 5 + length) {
        resolveBytes(got);
        s.destroy();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const client = connect({ host: "127.0.0.1", port: (server.address() as { port: number }).port, rejectUnauthorized: false, ...(servername !== undefined ? { servername } : {}) });
  client.on("error", () => {});
  try {
    return await bytes;
  } finally {
    client.destroy();
    server.close();
  }
}

const u16 = (n: number) => [n >> 8, n & 0xff];

/** One extension: type, then its data with a 16-bit length. */
export function extension(type: number, data: number[]): number[] {
  return [...u16(type), ...u16(data.length), ...data];
}

/** A server_name extension's data holding these host names (one is what a client sends). */
export function serverNameData(...names: string[]): number[] {
  const entries = names.flatMap((n) => [0, ...u16(n.length), ...Buffer.from(n, "latin1")]);
  return [...u16(entries.length), ...entries];
}

/** A ClientHello handshake message (type and 24-bit length included) with these extension bytes (null: no extension block). */
export function helloMessage(extensions: number[] | null): Buffer {
  const body = [3, 3, ...new Array(32).fill(7), 0, ...u16(2), 0x13, 0x01, 1, 0, ...(extensions === null ? [] : [...u16(extensions.length), ...extensions])];
  return Buffer.from([1, body.length >> 16, (body.length >> 8) & 0xff, body.length & 0xff, ...body]);
}

/** `message` in handshake records of at most `size` bytes each. */
export function inRecords(message: Buffer, size = 16_384): Buffer {
  const out: Buffer[] = [];
  for (let at = 0; at < message.length; at += size) {
    const part = message.subarray(at, at + size);
    out.push(Buffer.from([22, 3, 1, ...u16(part.length)]), part);
  }
  return Buffer.concat(out);
}
