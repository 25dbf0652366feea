// Image files for tests, made on the spot: a PNG of any size (noise or flat),
// and the same picture as JPEG, WebP or GIF.
import { deflateSync } from "node:zlib";

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(Bun.hash.crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** An RGB PNG, `noise` for random pixels (hard to compress), else a gradient. */
export function makePng(width: number, height: number, opts: { noise?: boolean } = {}): Buffer {
  const row = 1 + width * 3;
  const raw = Buffer.alloc(row * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * row + 1 + x * 3;
      if (opts.noise) {
        raw[i] = Math.random() * 256;
        raw[i + 1] = Math.random() * 256;
        raw[i + 2] = Math.random() * 256;
      } else {
        raw[i] = x & 0xff;
        raw[i + 1] = y & 0xff;
        raw[i + 2] = 128;
      }
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

/** A PNG header that claims `width`×`height` but holds almost nothing (a decompression bomb's shape). */
export function pngClaiming(width: number, height: number): Buffer {
  const png = makePng(1, 1);
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  return png;
}

export const jpegOf = async (png: Buffer) => Buffer.from(await new Bun.Image(png).jpeg().bytes());
export const webpOf = async (png: Buffer) => Buffer.from(await new Bun.Image(png).webp().bytes());
/** A 1×1 GIF. */
export const GIF_1x1 = Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64");
