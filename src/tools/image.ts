// Images for the model: a PNG, JPEG, GIF or WebP file becomes a base64 image
// block the Messages API accepts. Within the API's limits the bytes go as
// they are; larger images are scaled down (the API would scale them to about
// 1568 px anyway); what cannot be made to fit is refused with a sentence.
import type { ImageBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { ToolError } from "./tool.ts";
import { formatSize } from "../text/size.ts";

export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface ToolImage {
  mediaType: ImageMediaType;
  /** Base64 of the bytes sent. */
  data: string;
}

export interface PreparedImage extends ToolImage {
  /** One line for the model and the person: "shot.png: PNG image, 1200×800, 240 KB". */
  summary: string;
}

/** The API refuses an image whose base64 is larger than this. */
export const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;
/** The API scales anything larger down to about this; sending more only costs time. */
export const TARGET_IMAGE_SIDE = 1568;
/** A decompression bomb is refused before its pixels are allocated. */
const MAX_PIXELS = 100_000_000;

const NAMES: Record<ImageMediaType, string> = { "image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP" };

/** Which image the bytes are, by their magic numbers (not the file name), or null. */
export function sniffImage(b: Uint8Array): ImageMediaType | null {
  // A plain loop: this runs on every file read_file reads, and array helpers run slowly the first time.
  const at = (i: number, ...bytes: number[]) => {
    for (let k = 0; k < bytes.length; k++) if (b[i + k] !== bytes[k]) return false;
    return true;
  };
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (at(0, 0xff, 0xd8, 0xff)) return "image/jpeg";
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61) return "image/gif";
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return "image/webp";
  return null;
}

/** The API's image block for an image. */
export function imageBlock(image: ToolImage): ImageBlockParam {
  return { type: "image", source: { type: "base64", media_type: image.mediaType, data: image.data } };
}

const base64Size = (bytes: number) => Math.ceil(bytes / 3) * 4;

/**
 * The image block for `bytes` (already sniffed as `mediaType`), scaled down
 * when a side is over TARGET_IMAGE_SIDE or the data over the API's limit.
 * Throws ToolError with a sentence the model (or the person) can act on.
 */
export async function prepareImage(bytes: Uint8Array, mediaType: ImageMediaType, display: string): Promise<PreparedImage> {
  let meta: { width: number; height: number };
  try {
    meta = await new Bun.Image(bytes, { maxPixels: MAX_PIXELS }).metadata();
    // The header alone can be whole while the pixels are cut short: decode it all (the API would).
    await new Bun.Image(bytes, { maxPixels: MAX_PIXELS }).resize(1, 1).png().bytes();
  } catch (err) {
    throw new ToolError(`${display} looks like a ${NAMES[mediaType]} image but cannot be read: ${imageError(err)}`);
  }
  const { width, height } = meta;
  const what = `${display}: ${NAMES[mediaType]} image, ${width}×${height}, ${formatSize(bytes.length)}`;
  if (Math.max(width, height) <= TARGET_IMAGE_SIDE && base64Size(bytes.length) <= MAX_IMAGE_BASE64) {
    return { mediaType, data: Buffer.from(bytes).toString("base64"), summary: what };
  }
  // Scale to the size the API works at; PNG stays PNG (screenshots), the rest and anything still too big become JPEG.
  let out: Uint8Array;
  let outType: ImageMediaType;
  try {
    const scaled = () => new Bun.Image(bytes, { maxPixels: MAX_PIXELS }).resize(TARGET_IMAGE_SIDE, TARGET_IMAGE_SIDE, { fit: "inside", withoutEnlargement: true });
    outType = mediaType === "image/png" ? "image/png" : "image/jpeg";
    out = outType === "image/png" ? await scaled().png().bytes() : await scaled().jpeg({ quality: 85 }).bytes();
    if (base64Size(out.length) > MAX_IMAGE_BASE64) {
      outType = "image/jpeg";
      out = await scaled().jpeg({ quality: 75 }).bytes();
    }
  } catch (err) {
    throw new ToolError(`${display} (${NAMES[mediaType]}, ${width}×${height}) is too large for the API and could not be scaled down: ${imageError(err)}`);
  }
  if (base64Size(out.length) > MAX_IMAGE_BASE64) {
    throw new ToolError(`${display} is too large for the API even scaled down to ${TARGET_IMAGE_SIDE} px (${formatSize(out.length)}; the limit is 5 MB)`);
  }
  const s = await new Bun.Image(out).metadata();
  return {
    mediaType: outType,
    data: Buffer.from(out).toString("base64"),
    summary: `${what}, scaled to ${s.width}×${s.height} ${NAMES[outType]} (${formatSize(out.length)}) to fit the API's limits`,
  };
}

function imageError(err: unknown): string {
  const code = (err as { code?: string }).code;
  if (code === "ERR_IMAGE_TOO_MANY_PIXELS") return `it has more than ${MAX_PIXELS / 1e6} million pixels`;
  return (err instanceof Error ? err.message : String(err)).replace(/^Image: /, "");
}
