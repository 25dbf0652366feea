// The hub with a real stdio server (the SDK's server side), unconfined for
// speed (the sandboxed runs are end to end): start, tools in the registry,
// a call through the registry with its permission, /mcp, restart, prompts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { mcpCommand, promptArguments, promptCommands, promptText } from "../../../src/mcp/commands.ts";
import { parseMcpServers } from "../../../src/mcp/config.ts";
import { McpHub } from "../../../src/mcp/hub.ts";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { makeContext, tempDir } from "../../support/context.ts";
import { testServer } from "../../support/mcp.ts";

const root = tempDir();
const registry = new ToolRegistry([]);
const notes: string[] = [];
const servers = parseMcpServers({ t: testServer(["--name", "t"]) }, { source: "user", file: "f", root, home: "/h", env: {}, defaultTimeoutMs: 5000 }).servers;
const hub = new McpHub({
  servers, skipped: [], registry, notify: (l) => notes.push(l),
  launch: { root, plan: { confined: false }, stateDir: join(root, "state"), allowNetAll: false, denyHosts: [], denyAllNet: false, env: process.env },
});
// Generous: a server start is a bun start, which took over 15 s with two test suites running beside this one.
beforeAll(() => hub.start(60_000), 90_000);
afterAll(() => hub.close());

test("a ready server's tools join the registry as mcp__server__tool, schema as the server wrote it", () => {
  expect(hub.get("t")?.state).toBe("ready");
  expect(registry.names).toContain("mcp__t__echo");
  const echo = registry.apiTools().find((t) => t.name === "mcp__t__echo")!;
  expect(echo.input_schema).toEqual({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
});

test("a call asks through Permissions (server/tool) and returns the server's answer", async () => {
  const asked = makeContext(root, { answers: [{ answer: "once" }] });
  expect(await registry.run("mcp__t__echo", { text: "x" }, asked)).toEqual({ content: "t says: x", isError: false });
  expect(asked.approver.asked[0]).toMatchObject({ kind: "mcp", target: "t/echo", tool: "mcp__t__echo", mcp: { server: "t", tool: "echo", readOnlyHint: true } });
  const grants = emptyGrants();
  grants.deny.mcp.names.push("t/echo");
  expect((await registry.run("mcp__t__echo", { text: "x" }, makeContext(root, { grants }))).content).toContain("denied by --deny-mcp");
});

test("/mcp lists it, restarts it; its prompt fills arguments in order and sends the prompt's text", async () => {
  expect(await mcpCommand(hub, [])).toMatch(/t\s+.*user.*ready.*8 tools/);
  // At 40 columns the row does not fit: name, source and state on a line, each detail under them, every line whole.
  const narrow = Bun.stripANSI(await mcpCommand(hub, [], 40)).split("\n");
  expect(narrow.slice(0, 3)).toEqual(["MCP servers:", "  t  user  ready", expect.stringMatching(/^    8 tools, \d+\.\d KB of schemas$/)]);
  expect(narrow.slice(1).filter((l) => !l.startsWith("/mcp restart") && !l.startsWith("Prompts:")).every((l) => Bun.stringWidth(l) < 40 && l === l.trimEnd())).toBe(true);
  expect(await mcpCommand(hub, ["restart", "t"])).toContain("MCP server t restarted (8 tools).");
  expect(await mcpCommand(hub, ["restart", "nope"])).toContain("No MCP server nope");
  expect(await mcpCommand(undefined, [])).toContain("No MCP servers are configured");
  const [greet] = promptCommands(hub);
  expect(greet?.name).toBe("/mcp__t__greet");
  expect(await greet!.run(["Ann", "Lee"])).toEqual({ send: "Please greet Ann Lee warmly." });
  expect(await greet!.run([])).toEqual({ error: "/mcp__t__greet needs WHO" });
});

test("/mcp start NAME asks again about a server not started, and starts it on a yes", async () => {
  const dir = tempDir();
  const [def] = parseMcpServers({ later: testServer(["--name", "later"]) }, { source: "project", file: "f", root: dir, home: "/h", env: {}, defaultTimeoutMs: 5000 }).servers;
  const answers: ("no" | "yes")[] = ["no", "yes"];
  const asked: string[] = [];
  const later = new McpHub({
    servers: [], skipped: [{ def: def!, reason: "you declined it for this session; /mcp start later asks again" }], registry: new ToolRegistry([]), notify: () => {},
    consent: async (d) => (asked.push(d.name), answers.shift()!),
    launch: { root: dir, plan: { confined: false }, stateDir: join(dir, "state"), allowNetAll: false, denyHosts: [], denyAllNet: false, env: process.env },
  });
  try {
    expect(await mcpCommand(later, ["start", "later"])).toContain("MCP server later not started: you declined it for this session; /mcp start later asks again.");
    expect(await mcpCommand(later, ["start", "later"])).toContain("MCP server later started (8 tools).");
    expect(asked).toEqual(["later", "later"]);
    expect(await mcpCommand(later, [])).toMatch(/later\s+project\s+ready\s+8 tools/);
    expect(await mcpCommand(later, ["start", "later"])).toContain("MCP server later is already started");
    expect(await mcpCommand(later, ["start", "nope"])).toContain("No MCP server nope is configured");
    // Where no one can be asked, it says why it is not started.
    const headless = new McpHub({ servers: [], skipped: [{ def: def!, reason: "why" }], registry: new ToolRegistry([]), notify: () => {}, launch: later["opts"].launch });
    expect(await mcpCommand(headless, ["start", "later"])).toContain("MCP server later not started: why.");
  } finally {
    await later.close();
  }
});

test("prompt helpers", () => {
  const p = { name: "p", description: "", arguments: [{ name: "a", required: true }, { name: "b", required: false }] };
  expect(promptArguments(p, ["1", "2", "3"])).toEqual({ a: "1", b: "2 3" });
  expect(promptArguments(p, [])).toEqual({ missing: ["a"] });
  expect(promptText([{ role: "user", content: { type: "text", text: "one" } }, { role: "user", content: { type: "image" } }])).toBe("one\n\n[image left out]");
});

test("what a server wrote into a prompt's description and arguments is escaped before /help shows it", () => {
  const evil = { prompts: () => [{ command: "/mcp__s__p", server: { def: { name: "s" } }, prompt: { name: "p", description: "hi\x1b]52;c;eA==\x07", arguments: [{ name: "a\x1b[2J", required: true }] } }] };
  const [p] = promptCommands(evil as unknown as McpHub);
  expect(p!.help).toBe("hi\\x1b]52;c;eA==\\x07 (MCP server s)");
  expect(p!.usage).toBe("A\\x1b[2J");
});

test("a server that changes its tools mid-session: the model is offered the new list, the person told what changed", async () => {
  const dir = tempDir();
  const reg = new ToolRegistry([]);
  const lines: string[] = [];
  const defs = parseMcpServers({ g: testServer(["--name", "g", "--grow"]) }, { source: "user", file: "f", root: dir, home: "/h", env: {}, defaultTimeoutMs: 5000 }).servers;
  const growing = new McpHub({
    servers: defs, skipped: [], registry: reg, notify: (l) => lines.push(l),
    launch: { root: dir, plan: { confined: false }, stateDir: join(dir, "state"), allowNetAll: false, denyHosts: [], denyAllNet: false, env: process.env },
  });
  try {
    await growing.start(15_000);
    const offered = () => reg.apiTools().map((t) => t.name).filter((n) => n.startsWith("mcp__g__grow"));
    expect(offered()).toEqual(["mcp__g__grow"]);
    const changed = async (text: string) => {
      for (let i = 0; i < 200 && !lines.some((l) => l.includes(text)); i++) await Bun.sleep(25);
      return lines.find((l) => l.includes(text));
    };
    await reg.run("mcp__g__grow", {}, makeContext(dir, { answers: [{ answer: "once" }] }));
    expect(await changed("added grown_1")).toBe("MCP server g changed its tools (added grown_1): 10 now.");
    expect(offered()).toEqual(["mcp__g__grow", "mcp__g__grown_1"]);
    expect((await reg.run("mcp__g__grown_1", {}, makeContext(dir, { answers: [{ answer: "once" }] }))).content).toBe("grown_1 ran");
    await reg.run("mcp__g__grow", {}, makeContext(dir, { answers: [{ answer: "once" }] }));
    expect(await changed("added grown_2")).toBe("MCP server g changed its tools (added grown_2; removed grown_1): 10 now.");
    expect(offered()).toEqual(["mcp__g__grow", "mcp__g__grown_2"]);
    expect(reg.get("mcp__g__grown_1")).toBeUndefined();
  } finally {
    await growing.close();
  }
});
