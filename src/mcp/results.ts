// An MCP tool result → what bunker hands the model: text (bounded like every
// tool's output), images in a type the Messages API accepts, resource links
// and embedded resources as text that says what they are. Anything the API
// cannot take (audio, other image types, binary blobs) is named, not sent.
// Pure: the input is whatever the server sent, checked here, never trusted.
import { boundOutput } from "../tools/bound.ts";
import { prepareImage, sniffImage, type ToolImage } from "../tools/image.ts";
import { ToolError } from "../tools/tool.ts";

export interface McpToolOutput {
  content: string;
  isError: boolean;
  images?: ToolImage[];
}

const MAX_IMAGES = 8;
/** Larger image data from a server is not even decoded. */
const MAX_IMAGE_INPUT_BASE64 = 32 * 1024 * 1024;

type Block = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function describeResource(b: Block): string {
  const name = str(b.name) ?? str(b.title) ?? "";
  const uri = str(b.uri) ?? "(no uri)";
  const extra = [str(b.mimeType), str(b.description)].filter(Boolean).join("; ");
  return `[resource link: ${name ? `${name} ` : ""}${uri}${extra ? ` (${extra})` : ""}]`;
}

/** An image block from a server: checked to be what it says and to decode, scaled to the API's limits; or a sentence why not. */
async function toImage(b: Block, nth: number): Promise<ToolImage | string> {
  const data = str(b.data) ?? "";
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length === 0) return "[image left out: its data is not base64]";
  if (data.length > MAX_IMAGE_INPUT_BASE64) return `[image left out: ${Math.round((data.length * 3) / 4 / 1048576)} MB is far over the model's limit]`;
  const bytes = Buffer.from(data, "base64");
  const kind = sniffImage(bytes);
  if (!kind) return `[image of type ${str(b.mimeType) ?? "unknown"} left out: the model takes PNG, JPEG, GIF and WebP]`;
  try {
    const { mediaType, data: sent } = await prepareImage(bytes, kind, `image ${nth}`);
    return { mediaType, data: sent };
  } catch (err) {
    if (err instanceof ToolError) return `[${err.message}]`;
    throw err;
  }
}

/** `result` as the server sent it (a CallToolResult, or anything), and the server for the messages. */
export async function convertResult(result: unknown, server: string): Promise<McpToolOutput> {
  if (typeof result !== "object" || result === null) {
    return { content: `The MCP server ${server} sent an invalid result (not an object).`, isError: true };
  }
  const r = result as Block;
  const parts: string[] = [];
  const images: ToolImage[] = [];
  let seen = 0;
  const blocks = Array.isArray(r.content) ? (r.content as unknown[]) : [];
  for (const raw of blocks) {
    if (typeof raw !== "object" || raw === null) continue;
    const b = raw as Block;
    switch (b.type) {
      case "text":
        if (typeof b.text === "string") parts.push(b.text);
        break;
      case "image": {
        if (images.length >= MAX_IMAGES) {
          parts.push(`[image left out: at most ${MAX_IMAGES} images per result]`);
          break;
        }
        const image = await toImage(b, ++seen);
        if (typeof image === "string") parts.push(image);
        else images.push(image);
        break;
      }
      case "resource_link":
        parts.push(describeResource(b));
        break;
      case "resource": {
        const res = (typeof b.resource === "object" && b.resource !== null ? b.resource : {}) as Block;
        if (typeof res.text === "string") parts.push(`[resource ${str(res.uri) ?? ""}]\n${res.text}`);
        else parts.push(`${describeResource(res)} [binary content left out]`);
        break;
      }
      case "audio":
        parts.push("[audio left out: the model does not take audio]");
        break;
      default:
        parts.push(`[content of type ${JSON.stringify(b.type)} left out]`);
    }
  }
  // No content blocks, but structured content: that is the answer.
  if (parts.length === 0 && images.length === 0 && r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent, null, 2));
  if (!Array.isArray(r.content) && r.structuredContent === undefined) {
    return { content: `The MCP server ${server} sent an invalid result (no "content" list).`, isError: true };
  }
  const text = boundOutput(parts.join("\n"), { hint: "the MCP server's answer was cut; ask for less (a narrower query, fewer results)" });
  return { content: text, isError: r.isError === true, ...(images.length ? { images } : {}) };
}
