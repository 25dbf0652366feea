import { expect, test } from "bun:test";
import { decideMcp, emptyMcpRules, mcpGrantHint, parseMcpRule } from "../../../src/mcp/decide.ts";
import { emptyGrants, Policy } from "../../../src/perms/policy.ts";

const rules = (...names: string[]) => ({ all: false, names, rules: [] });

test("deny wins, then allow by server, server/*, server/tool or all; else ask", () => {
  expect(decideMcp(rules("gh"), rules("gh/delete"), "gh/delete").verdict).toBe("deny");
  expect(decideMcp(rules("gh"), emptyMcpRules(), "gh/create").verdict).toBe("allow");
  expect(decideMcp(rules("gh/create"), emptyMcpRules(), "gh/create").verdict).toBe("allow");
  expect(decideMcp(rules("gh/create"), emptyMcpRules(), "gh/delete").verdict).toBe("ask");
  expect(decideMcp(rules("ghx"), emptyMcpRules(), "gh/create").verdict).toBe("ask");
  expect(decideMcp({ all: true, names: [], rules: [] }, emptyMcpRules(), "any/thing").verdict).toBe("allow");
  expect(decideMcp({ all: true, names: [], rules: [] }, { all: true, names: [], rules: [] }, "any/thing").verdict).toBe("deny");
  expect(decideMcp({ all: false, names: [], rules: ["gh"] }, emptyMcpRules(), "gh/x")).toEqual({ verdict: "allow", grantedBy: "rules" });
});

test("rules-file values: server, server/*, server/tool; anything else is refused", () => {
  expect(parseMcpRule("github")).toBe("github");
  expect(parseMcpRule("github/*")).toBe("github");
  expect(parseMcpRule("github/create_issue")).toBe("github/create_issue");
  expect(parseMcpRule("a/b/c")).toBeNull();
  expect(parseMcpRule("")).toBeNull();
});

test("Policy decides the mcp kind and names the flag that grants it", () => {
  const grants = emptyGrants();
  grants.allow.mcp.names.push("docs");
  const policy = new Policy("/ws", grants);
  expect(policy.decide("mcp", "docs/search")).toEqual({ verdict: "allow", grantedBy: "flag" });
  expect(policy.decide("mcp", "gh/x").verdict).toBe("ask");
  expect(policy.grantHint("mcp", "gh/x")).toBe(mcpGrantHint("gh/x"));
  expect(mcpGrantHint("gh/x")).toContain("--allow-mcp=gh");
});
