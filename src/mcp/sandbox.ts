// How a stdio MCP server is started: in the command sandbox, shown only what
// the person decided (view.ts), with the workspace read-only (a server cannot write behind the diff prompt), the
// credential stores and bunker's own state hidden, its own writable state
// directory, network only to the hosts granted to it (through bunker's
// filtering proxy; all of it with a bare --allow-net), and an environment
// scrubbed of secrets except the variables its definition names.
import { existsSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { isWithin, realpathLoose } from "../perms/workspace.ts";
import { isSocket, socketsMasked, vanishedSocketMask } from "../sandbox/sockets.ts";
import { canRefuseUnixSockets, NO_UNIX_SUBCOMMAND } from "../sandbox/no-unix-sockets.ts";
import { selfInvocation } from "../self-command.ts";
import { confine, locateProgram, type SandboxPlan } from "../sandbox/detect.ts";
import { setupFailed } from "../sandbox/bubblewrap.ts";
import { hostProgram } from "../sandbox/host-program.ts";
import { scrubEnv, withGitHardening, withoutUpdateChecks } from "../sandbox/env.ts";
import { hostView, type SandboxSpec } from "../sandbox/spec.ts";
import { deniedPins, globBase, MAX_WALL_PINS } from "../sandbox/denied-files.ts";
import { stateDirMade, stateDirView } from "../sandbox/state-dir.ts";
import { wallAfter, wallBefore, type WallState } from "../sandbox/git-wall.ts";
import { laterMatch } from "../perms/runs-later.ts";
import type { PathRules } from "../perms/policy.ts";
import { deniedPathsInside, deniedWholeBy, deniedWriteHeld, deniedWriteMounts, deniedWriteRules } from "../sandbox/denied-writes.ts";
import { startCommandNet, type CommandNet } from "../net/command-net.ts";
import { hostsCover, netTarget, normalizeHost } from "../net/host-pattern.ts";
import { loopbackTargets } from "../net/gate.ts";
import type { NetGate } from "../net/proxy.ts";
import { absoluteIn, type McpServerDef } from "./config.ts";
import { serverView, type ServerView } from "./view.ts";
import { nearestProgram } from "./program-hint.ts";

export interface LaunchContext {
  root: string;
  plan: SandboxPlan;
  /** bunker's state directory ($XDG_STATE_HOME/bunker): holds the sessions, hidden from servers; their state dirs live under it. */
  stateDir: string;
  /** --allow-net (bare) and no --deny-net: every sandboxed process shares the machine's network. */
  allowNetAll: boolean;
  /** --allow-net (bare) narrowed by a --deny-net list: every server reaches every host but those, through bunker's proxy. */
  allowNetAllBut?: boolean;
  /** --deny-net hosts and deny rules: no server reaches them, whatever its own list says. */
  denyHosts: string[];
  /** Bare --deny-net: no server has any network. */
  denyAllNet: boolean;
  env: Record<string, string | undefined>;
  home?: string;
  /** --allow-read paths: shown to every server, read-only. */
  grantedRead?: string[];
  /** --deny-read paths: shown to none. */
  deniedRead?: string[];
  /** --deny-write paths and globs: held in a server's `write` folders as in a command's writable folders (red team 11's F07); bare, none is written. */
  deniedWrite?: PathRules;
  /** Called after the sandbox is planned and before it starts (tests: what changes on the machine in between). */
  beforeSpawn?: () => void;
}

export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Whether the sandbox confines it. */
  sandboxed: boolean;
  /** What network it has: "all", "all-but" (every host but the denied, through the proxy), "hosts" (its granted ones, through the proxy) or "none". */
  network: "all" | "all-but" | "hosts" | "none";
  stateDir: string;
  /** Stops what the launch started besides the server (its network proxy). */
  close(): Promise<void>;
  /**
   * Whether it exited before it started because a socket masked for it went away before bwrap started (bwrap's
   * first line on stderr, its exit status): then it is launched once more, after a fresh look (as a command is).
   */
  socketVanished?(firstLine: string, exitCode: number | null, setupStatus: string | undefined): boolean;
  /**
   * The git wall's walk of its `write` folders after a tool call (git-wall.ts, as after a command): what the server
   * planted for the person's git and tools, disarmed or set aside; one line per thing done.
   */
  afterCall(): string[];
}

/** Where a server keeps its state: per user server, or per project and server (a repository's server never shares the person's). */
export function serverStateDir(stateDir: string, def: McpServerDef, root: string): string {
  if (def.source === "user") return join(stateDir, "mcp", def.name);
  const project = new Bun.CryptoHasher("sha256").update(root).digest("hex").slice(0, 12);
  return join(stateDir, "mcp", `project-${project}`, def.name);
}

/**
 * The program a definition names, as an absolute path: relative to the
 * workspace, or on PATH but never in a folder a command can write (a
 * command that plants `github-mcp-server` in ./node_modules/.bin must not
 * get the person's server, with its token, started as itself: red team 7 F6).
 */
export function resolveProgram(command: string, root: string, path: string): string | null {
  if (command.includes("/")) return absoluteIn(root, command);
  return hostProgram(command, path);
}

export class LaunchError extends Error {
  override name = "LaunchError";
}

/**
 * The proxy's judge for one server: its own `net` list (every host, under a bare --allow-net that a --deny-net list
 * narrows), less what is denied everywhere; nobody is asked. A loopback or private address is reached only when its
 * `net` list names it: "every host" is not a grant by address, as for commands.
 */
export function serverGate(def: McpServerDef, denyHosts: string[], allButDenied = false): NetGate {
  const named = serverGrants(def, denyHosts);
  const granted = (target: string) => named(target) || (allButDenied && !hostsCover(denyHosts, target));
  return {
    admit: async (host, port) => {
      const target = netTarget(host, port);
      if (granted(target)) return null;
      if (allButDenied) return `${target} is denied (--deny-net or a net: deny rule)`;
      return `the MCP server ${def.name} may reach only the hosts its "net" list in your settings.json grants${def.net.length ? ` (${def.net.join(", ")})` : " (none)"}`;
    },
    addressGranted: (host, port) => named(netTarget(host, port)),
    addressDenied: (host, port) => (hostsCover(denyHosts, netTarget(host, port)) ? `${netTarget(host, port)} is denied (--deny-net or a net: deny rule)` : null),
  };
}

/**
 * Why bunker does not connect to an HTTP server at `url`, or null: bunker connects to one itself, outside the command
 * proxy, so --deny-net is applied here (a deny always wins; red team 8 F25: under a bare --deny-net bunker still
 * connected to a project's server and sent it the person's token in a header).
 */
export function httpServerDenial(def: McpServerDef, url: URL, ctx: Pick<LaunchContext, "denyHosts" | "denyAllNet">): string | null {
  if (ctx.denyAllNet) return `bunker does not connect to it (${url.origin}) under --deny-net, which gives no network to anything`;
  const host = normalizeHost(url.hostname) ?? url.hostname;
  const target = netTarget(host, url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80);
  return hostsCover(ctx.denyHosts, target) ? `bunker does not connect to it: ${target} is denied (--deny-net or a net: deny rule)` : null;
}

/** Whether a server's `net` list grants `target` ("host:port"), less what is denied everywhere. */
function serverGrants(def: McpServerDef, denyHosts: string[]): (target: string) => boolean {
  return (target) => hostsCover(def.net, target) && !hostsCover(denyHosts, target);
}

/** How a server will run: what the consent question shows, and exactly what launchStdio mounts. */
export interface LaunchView extends ServerView {
  sandboxed: boolean;
  /**
   * Its `write` folders that are there: each with the deny-write rule that makes it read-only whole (`readOnlyBy`,
   * as launchStdio shows it), or whether such rules name something in it (`partly`: that part read-only).
   */
  writes?: { path: string; readOnlyBy?: string; partly?: boolean }[];
  network: Launch["network"];
  /** What "all-but" leaves out: the --deny-net hosts. */
  deniedHosts?: string[];
}

/**
 * The host's part of a server's sandbox, and what is never shown to it for being named. bunker's state folder is
 * hidden even where the workspace or a `write` folder holds it (state-dir.ts, as for commands); the server's own
 * folder inside it is kept on the mask (spec.ts), the rest (sessions, checkpoints, journals, other servers' folders) not.
 */
function hostFor(ctx: LaunchContext, def?: McpServerDef): { host: ReturnType<typeof hostView>; hidden: string[]; pinned: string[] } {
  const host = hostView(ctx.root, ctx.env, ctx.home ?? homedir());
  const state = stateDirView(stateDirMade(ctx.stateDir), ctx.root, def ? writeFolders(def) : []);
  return { host, hidden: [...(host.hidden ?? []), ...(ctx.deniedRead ?? []), ...state.hidden], pinned: state.pinned };
}

/** A server's `write` folders that are there, as physical paths. */
function writeFolders(def: McpServerDef): string[] {
  return def.write.filter((p) => existsSync(p)).map((p) => realpathLoose(p).real);
}

function viewOf(def: McpServerDef, ctx: LaunchContext, program: string | null, host: ReturnType<typeof hostView>, hidden: string[]): LaunchView {
  const view = serverView(def, {
    root: ctx.root, home: ctx.home ?? homedir(), program, hidden, granted: ctx.grantedRead ?? [],
    shownAnyway: [...(host.system ?? []), ...(host.toolchains ?? [])],
  });
  // What the person granted: the whole network (bare --allow-net), or its `net` list through the proxy.
  const network = ctx.allowNetAll ? "all" : ctx.allowNetAllBut ? "all-but" : def.net.length > 0 && !ctx.denyAllNet ? "hosts" : "none";
  const deny = ctx.deniedWrite;
  const writes = def.write.filter((p) => existsSync(p)).map((path) => {
    const real = realpathLoose(path).real;
    const by = ctx.plan.confined && deny ? deniedWholeBy(deny, real) : null;
    // A denied path in it, or a glob that can match something in it (its fixed part in the folder, or holding it).
    const partly = ctx.plan.confined && deny && !by ? deny.paths.some((d) => isWithin(real, d)) || deny.globs.some((g) => isWithin(real, globBase(g)) || isWithin(globBase(g), real)) : false;
    return { path, ...(by ? { readOnlyBy: by } : {}), ...(partly ? { partly: true } : {}) };
  });
  return { ...view, sandboxed: ctx.plan.confined, network: ctx.plan.confined ? network : "all", deniedHosts: ctx.denyHosts, ...(writes.length > 0 ? { writes } : {}) };
}

/**
 * Why a stdio server's program cannot be started from here (not found, or found only where commands can write), or
 * null: said instead of asking whether to start it (new user: asked about "pyhton3", then told it was not found).
 */
export function programMissing(def: McpServerDef, ctx: Pick<LaunchContext, "root" | "env">): string | null {
  if (def.transport.type !== "stdio") return null;
  const { command } = def.transport;
  const program = resolveProgram(command, ctx.root, ctx.env.PATH ?? "");
  if (program && existsSync(program)) return null;
  const writable = command.includes("/") ? null : locateProgram(command, ctx.env.PATH ?? "");
  // A relative PATH entry (./node_modules/.bin) is found as <cwd>/./…: shown as the path it is.
  if (writable) return `the program "${command}" is on PATH only at ${resolve(writable)}, where commands can write, so bunker does not start it from there; name it by its path in the server's definition if it is the one you mean`;
  const meant = command.includes("/") ? undefined : nearestProgram(command, ctx.env.PATH ?? "");
  return `the program "${command}" was not found${command.includes("/") ? "" : " on PATH"}${meant ? `; did you mean "${meant}"? (its "command" in ${def.file})` : ""}`;
}

/** What a stdio server would be shown and reach if started now (for the consent question). */
export function launchView(def: McpServerDef, ctx: LaunchContext): LaunchView {
  const { host, hidden } = hostFor(ctx);
  const program = def.transport.type === "stdio" ? resolveProgram(def.transport.command, ctx.root, ctx.env.PATH ?? "") : null;
  return viewOf(def, ctx, program, host, hidden);
}

export async function launchStdio(def: McpServerDef, ctx: LaunchContext): Promise<Launch> {
  if (def.transport.type !== "stdio") throw new LaunchError(`${def.name} is not a stdio server`);
  const { command, args, env: own } = def.transport;
  if (!ctx.plan.confined && ctx.plan.refuse) throw new LaunchError(ctx.plan.refuse);
  const program = resolveProgram(command, ctx.root, ctx.env.PATH ?? "");
  const missing = programMissing(def, ctx);
  if (missing || !program) throw new LaunchError(missing ?? `the program "${command}" was not found`);

  // The same allow-list as commands (system, toolchains, git config, a private home), and what serverView adds.
  const { host, hidden, pinned } = hostFor(ctx, def);
  const view = viewOf(def, ctx, program, host, hidden);
  if (ctx.plan.confined && view.notShown.includes(realpathLoose(program).real)) {
    throw new LaunchError(`the program ${program} lies outside the workspace, and a project's server is not shown it; grant it with "read": ["${program}"] under mcpServers.${def.name} in your settings.json, or --allow-read=${program}`);
  }
  const network = view.network;
  const state = serverStateDir(ctx.stateDir, def, ctx.root);
  mkdirSync(state, { recursive: true, mode: 0o700 });
  // The person's own server starts in its state directory: started in the workspace, what commands can write there
  // chose its code (red team 8 F17/F18: npx took a planted ./node_modules/@modelcontextprotocol/server-github first,
  // `python -m mcp_server_fetch` a planted ./mcp_server_fetch, and either got the person's token). A project's server
  // is the project's code: it starts in the workspace.
  const cwd = def.source === "user" ? state : ctx.root;
  // Its `write` folders get the git wall a command's writable roots get (red team 5's F7): every repository site and
  // runs-later file in them read-only in its sandbox, and the same walk after each tool call.
  // A `write` folder a deny-write rule covers whole (the same folder, a denied folder holding it) is shown read-only,
  // and so is every one under a bare --deny-write, the person's "nothing is written" (reviewer's R12-09).
  const written = def.write.filter((p) => existsSync(p));
  const deny = ctx.deniedWrite;
  const denied = ctx.plan.confined && deny ? written.filter((p) => deny.workspace || deniedWholeBy(deny, realpathLoose(p).real) !== null) : [];
  const write = written.filter((p) => !denied.includes(p));
  const wall = ctx.plan.confined ? serverWall(def.name, write, ctx, host.gitConfig ?? []) : null;
  const spec: SandboxSpec = {
    ...host,
    readable: [...view.readable, ...denied],
    root: ctx.root,
    cwd,
    allowNet: network === "all",
    gitWritable: false,
    writable: [],
    hidden,
    workspaceReadOnly: true,
    privateDirs: [state, ...write],
    readOnly: wall?.readOnly ?? [],
    wallPaths: wall?.readOnly ?? [],
    // The folders above its read-only parts in its write folders, each a mount of its own (wall.pinned), with bunker's state folder's.
    ...(pinned.length + (wall?.pinned.length ?? 0) > 0 ? { pinned: [...new Set([...pinned, ...(wall?.pinned ?? [])])] } : {}),
  };
  // The person's environment without credentials; the definition's own variables on top.
  const env: Record<string, string> = {
    ...withoutUpdateChecks(withGitHardening(scrubEnv(ctx.env))),
    ...own,
    BUNKER_MCP_STATE_DIR: state,
    XDG_STATE_HOME: join(state, "state"),
    XDG_CACHE_HOME: join(state, "cache"),
    XDG_DATA_HOME: join(state, "data"),
    npm_config_cache: join(state, "npm"),
  };
  if (ctx.plan.confined && ctx.plan.kind === "bubblewrap") env.TMPDIR = "/tmp";
  let net: CommandNet | null = null;
  if (ctx.plan.confined && (network === "hosts" || network === "all-but")) {
    // The loopback ports its `net` list grants (127.0.0.1:8765, [::1]:8765) reach the person's machine as a command's do: the
    // forwarder listens on them inside its network namespace, whose loopback is its own (bubblewrap; macOS has no such namespace).
    const tunnels = ctx.plan.kind === "bubblewrap" ? loopbackTargets(def.net, serverGrants(def, ctx.denyHosts)) : [];
    net = await startCommandNet(ctx.plan.kind, serverGate(def, ctx.denyHosts, network === "all-but"), tunnels);
    spec.netProxy = net.spec;
    // The forwarder's own files, read-only like the server's.
    spec.readable = [...(spec.readable ?? []), ...net.spec.readable];
    Object.assign(env, net.env);
  }
  // No Unix socket it can make (a socket that appears after it started cannot be masked; no-unix-sockets.ts), unless
  // the person granted it one by name (then shown, and the filter left off).
  const grantedSockets = [...def.read, ...(ctx.grantedRead ?? [])].filter(isSocket);
  const filter = ctx.plan.confined && ctx.plan.kind === "bubblewrap" && canRefuseUnixSockets() && grantedSockets.length === 0 ? selfInvocation(NO_UNIX_SUBCOMMAND) : null;
  spec.readable = [...(spec.readable ?? []), ...grantedSockets, ...(filter?.paths ?? [])];
  const inner = filter ? [...filter.argv, "--", program, ...args] : [program, ...args];
  // Every Unix socket it would see masked, as for a command (sockets.ts).
  const masked = ctx.plan.confined && ctx.plan.kind === "bubblewrap" ? socketsMasked(spec) : { spec };
  if ("refused" in masked) {
    await net?.close();
    throw new LaunchError(`not started: ${masked.refused}`);
  }
  // Filtered, nothing unfiltered may run beside it that it could trace and have make a socket: no reaper of
  // bubblewrap's (the server, or the forwarder, is pid 1), and the forwarder untraceable.
  const argv = confine(ctx.plan, filter ? { ...masked.spec, asPid1: true } : masked.spec, net ? net.wrap(inner, { undumpable: filter !== null }) : inner, state);
  return {
    command: argv[0]!, args: argv.slice(1), env, cwd, sandboxed: ctx.plan.confined,
    // Its starter asks bwrap for its status report: whether it started the server is read from bwrap (R12-04).
    ...(ctx.plan.confined && ctx.plan.kind === "bubblewrap" ? { bwrap: ctx.plan.program } : {}),
    network,
    stateDir: state,
    close: async () => void (await net?.close()),
    afterCall: wall?.after ?? (() => []),
    ...(masked.spec !== spec ? { socketVanished: (line: string, code: number | null, status: string | undefined) => status !== undefined && setupFailed(status, code) && vanishedSocketMask(line, code, spec, masked.spec) !== null } : {}),
  };
}

/**
 * The wall around a server's `write` folders: what to mount read-only, and the walk after each call. Checked against
 * the walk at its start (what its sandbox keeps read-only), so a repository it made later is checked after every
 * call; a line that says only that such a one ran nothing is said once.
 */
function serverWall(name: string, write: string[], ctx: LaunchContext, gitConfig: string[]): { readOnly: string[]; pinned: string[]; after: () => string[] } | null {
  // The walk works on physical paths; the sandbox mounts a folder by the name the person wrote (`~/notes`, a link
  // to `~/Dropbox/notes`, is a writable folder as much as a folder is): what is read-only is mounted by that name.
  const folders = write.flatMap((written) => {
    try {
      return statSync(written).isDirectory() ? [{ written, real: realpathLoose(written).real }] : [];
    } catch {
      return [];
    }
  });
  if (folders.length === 0) return null;
  const roots = folders.map((f) => f.real);
  // Judged as a command's are (run-bash.ts): the person's PATH and home, and a key that changes with their PATH folders.
  // The deny-write rules held as a command's are (denied-writes.ts): a glob's matches read-only, a new one set aside after.
  const deny = ctx.deniedWrite;
  const later = laterMatch([ctx.root, ...roots], deny ? deniedWriteRules(deny) : [], ctx.env.PATH ?? "", { env: ctx.env, home: ctx.home ?? homedir() });
  const home = realpathLoose(ctx.home ?? homedir()).real;
  const before = wallBefore(roots, later, gitConfig, home);
  if ("refusal" in before) throw new LaunchError(`its "write" folders cannot be guarded: ${before.refusal}`);
  const mounts = deny ? deniedWriteMounts(deny, roots, before.readOnly) : { folders: [], wall: before.readOnly };
  if ("refused" in mounts) throw new LaunchError(`its "write" folders cannot be guarded: ${mounts.refused}`);
  // Denied paths in them, each read-only whole where it is there.
  const readOnly = [...new Set([...mounts.wall, ...mounts.folders, ...(deny ? deniedPathsInside(deny, roots) : [])])];
  const start: WallState = { ...before.state, mountsMove: ctx.plan.confined && ctx.plan.kind === "bubblewrap" };
  const said = new Set<string>();
  const byWrittenName = (p: string) => {
    const f = folders.find((f) => isWithin(f.real, p));
    return f && f.real !== f.written ? [p, join(f.written, relative(f.real, p))] : [p];
  };
  // The folders on the way to each read-only part, pinned as a command's are (run-bash.ts; security M2, red team 12's
  // F04): renaming a folder above one moved its read-only mount along, so the person's file (a deny-write path, a
  // runs-later file) was an ordinary one at its new path for the next command, or the server after a restart, to
  // delete or rewrite. A mount point cannot be renamed (EBUSY). Deny-write files and the folders on the way to a
  // deny-read path always; the wall's runs-later files up to MAX_WALL_PINS folders.
  const held = deny ? deniedWriteHeld(deny, roots, readOnly) : [];
  const wallPins = deniedPins({ paths: before.later, globs: [] }, roots);
  const pinned = [
    ...deniedPins({ paths: [...held, ...(ctx.deniedRead ?? [])], globs: [] }, roots),
    ...(wallPins.length <= MAX_WALL_PINS ? wallPins : []),
  ];
  return {
    readOnly: readOnly.flatMap(byWrittenName),
    pinned: [...new Set(pinned)].flatMap(byWrittenName),
    after: () =>
      wallAfter(roots, start)
        // The walk's lines speak of a command: here it was this server.
        .map((line) => line.replace(/\b(the|this) command\b/g, `the MCP server ${name}`))
        .filter((line) => {
          if (!line.includes("(nothing in it ran programs)")) return true;
          if (said.has(line)) return false;
          said.add(line);
          return true;
        }),
  };
}

/** bunker's state directory, from the sessions database's path. */
export function bunkerStateDir(sessionsPath: string): string {
  return dirname(sessionsPath);
}
