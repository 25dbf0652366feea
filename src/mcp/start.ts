// Reached only when MCP servers are configured (app.ts imports it
// dynamically): start-up without servers never loads the MCP client.
// Decides which servers start (a project's need consent), starts them in
// parallel and waits at most a second before the first prompt.
import type { Config } from "../config.ts";
import { detectSandbox, planSandbox } from "../sandbox/detect.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { McpServerDef } from "./config.ts";
import { askOnce, ConsentStore, decideServers, MAX_QUESTIONS, type ConsentOptions } from "./consent.ts";
import { McpHub } from "./hub.ts";
import { bunkerStateDir, launchView, programMissing, type LaunchContext } from "./sandbox.ts";
import { grantedReadPaths } from "../sandbox/spec.ts";
import { deniedCaches } from "../sandbox/denied-caches.ts";
import { objectsHiddenSoFar, serversStartedWith } from "../sandbox/hidden-objects.ts";
import { scanDenied } from "../sandbox/denied-files.ts";
import { proxiesAllNetBut, sharesMachineNetwork } from "../perms/policy.ts";

/** Longest the first prompt waits for servers; a slower one joins when ready. */
export const FIRST_PROMPT_WAIT_MS = 1000;

export interface StartOptions {
  config: Config;
  registry: ToolRegistry;
  interactive: boolean;
  notify(line: string): void;
  /** Runs a question with the terminal to itself (TerminalUI.aside). */
  aside?<T>(fn: () => Promise<T>): Promise<T>;
  env?: Record<string, string | undefined>;
}

export async function startMcp(opts: StartOptions): Promise<McpHub> {
  const { config } = opts;
  const env = opts.env ?? process.env;
  const stateDir = bunkerStateDir(config.sessionsPath);
  const plan = planSandbox(config.sandbox, detectSandbox());
  const store = new ConsentStore(stateDir);
  const denied = deniedForServers(config);
  const launch: LaunchContext = {
    root: config.root,
    plan,
    stateDir,
    allowNetAll: sharesMachineNetwork(config.grants),
    ...(proxiesAllNetBut(config.grants) ? { allowNetAllBut: true } : {}),
    denyHosts: config.grants.deny.net.hosts,
    denyAllNet: config.grants.deny.net.all,
    grantedRead: grantedReadPaths(config.grants),
    // Read at each launch: a server started or restarted after a deny-read look hid more gets that hidden too (hidden-objects.ts).
    get deniedRead() {
      return [...new Set([...("refused" in denied ? config.grants.deny.read.paths : denied), ...(config.hiddenGitObjects ?? []), ...objectsHiddenSoFar()])];
    },
    deniedWrite: config.grants.deny.write,
    env,
    ...(env.HOME ? { home: env.HOME } : {}),
  };
  const ask: ConsentOptions["ask"] = async (def, changed) => (await import("./consent-prompt.ts")).askConsent(def, changed, launchView(def, launch));
  const decided = await decideServers(config.mcp.servers, {
    root: config.root,
    named: config.mcpNamed,
    interactive: opts.interactive,
    store,
    ask,
    unstartable: (def) => programMissing(def, launch),
  });
  const { skipped } = decided;
  // Deny-read globs too big to mask: no server starts (a server shown part of the mask could read the rest).
  const start = "refused" in denied ? [] : decided.start;
  if ("refused" in denied) opts.notify(`MCP servers not started: ${denied.refused}`);
  // One line each, but never hundreds (a command can write a .mcp.json of 400 servers).
  const untold = skipped.filter((s) => s.def.source === "project" && (!opts.interactive || s.tell || s.reason.startsWith("not asked")));
  for (const s of untold.slice(0, MAX_QUESTIONS)) opts.notify(`MCP server ${s.def.name} not started: ${s.reason}.`);
  if (untold.length > MAX_QUESTIONS) {
    const how = opts.interactive ? "/mcp lists them, /mcp start NAME asks about one" : "--allow-mcp=NAME starts one";
    opts.notify(`${untold.length - MAX_QUESTIONS} more of this project's MCP servers not started (${how}).`);
  }
  const startWait = Number(env.BUNKER_MCP_START_TIMEOUT_MS);
  const hub = new McpHub({
    servers: start,
    skipped,
    registry: opts.registry,
    notify: opts.notify,
    launch,
    // The question has the terminal to itself (the REPL's key reader steps aside).
    ...(opts.interactive ? { consent: (def: McpServerDef) => (opts.aside ?? ((fn) => fn()))(() => askOnce(def, { root: config.root, store, ask })) } : {}),
    ...(Number.isInteger(startWait) && startWait > 0 ? { startTimeoutMs: startWait } : {}),
  });
  if (start.length > 0) serversStartedWith(launch.deniedRead ?? []);
  await hub.start(FIRST_PROMPT_WAIT_MS);
  return hub;
}

/**
 * What no server is shown: the --deny-read paths, and what the deny-read globs match (and every
 * hard link to a denied file) in the trees a server sees, as a command's sandbox masks them.
 * Matched when the servers start: a file made later that matches is not masked.
 */
function deniedForServers(config: Config): string[] | { refused: string } {
  const deny = config.grants.deny.read;
  if (deny.globs.length === 0 && deny.paths.length === 0) return [];
  const scan = scanDenied(deny, [config.root, ...grantedReadPaths(config.grants)], { always: [config.root] });
  if ("refused" in scan) return scan;
  // The content caches that keep a denied file's bytes by hash (DVC's): hidden whole (denied-caches.ts).
  return [...deny.paths, ...scan.masks.map((m) => m.path), ...deniedCaches([...deny.paths, ...scan.masks.filter((m) => !m.dir).map((m) => m.path)], config.root)];
}
