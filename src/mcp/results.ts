// An MCP tool result → what bunker hands the model: text (bounded like every
// tool's output), images in a type the Messages API accepts, resource links
// and embedded resources as text that says what they are. Anything the API
// cannot take (audio, other image types, binary blobs) is named, not sent.
// Pure: the input is whatever the server sent, checked here, never trusted.
import { boundOutput } from "../tools/bound.ts";
import type { ToolImage } from "../tools/tool.ts";

export interface McpToolOutput {
  content: string;
  isError: boolean;
  images?: ToolImage[];
}

const API_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
/** The API's limit per image is 5 MB of decoded data; base64 is 4/3 of that. */
const MAX_IMAGE_BASE64 = Math.floor((5 * 1024 * 1024 * 4) / 3);
const MAX_IMAGES = 8;

type Block = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function describeResource(b: Block): string {
  const name = str(b.name) ?? str(b.title) ?? "";
  const uri = str(b.uri) ?? "(no uri)";
  const extra = [str(b.mimeType), str(b.description)].filter(Boolean).join("; ");
  return `[resource link: ${name ? `${name} ` : ""}${uri}${extra ? ` (${extra})` : ""}]`;
}

/** `result` as the server sent it (a CallToolResult, or anything), and the server for the messages. */
export function convertResult(result: unknown, server: string): McpToolOutput {
  if (typeof result !== "object" || result === null) {
    return { content: `The MCP server ${server} sent an invalid result (not an object).`, isError: true };
  }
  const r = result as Block;
  const parts: string[] = [];
  const images: ToolImage[] = [];
  const blocks = Array.isArray(r.content) ? (r.content as unknown[]) : [];
  for (const raw of blocks) {
    if (typeof raw !== "object" || raw === null) continue;
    const b = raw as Block;
    switch (b.type) {
      case "text":
        if (typeof b.text === "string") parts.push(b.text);
        break;
      case "image": {
        const mime = str(b.mimeType) ?? "";
        const data = str(b.data) ?? "";
        if (!API_IMAGE_TYPES.has(mime)) parts.push(`[image of type ${mime || "unknown"} left out: the model takes PNG, JPEG, GIF and WebP]`);
        else if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data)) parts.push("[image left out: its data is not base64]");
        else if (data.length > MAX_IMAGE_BASE64) parts.push(`[image left out: ${Math.round((data.length * 3) / 4 / 1024)} KB is over the model's 5 MB limit]`);
        else if (images.length >= MAX_IMAGES) parts.push(`[image left out: at most ${MAX_IMAGES} images per result]`);
        else images.push({ mediaType: mime as ToolImage["mediaType"], data });
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
