import { expect, test } from "bun:test";
import { SCHEMA_BUDGET_BYTES, SEARCH_TOOL_NAME, SchemaBudget, schemaBytes } from "../../../src/mcp/budget.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import type { AnyTool } from "../../../src/tools/tool.ts";
import { makeContext, tempDir } from "../../support/context.ts";

const tool = (name: string, description: string): AnyTool => ({
  name, description, inputSchema: { type: "object" }, apiInputSchema: { type: "object", properties: { id: { type: "string", description: "x".repeat(150) } } },
  summarize: () => "", run: async () => `${name} ran`,
});

test("schemas up to the budget are sent; the rest are held behind a search tool, and found ones are sent from then on", async () => {
  const registry = new ToolRegistry([]);
  const budget = new SchemaBudget(registry);
  for (let i = 0; i < 120; i++) budget.add(tool(`mcp__s${i % 3}__tool_${i}`, i === 77 ? "Create an invoice for a customer" : `Look up record ${i}`), `s${i % 3}`);
  const sent = registry.apiTools();
  const bytes = sent.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t)), 0);
  expect(bytes).toBeLessThanOrEqual(SCHEMA_BUDGET_BYTES);
  expect(sent.map((t) => t.name)).toContain(SEARCH_TOOL_NAME);
  expect(budget.heldCount).toBeGreaterThan(60);
  expect(registry.isOffered("mcp__s2__tool_77")).toBe(false);

  const ctx = makeContext(tempDir());
  const found = await registry.run(SEARCH_TOOL_NAME, { query: "invoice" }, ctx);
  expect(found.content).toContain("mcp__s2__tool_77: Create an invoice for a customer");
  expect(registry.isOffered("mcp__s2__tool_77")).toBe(true);
  expect((await registry.run(SEARCH_TOOL_NAME, { query: "zebra" }, ctx)).content).toContain("No unloaded MCP tool matches");
});

test("few tools: all sent, no search tool", () => {
  const registry = new ToolRegistry([]);
  const budget = new SchemaBudget(registry);
  budget.add(tool("mcp__a__x", "x"), "a");
  expect(registry.names).toEqual(["mcp__a__x"]);
  expect(schemaBytes(tool("mcp__a__x", "x"))).toBeLessThan(400);
});
