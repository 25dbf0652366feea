// Set-up shared by the MCP tests: the test server (tests/support/mcp-server.ts)
// configured as bunker's users configure theirs — in the user's settings.json
// or a project's .mcp.json — and run over streamable HTTP for the HTTP tests.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Subprocess } from "bun";

export const MCP_SERVER_SCRIPT = join(import.meta.dir, "mcp-server.ts");
export const BUN = process.execPath;
/** The folder that holds the test server's script and its node_modules: outside every test workspace. */
export const SERVER_PACKAGE = dirname(dirname(import.meta.dir));

/**
 * The user's grant that lets a project's server run the test server: a
 * project's server is shown nothing its definition names outside the workspace:
 * neither the script's folder nor bun itself, where bun lies outside the
 * system and toolchain directories (a bun installed under /tmp).
 */
export function serverPackageGrant(name: string): Record<string, unknown> {
  return { [name]: { read: [SERVER_PACKAGE, BUN] } };
}

/** A stdio definition that runs the test server with `args`. */
export function testServer(args: string[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: BUN, args: [MCP_SERVER_SCRIPT, ...args], ...extra };
}

/** Writes `mcpServers` (and any other settings) into the user's settings.json of a test environment. */
export function writeUserSettings(env: Record<string, string>, settings: Record<string, unknown>): string {
  const dir = join(env.XDG_CONFIG_HOME!, "bunker");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "settings.json");
  writeFileSync(file, JSON.stringify(settings, null, 2));
  return file;
}

/** Writes a project's .mcp.json. */
export function writeProjectServers(root: string, servers: Record<string, unknown>): void {
  writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: servers }, null, 2));
}

/** The test server on streamable HTTP, on a free port of 127.0.0.1. */
export async function startHttpServer(args: string[] = []): Promise<{ url: string; proc: Subprocess; stop(): void }> {
  const proc = Bun.spawn([BUN, MCP_SERVER_SCRIPT, "--http", ...args], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!/listening on (\S+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the HTTP MCP server did not start: ${text}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { url: /listening on (\S+)/.exec(text)![1]!, proc, stop: () => proc.kill() };
}

export const MCP_BROKEN_SCRIPT = join(import.meta.dir, "mcp-broken.ts");

/** A stdio definition for one of the misbehaving servers (tests/support/mcp-broken.ts). */
export function brokenServer(mode: "garbage" | "invalid" | "no-tools"): Record<string, unknown> {
  return { command: BUN, args: [MCP_BROKEN_SCRIPT, mode] };
}
