// Whether an MCP tool call may go ahead: a deny rule or --deny-mcp wins, then
// an allow rule or --allow-mcp, else ask. Targets are `server/tool`, as the
// server and tool are named (not the sanitized API name). A server's own
// hints (readOnlyHint) never grant anything. Pure; Policy calls it.

export interface McpRules {
  /** Bare flag (--allow-mcp / --deny-mcp): every MCP tool. */
  all: boolean;
  /** `server` or `server/*` (all its tools), or `server/tool`. */
  names: string[];
}

export const emptyMcpRules = (): McpRules => ({ all: false, names: [] });

export function mcpTarget(server: string, tool: string): string {
  return `${server}/${tool}`;
}

function covers(rule: string, target: string): boolean {
  const slash = target.indexOf("/");
  const server = target.slice(0, slash);
  return rule === target || rule === server || rule === `${server}/*`;
}

export function matchesMcpRules(rules: McpRules, target: string): boolean {
  return rules.all || rules.names.some((r) => covers(r, target));
}

export interface McpDecision {
  verdict: "allow" | "deny" | "ask";
  reason?: string;
}

export function decideMcp(allow: McpRules, deny: McpRules, target: string): McpDecision {
  if (matchesMcpRules(deny, target)) return { verdict: "deny", reason: `the MCP tool ${target} is denied by --deny-mcp or a deny rule` };
  if (matchesMcpRules(allow, target)) return { verdict: "allow" };
  return { verdict: "ask" };
}

/** What grants a call, for the no-prompt denial. */
export function mcpGrantHint(target: string): string {
  const server = target.slice(0, target.indexOf("/"));
  return `--allow-mcp=${server} (or the rule "mcp:${target}" or "mcp:${server}/*" in your settings.json)`;
}

/** A rules-file value after `mcp:`: `server`, `server/*` or `server/tool`; null when malformed. */
export function parseMcpRule(value: string): string | null {
  const m = /^([A-Za-z0-9_.-]+)(?:\/(\*|[^/\s]+))?$/.exec(value.trim());
  if (!m) return null;
  return m[2] === undefined || m[2] === "*" ? m[1]! : `${m[1]}/${m[2]}`;
}
