import { expect, test } from "bun:test";
import { convertResult } from "../../../src/mcp/results.ts";
import { PIXEL_PNG } from "../../support/mcp-server.ts";

test("text, images the API takes, resource links and embedded text become what the model gets", async () => {
  const out = await convertResult({
    content: [
      { type: "text", text: "hello" },
      { type: "image", mimeType: "image/png", data: PIXEL_PNG },
      { type: "image", mimeType: "image/tiff", data: "AAAA" },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
      { type: "resource_link", uri: "file:///a.md", name: "a.md" },
      { type: "resource", resource: { uri: "mem://x", text: "inner" } },
      { type: "audio", mimeType: "audio/wav", data: "AAAA" },
    ],
  }, "srv");
  expect(out.isError).toBe(false);
  expect(out.images).toEqual([{ mediaType: "image/png", data: PIXEL_PNG }]);
  expect(out.content).toBe([
    "hello",
    "[image of type image/tiff left out: the model takes PNG, JPEG, GIF and WebP]",
    "[image 3 looks like a PNG image but cannot be read: decode failed]",
    "[resource link: a.md file:///a.md]",
    "[resource mem://x]\ninner",
    "[audio left out: the model does not take audio]",
  ].join("\n"));
});

test("isError is passed on; structured content alone is the answer", async () => {
  expect(await convertResult({ content: [{ type: "text", text: "no" }], isError: true }, "s")).toEqual({ content: "no", isError: true });
  expect((await convertResult({ structuredContent: { a: 1 } }, "s")).content).toBe('{\n  "a": 1\n}');
});

test("garbage is an error naming the server, never a throw", async () => {
  expect(await convertResult("nope", "s")).toEqual({ content: "The MCP server s sent an invalid result (not an object).", isError: true });
  expect((await convertResult({ content: "text" }, "s")).isError).toBe(true);
  expect((await convertResult({ content: [{ type: "image", mimeType: "image/png", data: "not base64!" }] }, "s")).content).toBe("[image left out: its data is not base64]");
});

test("a flood is cut at the source with a note", async () => {
  const out = await convertResult({ content: [{ type: "text", text: "line\n".repeat(100_000) }] }, "s");
  expect(out.content.length).toBeLessThan(25_000);
  expect(out.content).toContain("[output truncated");
});
