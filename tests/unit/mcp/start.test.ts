import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../../src/config.ts";
import { startMcp } from "../../../src/mcp/start.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { tempDir } from "../../support/context.ts";
import { testServer } from "../../support/mcp.ts";

test("headless: the user's server starts; a project's is not started and the person is told how", async () => {
  const base = tempDir();
  const root = join(base, "ws");
  mkdirSync(join(base, "config", "bunker"), { recursive: true });
  mkdirSync(root);
  writeFileSync(join(base, "config", "bunker", "settings.json"), JSON.stringify({ mcpServers: { mine: testServer(["--name", "mine"]) } }));
  writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: { theirs: testServer(["--name", "theirs"]) } }));
  const env = { HOME: join(base, "home"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH, ANTHROPIC_API_KEY: "k" };
  const config = parseConfig(["-C", root, "-p", "hi", "--sandbox", "off"], env, false).config!;
  const registry = new ToolRegistry([]);
  const notes: string[] = [];
  const hub = await startMcp({ config, registry, interactive: false, notify: (l) => notes.push(l), env });
  try {
    await hub.get("mine")!.ready;
    expect(hub.get("theirs")).toBeUndefined();
    expect(notes[0]).toContain("MCP server theirs not started");
    expect(notes[0]).toContain("--allow-mcp=theirs");
    expect(registry.names).toContain("mcp__mine__echo");
    expect(hub.rows().map((r) => [r.name, r.state.split(":")[0]])).toEqual([["mine", "ready"], ["theirs", "not started"]]);
  } finally {
    await hub.close();
  }
});
