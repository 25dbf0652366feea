import { expect, test } from "bun:test";
import { mcpPromptCommand, mcpToolName, serverPart } from "../../../src/mcp/naming.ts";

test("mcp__server__tool, with what the API refuses turned into _ and long names cut with a hash", () => {
  expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue");
  expect(mcpToolName("my.server", "do it")).toBe("mcp__my_server__do_it");
  const a = mcpToolName("s", "x".repeat(80));
  const b = mcpToolName("s", `${"x".repeat(79)}y`);
  expect(a).toHaveLength(64);
  expect(a).not.toBe(b);
  expect(a).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  expect(mcpPromptCommand("docs", "review")).toBe("/mcp__docs__review");
  expect(serverPart("mcp__docs__review")).toBe("docs");
  expect(serverPart("read_file")).toBeNull();
});
