// A real MCP server for the tests, written with the SDK's server side. One
// factory serves both transports:
//
//   bun tests/support/mcp-server.ts [--tools N] [--name NAME]          stdio (as bunker starts it)
//   bun tests/support/mcp-server.ts --http [--port N] [...]            streamable HTTP; prints `listening on URL`
//
// Tools: echo, picture (text and an image), link (a resource link), probe
// (tries to read, write or fetch, and says what happened: the sandbox tests),
// crash (exits mid-call), hang (never answers), flood (a huge answer), and
// with --tools N, N filler tools `tool_<i>` of about 250 bytes of schema each
// (the schema-budget tests). With --grow, a tool `grow` that adds a tool
// `grown_<n>` and drops the one it added before (the server tells the client
// its tool list changed). One prompt, `greet`.
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

/** The smallest valid PNG: one transparent pixel. */
export const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

export interface TestServerOptions {
  name: string;
  tools: number;
  grow?: boolean;
}

export function createTestServer(opts: TestServerOptions): McpServer {
  const server = new McpServer({ name: opts.name, version: "1.0.0" });
  const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

  server.registerTool("echo", { description: "Echo the text back.", inputSchema: z.object({ text: z.string() }), annotations: { readOnlyHint: true } },
    async ({ text: t }) => text(`${opts.name} says: ${t}`));
  server.registerTool("picture", { description: "A caption and a picture." }, async () => ({
    content: [{ type: "text", text: "a one-pixel picture" }, { type: "image", data: PIXEL_PNG, mimeType: "image/png" }],
  }));
  server.registerTool("link", { description: "A link to a resource." }, async () => ({
    content: [{ type: "resource_link", uri: "file:///docs/guide.md", name: "guide.md", mimeType: "text/markdown", description: "the guide" }],
  }));
  server.registerTool("probe", {
    description: "Try to rename, read a file, list a folder, make folders, write (or append to) a file or fetch a URL, and report what happened.",
    inputSchema: z.object({ read: z.string().optional(), mkdir: z.array(z.string()).optional(), write: z.string().optional(), content: z.string().optional(), append: z.boolean().optional(), laterMs: z.number().optional(), everyMs: z.number().optional(), fetch: z.string().optional(), list: z.string().optional(), rename: z.array(z.string()).length(2).optional() }),
  }, async ({ read, mkdir, write, content, append, laterMs, everyMs, fetch: url, list, rename }) => {
    const report: string[] = [];
    if (rename) report.push(attempt(`rename ${rename[0]} ${rename[1]}`, () => (renameSync(rename[0]!, rename[1]!), "ok")));
    if (read !== undefined) report.push(attempt(`read ${read}`, () => readFileSync(read, "utf8").trim()));
    if (list !== undefined) report.push(attempt(`list ${list}`, () => `[${readdirSync(list).sort().join(", ")}]`));
    for (const dir of mkdir ?? []) report.push(attempt(`mkdir ${dir}`, () => (mkdirSync(dir, { recursive: true }), "ok")));
    const writeIt = (path: string) => writeFileSync(path, content ?? "written by the MCP server\n", { flag: append ? "a" : "w" });
    // In the background: written this long after the answer (a task the server left running).
    if (write !== undefined && laterMs !== undefined) setTimeout(() => attempt("", () => (writeIt(write), "")), laterMs);
    // Now (so the file is there before the answer, however loaded the machine), then again and again until it is
    // stopped (a task that keeps rewriting the file).
    else if (write !== undefined && everyMs !== undefined) {
      report.push(attempt(`write ${write}`, () => (writeIt(write), "ok")));
      setInterval(() => attempt("", () => (writeIt(write), "")), everyMs);
    }
    else if (write !== undefined) report.push(attempt(`write ${write}`, () => (writeIt(write), "ok")));
    if (url !== undefined) {
      try {
        const r = await fetch(url, { signal: AbortSignal.timeout(3000) });
        report.push(`fetch ${url}: ${r.status} ${(await r.text()).trim()}`);
      } catch (e) {
        report.push(`fetch ${url}: FAILED ${(e as Error).message}`);
      }
    }
    return text(report.join("\n"));
  });
  server.registerTool("crash", { description: "Exit in the middle of the call." }, async () => {
    process.stderr.write("about to crash\n");
    process.exit(3);
  });
  server.registerTool("hang", { description: "Never answer." }, () => new Promise<never>(() => {}));
  server.registerTool("flood", { description: "Answer with far too much text." }, async () => text("flood ".repeat(1_000_000)));
  server.registerTool("state", { description: "Write a file in the server's state directory and read it back." }, async () => {
    const dir = process.env.BUNKER_MCP_STATE_DIR ?? "";
    return text(attempt(`state ${dir}`, () => (writeFileSync(`${dir}/note`, "kept"), readFileSync(`${dir}/note`, "utf8"))));
  });
  for (let i = 0; i < opts.tools; i++) {
    server.registerTool(`tool_${i}`, {
      description: `Filler tool number ${i} of ${opts.name}: looks up record ${i} in the ${opts.name} catalogue and returns it.`,
      inputSchema: z.object({ id: z.string().describe("the record id"), verbose: z.boolean().optional().describe("include every field") }),
    }, async ({ id }) => text(`${opts.name} tool_${i} found record ${id}`));
  }
  if (opts.grow) {
    let grown: { remove(): void } | undefined;
    let n = 0;
    server.registerTool("grow", { description: "Add a tool, drop the one added before." }, async () => {
      grown?.remove();
      const name = `grown_${++n}`;
      grown = server.registerTool(name, { description: `Grown tool ${n}.` }, async () => text(`${name} ran`));
      return text(`now offering ${name}`);
    });
  }
  server.registerPrompt("greet", { description: "Greet someone.", argsSchema: z.object({ who: z.string() }) }, ({ who }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Please greet ${who} warmly.` } }],
  }));
  return server;
}

function attempt(what: string, fn: () => string): string {
  try {
    return `${what}: ${fn()}`;
  } catch (e) {
    return `${what}: FAILED ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
}

if (import.meta.main) {
  // Other arguments (paths, --flag=PATH) are accepted and ignored: the sandbox tests name files with them, as real servers take them.
  const { values } = parseArgs({
    strict: false,
    allowPositionals: true,
    options: { http: { type: "boolean" }, port: { type: "string" }, tools: { type: "string" }, name: { type: "string" }, grow: { type: "boolean" } },
  });
  const opts: TestServerOptions = { name: String(values.name ?? "test"), tools: Number(values.tools ?? 0), grow: values.grow === true };
  if (values.http) {
    const handler = createMcpHandler(() => createTestServer(opts));
    const server = Bun.serve({ port: Number(values.port ?? 0), hostname: "127.0.0.1", fetch: (req) => handler.fetch(req) });
    console.log(`listening on http://127.0.0.1:${server.port}/mcp`);
  } else {
    serveStdio(() => createTestServer(opts));
  }
}
