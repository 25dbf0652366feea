// How a stdio MCP server is started: in the command sandbox, with the
// workspace read-only (a server cannot write behind the diff prompt), the
// credential stores and bunker's own state hidden, its own writable state
// directory, network only to the hosts granted to it (through bunker's
// filtering proxy; all of it with a bare --allow-net), and an environment
// scrubbed of secrets except the variables its definition names.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { isWithin, realpathLoose } from "../perms/workspace.ts";
import { confine, locateProgram, type SandboxPlan } from "../sandbox/detect.ts";
import { scrubEnv, withGitHardening } from "../sandbox/env.ts";
import { hostView, type SandboxSpec } from "../sandbox/spec.ts";
import { startCommandNet, type CommandNet } from "../net/command-net.ts";
import { hostsCover, netTarget } from "../net/host-pattern.ts";
import type { NetGate } from "../net/proxy.ts";
import { absoluteIn, type McpServerDef } from "./config.ts";

export interface LaunchContext {
  root: string;
  plan: SandboxPlan;
  /** bunker's state directory ($XDG_STATE_HOME/bunker): holds the sessions, hidden from servers; their state dirs live under it. */
  stateDir: string;
  /** --allow-net (bare) and not --deny-net: every sandboxed process may use the network. */
  allowNetAll: boolean;
  /** --deny-net hosts and deny rules: no server reaches them, whatever its own list says. */
  denyHosts: string[];
  /** Bare --deny-net: no server has any network. */
  denyAllNet: boolean;
  env: Record<string, string | undefined>;
  home?: string;
}

export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Whether the sandbox confines it. */
  sandboxed: boolean;
  /** What network it has: "all", "hosts" (its granted ones, through the proxy) or "none". */
  network: "all" | "hosts" | "none";
  stateDir: string;
  /** Stops what the launch started besides the server (its network proxy). */
  close(): Promise<void>;
}

/** Where a server keeps its state: per user server, or per project and server (a repository's server never shares the person's). */
export function serverStateDir(stateDir: string, def: McpServerDef, root: string): string {
  if (def.source === "user") return join(stateDir, "mcp", def.name);
  const project = createHash("sha256").update(root).digest("hex").slice(0, 12);
  return join(stateDir, "mcp", `project-${project}`, def.name);
}

/** The program a definition names, as an absolute path (on PATH, or relative to the workspace). */
export function resolveProgram(command: string, root: string, path: string): string | null {
  if (command.includes("/")) return absoluteIn(root, command);
  return locateProgram(command, path);
}

export class LaunchError extends Error {
  override name = "LaunchError";
}

/** The proxy's judge for one server: its own `net` list, less what is denied everywhere; nobody is asked. */
export function serverGate(def: McpServerDef, denyHosts: string[]): NetGate {
  const granted = (target: string) => hostsCover(def.net, target) && !hostsCover(denyHosts, target);
  return {
    admit: async (host, port) => {
      const target = netTarget(host, port);
      if (granted(target)) return null;
      return `the MCP server ${def.name} may reach only the hosts its "net" list in your settings.json grants${def.net.length ? ` (${def.net.join(", ")})` : " (none)"}`;
    },
    addressGranted: (host, port) => granted(netTarget(host, port)),
  };
}

/**
 * What a server needs to read of its own: the program, and for each argument
 * naming an existing absolute path (a script) its project (the nearest folder
 * above it with a package manifest, for its dependencies), else the path.
 * Never the home directory or anything above it, nor what `refuse` says no to.
 */
export function serverFiles(program: string, args: string[], home: string, refuse: (path: string) => boolean = () => false): string[] {
  const out = refuse(program) ? [] : [program];
  for (const arg of args) {
    if (!isAbsolute(arg) || !existsSync(arg) || refuse(arg)) continue;
    let dir = dirname(arg);
    let project: string | null = null;
    for (; dir !== dirname(dir) && !isWithin(dir, home); dir = dirname(dir)) {
      if (["package.json", "pyproject.toml", "Cargo.toml", "go.mod", "deno.json"].some((m) => existsSync(join(dir, m)))) {
        project = dir;
        break;
      }
    }
    out.push(project ?? arg);
  }
  return out;
}

export async function launchStdio(def: McpServerDef, ctx: LaunchContext): Promise<Launch> {
  if (def.transport.type !== "stdio") throw new LaunchError(`${def.name} is not a stdio server`);
  const { command, args, env: own } = def.transport;
  if (!ctx.plan.confined && ctx.plan.refuse) throw new LaunchError(ctx.plan.refuse);
  const program = resolveProgram(command, ctx.root, ctx.env.PATH ?? "");
  if (!program || !existsSync(program)) throw new LaunchError(`the program "${command}" was not found${command.includes("/") ? "" : " on PATH"}`);

  const state = serverStateDir(ctx.stateDir, def, ctx.root);
  mkdirSync(state, { recursive: true, mode: 0o700 });
  // What the person granted this server: the whole network (bare --allow-net), or its `net` list through the proxy.
  const network = ctx.allowNetAll ? "all" : def.net.length > 0 && !ctx.denyAllNet ? "hosts" : "none";
  // The same allow-list as commands (system, toolchains, git config, a private home), and the program itself.
  const host = hostView(ctx.root, ctx.env, ctx.home ?? homedir());
  const hidden = [...(host.hidden ?? [])];
  if (!isWithin(ctx.stateDir, ctx.root) && !isWithin(ctx.root, ctx.stateDir)) hidden.push(ctx.stateDir);
  const spec: SandboxSpec = {
    ...host,
    readable: serverFiles(program, args, ctx.home ?? homedir(), (p) => {
      // Judged where it really is (a link to ~/.ssh is ~/.ssh). A credential store is never shown for
      // being named; a project's server sees nothing of the home directory outside the workspace by naming it.
      const real = realpathLoose(p).real;
      if (hidden.some((h) => isWithin(realpathLoose(h).real, real))) return true;
      return def.source === "project" && isWithin(realpathLoose(ctx.home ?? homedir()).real, real) && !isWithin(ctx.root, real);
    }),
    root: ctx.root,
    allowNet: network === "all",
    gitWritable: false,
    writable: [],
    hidden,
    workspaceReadOnly: true,
    privateDirs: [state, ...def.write.filter((p) => existsSync(p))],
  };
  // The person's environment without credentials; the definition's own variables on top.
  const env: Record<string, string> = {
    ...withGitHardening(scrubEnv(ctx.env)),
    ...own,
    BUNKER_MCP_STATE_DIR: state,
    XDG_STATE_HOME: join(state, "state"),
    XDG_CACHE_HOME: join(state, "cache"),
    XDG_DATA_HOME: join(state, "data"),
    npm_config_cache: join(state, "npm"),
  };
  if (ctx.plan.confined && ctx.plan.kind === "bubblewrap") env.TMPDIR = "/tmp";
  let net: CommandNet | null = null;
  if (ctx.plan.confined && network === "hosts") {
    net = await startCommandNet(ctx.plan.kind, serverGate(def, ctx.denyHosts));
    spec.netProxy = net.spec;
    // The forwarder's own files, read-only like the server's.
    spec.readable = [...(spec.readable ?? []), ...net.spec.readable];
    Object.assign(env, net.env);
  }
  const inner = [program, ...args];
  const argv = confine(ctx.plan, spec, net ? net.wrap(inner) : inner, state);
  return {
    command: argv[0]!, args: argv.slice(1), env, cwd: ctx.root, sandboxed: ctx.plan.confined,
    // Unconfined, nothing stops it.
    network: ctx.plan.confined ? network : "all",
    stateDir: state,
    close: async () => void (await net?.close()),
  };
}

/** bunker's state directory, from the sessions database's path. */
export function bunkerStateDir(sessionsPath: string): string {
  return dirname(sessionsPath);
}
