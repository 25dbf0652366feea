// One MCP server's connection (src/mcp/connection.ts) and its tools as
// bunker tools (src/mcp/tools.ts), with a real stdio server (the SDK's server
// side), unconfined for speed: the sandboxed runs are end to end.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { parseMcpServers } from "../../../src/mcp/config.ts";
import { McpCallError, McpConnection } from "../../../src/mcp/connection.ts";
import { mcpTool } from "../../../src/mcp/tools.ts";
import { makeContext, tempDir } from "../../support/context.ts";
import { testServer } from "../../support/mcp.ts";

const root = tempDir();
const [def] = parseMcpServers({ c: testServer(["--name", "c"]) }, { source: "user", file: "f", root, home: "/h", env: {}, defaultTimeoutMs: 2000 }).servers;
const lines: string[] = [];
const conn = new McpConnection(
  def!,
  { root, plan: { confined: false }, stateDir: join(root, "state"), allowNetAll: false, denyHosts: [], denyAllNet: false, env: process.env },
  { onState: (_c, line) => line && lines.push(line) },
  // Generous, as in hub.test.ts: a server start is a bun start, slow on a loaded machine.
  60_000,
);
beforeAll(() => conn.start(), 90_000);
afterAll(() => conn.stop());

const signal = () => new AbortController().signal;

test("started: ready, with the server's tools as it described them", () => {
  expect(conn.state).toBe("ready");
  expect(conn.tools.find((t) => t.name === "echo")).toEqual({ name: "echo", description: "Echo the text back.", inputSchema: expect.objectContaining({ type: "object" }), readOnlyHint: true });
});

test("a call returns the server's answer; one that fails or hangs is an error the model can act on", async () => {
  expect(await conn.call("echo", { text: "hi" }, { signal: signal() })).toMatchObject({ content: [{ type: "text", text: "c says: hi" }] });
  const hang = conn.call("hang", {}, { signal: signal() });
  await expect(hang).rejects.toThrow("the MCP server c did not answer hang within 2 s; the call was cancelled");
  await expect(hang).rejects.toBeInstanceOf(McpCallError);
  const controller = new AbortController();
  const stopped = conn.call("hang", {}, { signal: controller.signal });
  controller.abort();
  await expect(stopped).rejects.toThrow("Interrupted by the user.");
});

test("as a bunker tool: named mcp__server__tool, its arguments summarised, every call asks, the result converted", async () => {
  const echo = mcpTool(conn, conn.tools.find((t) => t.name === "echo")!);
  expect(echo.name).toBe("mcp__c__echo");
  expect(echo.summarize?.({ text: "hi" })).toBe('{"text":"hi"}');
  expect(echo.summarize?.({})).toBe("");
  expect(echo.summarize?.({ text: "x".repeat(300) })).toEndWith("…");
  const ctx = makeContext(root, { answers: [{ answer: "once" }] });
  expect(await echo.run({ text: "yo" }, ctx)).toEqual({ content: "c says: yo", isError: false });
  expect(ctx.approver.asked[0]).toMatchObject({ kind: "mcp", target: "c/echo", mcp: { server: "c", tool: "echo", readOnlyHint: true } });
});

test("a description longer than 1,024 characters is cut, and an empty one says which server the tool is from", () => {
  const long = mcpTool(conn, { name: "t", description: "d".repeat(2000), inputSchema: {}, readOnlyHint: false });
  expect(long.description).toBe(`${"d".repeat(1024)}…`);
  expect(mcpTool(conn, { name: "t", description: "", inputSchema: {}, readOnlyHint: false }).description).toBe("t (MCP server c)");
});

test("once stopped, a call says the server is not running and how to restart it", async () => {
  const other = new McpConnection(def!, { root, plan: { confined: false }, stateDir: join(root, "state2"), allowNetAll: false, denyHosts: [], denyAllNet: false, env: process.env }, { onState: () => {} }, 15_000);
  await other.stop();
  await expect(other.call("echo", { text: "x" }, { signal: signal() })).rejects.toThrow("the MCP server c is not running (stopped). The person can restart it with /mcp restart c.");
});

test("a server that exits at once: 'did not start: it exited', with its status and last words, never EPIPE (the start's write raced the exit)", async () => {
  const [dying] = parseMcpServers({ d: { command: "sh", args: ["-c", "echo dying >&2; exit 3"] } }, { source: "user", file: "f", root, home: "/h", env: {}, defaultTimeoutMs: 2000 }).servers;
  // A race: about every other start used to lose it, so several.
  for (let i = 0; i < 8; i++) {
    const said: string[] = [];
    const c = new McpConnection(dying!, { root, plan: { confined: false }, stateDir: join(root, "state-d"), allowNetAll: false, denyHosts: [], denyAllNet: false, env: process.env }, { onState: (_c, line) => line && said.push(line) }, 10_000);
    await c.start();
    expect(c.state).toBe("failed");
    // Its last words when its stderr was read before the exit was seen (not always, on a busy machine); the exit status always.
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^MCP server d did not start: it exited \(exit status 3(; its last words: dying)?\)\. \/mcp restart d starts it again\.$/);
  }
});
