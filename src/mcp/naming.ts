// MCP tools are offered to the model as `mcp__<server>__<tool>` (Claude Code's
// convention, so names and habits carry over). The API takes only
// [a-zA-Z0-9_-] and at most 64 characters: anything else becomes `_`, and a
// name cut to fit gets a short hash so two long names stay apart.

const MAX = 64;

export function sanitize(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, "_");
}

export function mcpToolName(server: string, tool: string): string {
  const full = `mcp__${sanitize(server)}__${sanitize(tool)}`;
  if (full.length <= MAX) return full;
  // Bun's hasher, not node:crypto: config.ts loads this module at start-up, and node:crypto costs 2.7 ms to load in the binary.
  const hash = new Bun.CryptoHasher("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
  return `${full.slice(0, MAX - 9)}_${hash}`;
}

/** A slash command for a server's prompt: `/mcp__server__prompt`. */
export function mcpPromptCommand(server: string, prompt: string): string {
  return `/${mcpToolName(server, prompt)}`;
}

/** The server part of an `mcp__server__tool` name, or null. */
export function serverPart(name: string): string | null {
  const m = /^mcp__(.+?)__/.exec(name);
  return m ? m[1]! : null;
}
