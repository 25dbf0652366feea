// Whether an MCP tool call may go ahead: a deny rule or --deny-mcp wins, then
// an allow rule or --allow-mcp, else ask. Targets are `server/tool`, as the
// server and tool are named (not the sanitized API name). A server's own
// hints (readOnlyHint) never grant anything. Pure; Policy calls it.

export interface McpRules {
  /** Bare flag (--allow-mcp / --deny-mcp): every MCP tool. */
  all: boolean;
  /** From flags: `server` (all its tools) or `server/tool`. */
  names: string[];
  /** From rules files (`mcp:server/*`, `mcp:server/tool`), in the same form. */
  rules: string[];
}

export const emptyMcpRules = (): McpRules => ({ all: false, names: [], rules: [] });

export function mcpTarget(server: string, tool: string): string {
  return `${server}/${tool}`;
}

function covers(rule: string, target: string): boolean {
  const slash = target.indexOf("/");
  const server = target.slice(0, slash);
  return rule === target || rule === server || rule === `${server}/*`;
}

/** What covers `target`: a flag, a rules-file entry, or nothing. */
export function matchMcpRules(rules: McpRules, target: string): "flag" | "rules" | null {
  if (rules.all || rules.names.some((r) => covers(r, target))) return "flag";
  return rules.rules.some((r) => covers(r, target)) ? "rules" : null;
}

export interface McpDecision {
  verdict: "allow" | "deny" | "ask";
  reason?: string;
  grantedBy?: "flag" | "rules";
  hint?: string;
}

export function decideMcp(allow: McpRules, deny: McpRules, target: string): McpDecision {
  if (matchMcpRules(deny, target)) return { verdict: "deny", reason: `the MCP tool ${target} is denied by --deny-mcp or a deny rule` };
  const by = matchMcpRules(allow, target);
  if (by) return { verdict: "allow", grantedBy: by };
  return { verdict: "ask", reason: `calling the MCP tool ${target} needs approval`, hint: mcpGrantHint(target) };
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
