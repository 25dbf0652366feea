// run_bash: one approved, time-boxed shell command in the workspace root,
// confined by the OS sandbox when there is one. The command runs as its own
// process group with stdin closed; on timeout or Ctrl+C the whole group gets
// SIGTERM, then SIGKILL, and background children never outlive the command.
import { spawn } from "node:child_process";
import { existsSync, lstatSync, rmdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { emptyGrants, sharesMachineNetwork, type Grants } from "../perms/policy.ts";
import { gitDirsInside, isProtectedRelative, isWithin, realpathLoose } from "../perms/workspace.ts";
import { gitHooksPath } from "../perms/git-config.ts";
import { evaluateRun } from "../perms/run/evaluate.ts";
import { confine, detectSandbox, locateProgram, planSandbox, type SandboxAvailability, type SandboxMode, type SandboxPlan } from "../sandbox/detect.ts";
import { splitEnv, withGitHardening, withheldNote, withoutUpdateChecks } from "../sandbox/env.ts";
import { adoptOrphans, endGroup, killAdoptedSince, trackGroup } from "../sandbox/process.ts";
import { boundsNote, busyOnReadOnlyMount, memoryNote, pathNote, runsLaterNote, spaceNote, toolchainWriteNote } from "../sandbox/explain.ts";
import { stateDirMade, stateDirView } from "../sandbox/state-dir.ts";
import { inheritedFds } from "../sandbox/self-binary.ts";
import { grantsKey, keptHome } from "../sandbox/kept-home.ts";
import { wallAfter, wallBefore } from "../sandbox/git-wall.ts";
import { grantedGit, grantedGitAfter } from "../sandbox/git-grant.ts";
import { credentialFreeCopies } from "../sandbox/git-config-copy.ts";
import { gitDirsOfFolder, repositoryConfigs } from "../sandbox/repo-configs.ts";
import { committedRunsLater, historyBefore, linkedWorktrees, newlyHidden, oneLook, replaceRefsMade, stagedRunsLater, statForged } from "../sandbox/git-history.ts";
import { objectStoresBefore, objectsAfter } from "../sandbox/git-objects.ts";
import { symrefsAfter } from "../sandbox/git-symrefs.ts";
import { unwalkedNote } from "../sandbox/walk-gaps.ts";
import { laterMatch } from "../perms/runs-later.ts";
import { rootsDotEntriesLeadTo } from "../perms/startup-files.ts";
import { reflogsAfter, reflogsBefore } from "../sandbox/git-reflogs.ts";
import { linksAfter, linksIn } from "../sandbox/git-links.ts";
import { deniedProgramFiles } from "../sandbox/denied-programs.ts";
import { prlimitProgram } from "../sandbox/process-limits.ts";
import { deniedPathsInside, deniedWholeBy, deniedWriteHeld, deniedWriteMounts, deniedWriteRules, deniedWritesBefore } from "../sandbox/denied-writes.ts";
import { loopbackNote, refusalNote, startCommandNet } from "../net/command-net.ts";
import { grantedLoopbackTargets, permissionGate } from "../net/gate.ts";
import { deniedPins, MAX_WALL_PINS, scanDenied } from "../sandbox/denied-files.ts";
import { deniedCaches } from "../sandbox/denied-caches.ts";
import { socketsMasked, vanishedSocketMask } from "../sandbox/sockets.ts";
import { setupFailed, STATUS_FD, withSetupStatus } from "../sandbox/bubblewrap.ts";
import { incompleteLine, onWalk } from "../sandbox/bounded.ts";
import { ownCopiesForCommand, ownCopiesNote, ownCopiesLine } from "../sandbox/shared-inodes.ts";
import { enclosingGitDirs, grantedReadPaths, hostView, linkedGitDirs, SESSION_TMP, standInPaths, type SandboxSpec } from "../sandbox/spec.ts";
import { sessionTmpFolder, sessionTmpLimit, watchSessionTmp } from "../sandbox/session-tmp.ts";
import { shownSize } from "../sandbox/tmpfs-sizes.ts";
import { escapeControl } from "../ui/escape.ts";
import { shellQuote } from "../shell/quote.ts";
import { BoundedOutput } from "./bounded-output.ts";
import { hiddenHistoryNote, historyCheckFor } from "../sandbox/denied-history.ts";
import { ToolError, type Tool, type ToolContext, type ToolOutput } from "./tool.ts";
import { oneLine, runBashSpec, SUMMARY_CHARS, type RunBashInput } from "./run-bash-spec.ts";

export { oneLine, type RunBashInput };

export interface RunBashOptions {
  /** --sandbox auto|on|off */
  sandbox: SandboxMode;
  /** --allow-net (bare): the sandbox keeps the network. */
  allowNet: boolean;
  /** --allow-env=NAMES: secret-looking variables passed through anyway. */
  allowEnv: string[];
  /** Whether the workspace's .git may be written inside the sandbox. */
  gitWritable: boolean;
  /** Absolute paths outside the workspace the person granted for writing. */
  writable?: string[];
  /** Paths outside the workspace shown read-only to this command alone (the person's yes at its question). */
  alsoReadable?: string[];
  /** Paths inside the workspace kept read-only (--deny-write). */
  readOnly?: string[];
  /** Git object stores hidden: their history holds a file a deny-read rule covers (denied-history.ts). */
  hiddenGitObjects?: string[];
  /** With a deny-read rule: the look at git history that says which object stores to hide, before each command (denied-history.ts). */
  deniedHistory?: { stateDir?: string; home: string };
  /** The grants, for their deny rules when judging whether a line only reads. */
  grants?: Grants;
  /** The detected sandbox (default: detectSandbox()). */
  availability?: SandboxAvailability;
  /** The environment commands start from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Whose credential stores (~/.ssh, ~/.aws, …) the sandbox hides (default: the user's home). */
  home?: string;
  /** bunker's own saved sessions (everything the model read, in every project): hidden from commands too. */
  sessionsDir?: string;
  /** Each command's home holds the workspace's kept caches for these grants (kept-home.ts's grantsKey), from bunker's state folder; unset: none kept. */
  keptCachesKey?: string;
  /** Output bound in bytes (default 30 000). */
  maxOutputBytes?: number;
  /** Between SIGTERM and SIGKILL (default 2 000 ms). */
  killGraceMs?: number;
  /** The session's folder for its commands' /tmp and /var/tmp (session-tmp.ts); unset: each command its own, empty. */
  sessionTmp?: string;
  /** Called after the sandbox is planned and before it starts (tests: what changes on the machine in between). */
  beforeStart?: () => void;
}

/** What run_bash needs from the configuration (a subset of Config). */
export interface RunBashConfig {
  root: string;
  sandbox: SandboxMode;
  allowEnv: string[];
  grants: Grants;
  sessionsPath?: string;
  /** --no-session-persistence is false: nothing of the run is kept, the sandbox's home included. */
  persist?: boolean;
}

/**
 * The sandbox settings implied by the flags: network only with a bare
 * --allow-net (a sandbox cannot filter by host); .git writable only when
 * named (--allow-write=.git); granted paths outside the workspace writable;
 * --deny-write paths inside it read-only.
 */
export function runBashOptions(config: RunBashConfig): RunBashOptions {
  const { grants, root } = config;
  const gitDir = join(root, ".git");
  return {
    sandbox: config.sandbox,
    allowNet: sharesMachineNetwork(grants),
    allowEnv: config.allowEnv,
    gitWritable: gitGranted(grants, gitDir),
    writable: grants.allow.write.paths.filter((p) => !isWithin(root, p) && !isWithin(p, root)),
    readOnly: grants.deny.write.paths.filter((p) => isWithin(root, p)),
    ...(grants.deny.read.paths.length > 0 || grants.deny.read.globs.length > 0
      ? { deniedHistory: { home: process.env.HOME || "/", ...(config.sessionsPath ? { stateDir: dirname(config.sessionsPath) } : {}) } }
      : {}),
    grants,
    ...(config.sessionsPath ? { sessionsDir: dirname(config.sessionsPath) } : {}),
    // The grants as the session starts: the caches its commands see are those written under the same ones.
    ...(config.sessionsPath && config.persist !== false ? { keptCachesKey: grantsKey(grants, config.allowEnv, process.env) } : {}),
  };
}

/** Whether the grants let commands write this .git (--allow-write=.git, or the person's yes for the session), no deny-write covering it. */
function gitGranted(grants: Grants, gitDir: string): boolean {
  return grants.allow.write.paths.includes(gitDir) && !grants.deny.write.paths.some((p) => isWithin(p, gitDir));
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
const MIN_TIMEOUT_MS = 100;
/** How often the live tail may print a line. */
const TAIL_INTERVAL_MS = 250;

export function createRunBashTool(opts: RunBashOptions): Tool<RunBashInput> {
  const shell = locateProgram("bash") ?? "/bin/sh";
  let plan: SandboxPlan | undefined;
  const sessionTmpDir = sessionTmpFolder();
  const getPlan = () => (plan ??= planSandbox(opts.sandbox, opts.availability ?? detectSandbox()));

  return {
    ...runBashSpec,

    async run(input, ctx) {
      const command = input.command;
      if (command.trim() === "") throw new ToolError("command is empty");
      if (command.includes("\0")) throw new ToolError("the command contains a NUL byte, which no shell can receive");
      const timeoutMs = Math.min(Math.max(input.timeout_ms ?? DEFAULT_TIMEOUT_MS, MIN_TIMEOUT_MS), MAX_TIMEOUT_MS);
      const p = getPlan();
      if (!p.confined && p.refuse) throw new ToolError(p.refuse);

      // The one evaluation of the line: its verdict, and whether it only reads (then the workspace is mounted read-only).
      const decision = await ctx.perms.authorize({
        kind: "run",
        target: command,
        tool: "run_bash",
        run: {
          command,
          cwd: ctx.root,
          sandboxed: p.confined,
          network: !p.confined || opts.allowNet,
          ...(p.confined && !opts.allowNet && !opts.grants?.deny.net.all ? { proxied: true } : {}),
        },
      });
      // The tool line shows at most one line of 100 characters: what runs is shown whole, once. A question showed
      // it whole already (new user 10's F2: three copies of one command), so only a command run unasked gets it here.
      if (!decision.approvedAtQuestion && (command.length > SUMMARY_CHARS || command.includes("\n"))) {
        const lines = escapeControl(command, { keepNewlines: true }).split("\n");
        for (const [i, l] of lines.entries()) ctx.ui.info(`    ${i === 0 ? "$" : ">"} ${l}`);
      }

      // A deny-read rule over a file git holds hides the repository's objects: looked at now, not at start (reviewer's R11-10).
      const history = p.confined && opts.deniedHistory && opts.grants ? await historyForCommand(ctx, opts.grants, opts.deniedHistory) : null;
      // One /tmp for the session's commands, made at its first confined one (session-tmp.ts).
      const sessionTmp = p.confined ? sessionTmpDir() : undefined;
      const runOpts: RunBashOptions = {
        ...opts,
        ...(history ? { hiddenGitObjects: [...(opts.hiddenGitObjects ?? []), ...history.objects] } : {}),
        ...(sessionTmp && p.confined && p.kind === "bubblewrap" ? { sessionTmp } : {}),
        // What the person let this command see at its question, for this run only (N12-09, N12-15).
        // .git granted in the session (the question's "let commands write .git": N12-15) reaches the sandbox as the flag does.
        ...(decision.sandboxOnce?.gitWrite || (opts.grants && gitGranted(opts.grants, join(ctx.root, ".git"))) ? { gitWritable: true } : {}),
        ...(decision.sandboxOnce?.reads.length ? { alsoReadable: decision.sandboxOnce.reads } : {}),
      };
      let spec = commandSandboxSpec(command, ctx.root, runOpts, p.confined, decision.run?.readOnly ?? false);
      // A file that is a hard link to one outside what the command may write (a package cache's) gets its own copy first (shared-inodes.ts).
      const shared = p.confined ? ownCopiesForCommand(spec) : { copied: [], bytes: 0 };
      if ("refused" in shared) throw new ToolError(`not run: ${shared.refused}`);
      // The person's own hard links (dotfiles linked into ~/.config) are split too: they are told, not only the model (red team 9 F05).
      if (shared.copied.length > 0) ctx.ui.info(`  ${escapeControl(ownCopiesLine(shared, ctx.root))}`);
      // The git wall's walk saw the files before their copies: walked again as they are now.
      if (shared.copied.length > 0) spec = commandSandboxSpec(command, ctx.root, runOpts, p.confined, decision.run?.readOnly ?? false);
      // bubblewrap's mounts hold to their folders, checked in place before the command (mount-check.ts).
      if (spec.repositories) spec.repositories.mountsMove = p.confined && p.kind === "bubblewrap";
      const personEnv = opts.env ?? process.env;
      const { env: scrubbed, withheld } = splitEnv(personEnv, opts.allowEnv);
      const env = withoutUpdateChecks(withGitHardening(scrubbed));
      // The workspace is its own mount in the sandbox: git looks past it for the repository it is a folder of.
      if (p.confined && enclosingGitDirs(ctx.root, spec.home ?? homedir()).length > 0) env.GIT_DISCOVERY_ACROSS_FILESYSTEM = "1";
      // Confined without the whole network: granted hosts only, through bunker's proxy, judged per connection.
      // A line that only reads (ls, cat, git status, …) never connects: it gets no network at all, and is spared the forwarder's start.
      // A child left running in the background may still ask for a host after the command ended: that question is withdrawn then.
      const ended = new AbortController();
      const endWithTurn = () => ended.abort("the command ended");
      ctx.signal.addEventListener("abort", endWithTurn, { once: true });
      const tunnels = p.confined && p.kind === "bubblewrap" ? grantedLoopbackTargets(ctx.perms) : [];
      const net = p.confined && !opts.allowNet && !decision.run?.readOnly ? await startCommandNet(p.kind, permissionGate(ctx.perms, "run_bash", command, ended.signal), tunnels) : null;
      if (net) {
        spec.netProxy = net.spec;
        // The forwarder's own files, shown read-only like any granted read (never over the workspace).
        spec.readable = [...(spec.readable ?? []), ...net.spec.readable];
        Object.assign(env, net.env);
      }
      // macOS shows no /tmp: the session's folder is its commands' TMPDIR.
      const tmp = p.confined && p.kind === "seatbelt" && sessionTmp ? join(sessionTmp, SESSION_TMP["/tmp"]!) : undefined;
      if (tmp) env.TMPDIR = tmp;
      if (p.confined && p.kind === "bubblewrap") env.TMPDIR = "/tmp";
      // Every Unix socket it would see masked (a read-only mount does not stop connect()), or not run (sockets.ts).
      const masked = (): { spec: SandboxSpec; note?: string } => {
        const v = p.confined && p.kind === "bubblewrap" ? socketsMasked(spec) : { spec };
        if (!("refused" in v)) return v;
        void net?.close();
        throw new ToolError(`not run: ${v.refused}`);
      };
      let view = masked();
      // Under bwrap, with its status report: whether it set the sandbox up is read from bwrap, never from the command's output.
      const confined = () => {
        const a = confine(p, view.spec, net ? net.wrap([shell, "-c", command]) : [shell, "-c", command], tmp ?? "");
        return p.confined && p.kind === "bubblewrap" ? withSetupStatus(a, p.program) ?? a : a;
      };
      let argv = confined();
      // Under --allow-write=.git: the reflogs as they are, to judge the lines the command adds (git-reflogs.ts).
      const logs = spec.grantedGit?.history?.length ? reflogsBefore(spec.grantedGit.history.map((h) => h.gitDir)) : null;
      // bubblewrap mounts an empty read-only .bunker and .git where there were none: take the empty mount points away after.
      const standIns = [...new Set([join(ctx.root, ".bunker"), join(ctx.root, ".git"), ...standInPaths(spec)])].filter((d) => !existsSync(d));
      // The deny-write files as they are, to say (and undo) after it what the sandbox did not hold.
      const keptWrites = spec.deniedWriteFiles ? deniedWritesBefore(spec.deniedWriteFiles) : null;
      // The session's /tmp is on disk, kept across commands: one that makes it grow past its limit is stopped (session-tmp.ts).
      const tmpFull = new AbortController();
      let tmpOver: number | null = null;
      const tmpLimit = sessionTmpLimit();
      const unwatch = spec.sessionTmp && !spec.sessionTmp.readOnly ? watchSessionTmp(spec.sessionTmp.dir, tmpLimit, (bytes) => ((tmpOver = bytes), tmpFull.abort())) : () => Promise.resolve(null);
      try {
        const start = () => runProcess(argv, {
          cwd: ctx.root,
          env,
          timeoutMs,
          signal: AbortSignal.any([ctx.signal, tmpFull.signal]),
          maxOutputBytes: opts.maxOutputBytes ?? 30_000,
          killGraceMs: opts.killGraceMs ?? 2_000,
          ui: ctx.ui,
          command,
        });
        opts.beforeStart?.();
        let result = await start();
        // A socket masked above that went away before bwrap started (another program's, under a wide read grant):
        // bwrap could not mount over it and nothing ran. Looked at again, and run once more. Only when bwrap itself
        // says it started nothing: the command's output can say anything (reviewer's R12-04: a forged line ran it twice).
        if (p.confined && p.kind === "bubblewrap" && result.setupStatus !== undefined && !result.interrupted && result.timedOutAfterMs === null
          && setupFailed(result.setupStatus, result.exitCode) && vanishedSocketMask(result.output, result.exitCode, spec, view.spec)) {
          view = masked();
          argv = confined();
          result = await start();
        }
        // Past the limit by the end, too quick for a look while it ran: said now (it cannot be stopped any more).
        const grewPast = await unwatch();
        if (tmpOver !== null && !ctx.signal.aborted) result = { ...result, interrupted: false, stoppedBecause: tmpFullStatus(tmpOver, tmpLimit) };
        // Reported failed, as one stopped while it ran is: a run of quick commands cannot grow it without bound unsaid (R13-09).
        if (tmpOver === null && grewPast !== null && !ctx.signal.aborted) result = { ...result, stoppedBecause: tmpGrewStatus(grewPast, tmpLimit, result.exitCode) };
        for (const d of standIns) removeIfEmptyDir(d);
        // What the command planted for the person's own tools to run later, outside the sandbox: one walk finds
        // new repositories (disarmed) and new or changed runs-later files and untrustworthy .git entries (set aside).
        // Which files run later, worked out only when history moved (walking the person's home costs: reviewer's R10-01).
        let later: ((path: string) => string | null) | undefined;
        const laterWhy = (path: string) => (later ??= laterOf(ctx.root, opts).match)(path);
        // First: a link the command left in a granted git directory, which every look below would follow (git-links.ts).
        const links = spec.grantedGit?.linksBefore ? linksAfter(ctx.root, spec.grantedGit.gitDirs, spec.grantedGit.linksBefore) : [];
        const wall = spec.repositories ? wallAfter([ctx.root, ...(spec.grantedRoots ?? [])], spec.repositories) : [];
        const granted = spec.grantedGit ? grantedGitAfter(ctx.root, spec.grantedGit) : [];
        // Packs verified without holding up the REPL (reviewer's R11-17); the rest of the look after them, as before.
        const objectLines: string[] = [];
        for (const o of spec.grantedGit?.objects ?? []) objectLines.push(...(await objectsAfter(o, ctx.root, { progress: (line) => ctx.ui.info(`  ${escapeControl(line)}`), signal: ctx.signal })));
        const disarmed = atMost(WALL_LINES, [
          ...links,
          ...wall,
          ...(keptWrites?.after((f) => (isWithin(ctx.root, f) ? relative(ctx.root, f) || f : f)) ?? []),
          ...granted,
          ...objectLines,
          // Before the look at what moved: a ref made symbolic to a file outside refs/ is made plain, so that look judges where it leads.
          ...(spec.grantedGit?.history ?? []).flatMap((h) => symrefsAfter(h.gitDir, ctx.root)),
          ...oneLook(() => (spec.grantedGit?.history ?? []).flatMap((h) => h.linked ? [...stagedRunsLater(h.worktree, h, laterWhy), ...statForged(h.worktree, h)] : [...committedRunsLater(h.worktree, h, laterWhy), ...stagedRunsLater(h.worktree, h, laterWhy), ...replaceRefsMade(h), ...newlyHidden(h.worktree, h), ...statForged(h.worktree, h), ...(logs ? reflogsAfter(h.worktree, h, logs, laterWhy) : [])])),
        ]);
        for (const line of disarmed) ctx.ui.info(`  ${escapeControl(line)}`);
        const notes = [
          net && refusalNote(net.refusals()),
          net && p.confined && p.kind === "bubblewrap" && result.exitCode !== 0 ? loopbackNote(command, result.output, tunnels) : null,
          p.confined ? sandboxNote(result, view.spec, command) : null,
          spec.repositories ? unwalkedNote(spec.repositories.gaps) : null,
          spec.repositories ? boundsNote(spec.repositories.namedCut) : null,
          // A login the command lacked because the person's credentials were withheld: which, and the flag.
          result.exitCode !== 0 ? withheldNote(result.output, withheld, personEnv) : null,
          hiddenHistoryNote(command, result.exitCode, runOpts.hiddenGitObjects ?? [], history?.walking ?? false),
          ...disarmed.map((l) => `note: ${l}`),
          "copied" in shared && shared.copied.length > 0 ? `note: ${ownCopiesNote(shared, ctx.root)}` : null,
          view.note ? `note: ${view.note}` : null,
        ].filter((n) => n);
        return formatResult(result, notes.length > 0 ? notes.join("\n") : null);
      } finally {
        void unwatch();
        ctx.signal.removeEventListener("abort", endWithTurn);
        ended.abort("the command ended");
        await net?.close();
        for (const d of standIns) removeIfEmptyDir(d);
      }
    },
  };
}

/** The session's look at git history for the files deny-read rules cover (loaded only with such a rule). */
async function historyForCommand(ctx: ToolContext, grants: Grants, where: { stateDir?: string; home: string }): Promise<{ objects: string[]; walking: boolean }> {
  return historyCheckFor({ root: ctx.root, deny: grants.deny.read, ...where }).forCommand((line) => ctx.ui.info(`  ${escapeControl(line)}`), ctx.signal);
}

/**
 * The granted write paths that are folders: guarded like the workspace. Not
 * a git directory the person named (`--allow-write=../shared/.git` means it).
 */
function grantedFolders(writable: string[], root: string): string[] {
  return writable.filter((p) => {
    if (p === root || isProtectedRelative(p)) return false;
    try {
      return lstatSync(p).isDirectory();
    } catch {
      return false;
    }
  });
}

/** The runs-later matcher for a command's writable `roots` (the workspace and its granted folders). */
function laterOf(root: string, opts: RunBashOptions, roots: string[] = [root, ...grantedFolders(opts.writable ?? [], root)]) {
  const grants = opts.grants ?? emptyGrants();
  // Deny-write globs are held like the files that run later: read-only before, set aside after (denied-writes.ts).
  return laterMatch(roots, [...(grants.protect ?? []), ...deniedWriteRules(grants.deny.write)], (opts.env ?? process.env).PATH ?? "", { env: opts.env ?? process.env, home: opts.home ?? homedir() });
}

function lstatKind(path: string): "file" | "other" | null {
  try {
    return lstatSync(path).isFile() ? "file" : "other";
  } catch {
    return null;
  }
}

function removeIfEmptyDir(dir: string): void {
  try {
    rmdirSync(dir); // fails, as it should, unless it is an empty directory
  } catch {
    // not there, or not empty
  }
}

/**
 * What the sandbox lets `command` touch; a line that only reads gets a
 * read-only workspace. `readOnly` comes from the policy's decision (the line
 * is evaluated once); without it the line is evaluated here.
 */
export function commandSandboxSpec(command: string, root: string, opts: RunBashOptions, confined: boolean, readOnly?: boolean): SandboxSpec {
  const grants = opts.grants ?? emptyGrants();
  const host = hostView(root, opts.env ?? process.env, opts.home ?? homedir());
  const gitDirs = linkedGitDirs(root);
  // A dot-entry of the person's home that leads to the workspace or a granted folder (~/.ipython -> the workspace:
  // the reviewer's R10-10) makes every file there the program's: read-only whole to commands (startup-files.ts).
  const linked = confined ? rootsDotEntriesLeadTo([root, ...grantedFolders(opts.writable ?? [], root)], opts.env ?? process.env, opts.home ?? homedir()) : [];
  const workspaceLinkedAs = linked.find((l) => l.root === root)?.link;
  // A granted write folder such a link leads to is shown read-only instead.
  const linkedGrants = linked.filter((l) => l.root !== root).map((l) => l.root);
  // A write grant a deny-write rule covers whole (the same path, a denied folder holding it, a DIR/** glob, a glob
  // matching a granted file) is shown read-only: a deny wins in the sandbox as in the judge (red team 11's F07).
  const deniedGrants = confined ? (opts.writable ?? []).filter((p) => deniedWholeBy(grants.deny.write, p) !== null) : [];
  const grantedWrites = (opts.writable ?? []).filter((p) => !linkedGrants.includes(p) && !deniedGrants.includes(p));
  // A bare --deny-write, or a deny-write rule that covers the workspace whole: nothing is written, by the file tools or
  // by commands (the sandbox holds it, not only the judge).
  const workspaceDeniedBy = confined && !grants.deny.write.workspace ? deniedWholeBy(grants.deny.write, root) : null;
  const writesDenied = confined && (grants.deny.write.workspace || workspaceDeniedBy !== null);
  const workspaceReadOnly = confined && (writesDenied || workspaceLinkedAs !== undefined || (readOnly ?? evaluateRun(command, { root, grants }).readOnly));
  // Every repository at any depth read-only (the top one writable only when granted); not needed when nothing is writable.
  // Every writable root guarded alike: the workspace and each granted folder (`--allow-write=../shared`).
  const granted = confined && !workspaceReadOnly ? grantedFolders(grantedWrites, root) : [];
  const roots = [root, ...granted];
  const topGit = new Set(opts.gitWritable ? [join(root, ".git"), ...gitDirsInside(root)] : []);
  // The git wall: every repository site, runs-later file and folder the walk cannot list read-only (git-wall.ts).
  const wall = confined && !workspaceReadOnly ? wallBefore(roots, laterOf(root, opts, roots), host.gitConfig ?? [], realpathLoose(opts.home ?? homedir()).real, topGit) : null;
  if (wall && "refusal" in wall) throw new ToolError(`not run: ${wall.refusal}`);
  // Deny-write globs: each DIR/** folder read-only whole, a glob matching too many files for a mount each by its folder (denied-writes.ts).
  const denied = wall ? deniedWriteMounts(grants.deny.write, roots, wall.readOnly) : null;
  if (denied && "refused" in denied) throw new ToolError(`not run: ${denied.refused}`);
  // Under --allow-write=.git: history writable, what git obeys (config, hooks, info, commondir) not, nor the .git file that names the git directory.
  const granting = wall && opts.gitWritable ? grantedGit([...topGit, ...gitDirs], roots) : undefined;
  if (granting && "refusal" in granting) throw new ToolError(`not run: ${granting.refusal}`);
  const gitGrant = granting;
  // Its refs, to see after it what it committed (git-history.ts): a repository's work tree is the folder holding its .git; a linked one's, the workspace.
  if (gitGrant) gitGrant.history = oneLook(() => [...[...topGit].map((g) => ({ g, worktree: dirname(g) })), ...gitDirs.map((g) => ({ g, worktree: root }))].flatMap(({ g, worktree }) => {
    const before = lstatKind(g) === "other" ? historyBefore(g, worktree) : null;
    return before ? [{ ...before, worktree }] : [];
  }).concat(
    // The workspace repository's linked worktrees elsewhere (the others, when the workspace is one): each one's index is
    // in .git/worktrees/NAME, which the command can write (red team 11's F11).
    // All of them, or the command is not run (bounded.ts: reviewer's R12-11, the rest had been skipped without a word).
    [...(topGit.has(join(root, ".git")) ? [join(root, ".git")] : gitDirs.length === 2 ? [gitDirs[1]!] : [])].flatMap((g) => onWalk(linkedWorktrees(g), (all) => all, (_, bound) => {
      throw new ToolError(`not run: ${incompleteLine(`linked worktrees of ${shellQuote(relative(root, g) || g)}`, bound, "under --allow-write=.git bunker checks each one's index after every command, so it runs none here. Remove the worktrees no longer needed (git worktree remove, git worktree prune), or run bunker without --allow-write=.git")}`);
    })).filter((l) => l.worktree !== root && !gitDirs.includes(l.gitDir)).flatMap(({ gitDir, worktree }) => {
      const before = historyBefore(gitDir, worktree);
      return before ? [{ ...before, worktree, linked: { shown: relative(root, worktree) || ".", judgedIn: root } }] : [];
    }),
  ));
  // Its object store, to check after it what it wrote there that git would trust unchecked (git-objects.ts): once per store.
  if (gitGrant) gitGrant.objects = objectStoresBefore([...topGit, ...gitDirs]);
  // Its links: one the command makes is set aside before anything after it reads or writes there (git-links.ts).
  if (gitGrant) gitGrant.linksBefore = linksIn(gitGrant.gitDirs);
  const dotGitFile = gitGrant && lstatKind(join(root, ".git")) === "file" ? [join(root, ".git")] : [];
  // A command with the workspace read-only (it only reads, or a bare --deny-write) sees the folders granted for
  // writing read-only too, not nothing (reviewer's R12-09: the note then sent the person to the grant they had given).
  const readable = [...grantedReadPaths(grants), ...(opts.alsoReadable ?? []), ...linkedGrants, ...deniedGrants, ...(workspaceReadOnly ? grantedWrites : []), ...(opts.gitWritable ? [] : gitDirs), ...enclosingGitDirs(root, host.home ?? realpathLoose(opts.home ?? homedir()).real)];
  const writable = [...grantedWrites, ...(opts.gitWritable ? gitDirs : [])];
  // A granted folder's repository config that holds a credential: shown as a copy without it, as the workspace's (repo-configs.ts).
  const repoCopies = confined ? credentialFreeCopies(repositoryConfigs([...grantedWrites, ...grantedReadPaths(grants), ...linkedGrants].flatMap(gitDirsOfFolder))) : {};
  // bunker's own state folder: hidden even in a workspace that holds it (state-dir.ts).
  const state = opts.sessionsDir ? stateDirView(stateDirMade(opts.sessionsDir), root, workspaceReadOnly ? [] : writable) : { hidden: [], pinned: [] };
  // The sandbox home's caches, kept for the workspace's next commands, in the state folder only bunker sees.
  // Linux only: macOS has no private home to replace (seatbelt.ts).
  const kept = confined && process.platform === "linux" && host.home && opts.sessionsDir && opts.keptCachesKey !== undefined ? keptHome(opts.sessionsDir, root, opts.keptCachesKey) : null;
  // The folders on the way to bunker's state folder and to what a deny-read rule names: a command cannot move them.
  // And the folders on the way to each deny-write path and match (red team 12's F04): moving its folder took a file
  // out of its rule's reach (its read-only mount moved with it), and the next command deleted it there.
  const held = denied ? deniedWriteHeld(grants.deny.write, roots, [...readOnlyPaths(opts, wall ? grants.deny.write : null, roots), ...denied.folders, ...denied.wall]) : [];
  // Every read-only mount inside a writable root, not only a deny-write rule's: the wall's runs-later files and git
  // directories, and under --allow-write=.git what stays read-only in it (the person's other worktrees): renaming a
  // folder above one moved its mount along, and the person's file could then be deleted or replaced there (reviewer's
  // R12-16, R12-18; red team 12's F04 for deny-write).
  // Each pin is a mount every command pays for (a monorepo of 150 packages, each package.json read-only: +0.6 s a
  // command, reviewer's R12-28). A deny-write rule's files and the git grant's read-only parts are always pinned. Of the
  // wall's, only runs-later files need it (a runs-later file is one by its path: moved away, it is an ordinary file the
  // next command may delete); a repository is found and kept read-only wherever it is moved, so repositories a command
  // makes (70 `git init`s) cannot push the count past the bound (reviewer's R12-29). Past MAX_WALL_PINS folders, those
  // files go unpinned; a command cannot add runs-later files that stay (what it makes is set aside after it).
  const strictPins = denied ? deniedPins({ paths: [...held, ...(gitGrant?.readOnly ?? [])], globs: [] }, roots) : [];
  const wallPins = denied && wall && !("refusal" in wall) ? deniedPins({ paths: wall.later, globs: [] }, roots) : [];
  const writePins = [...strictPins, ...(wallPins.length <= MAX_WALL_PINS ? wallPins : [])];
  const pinned = [...new Set([...state.pinned, ...(confined && !workspaceReadOnly ? deniedPins(grants.deny.read, roots) : []), ...writePins])];
  return {
    ...host,
    gitConfigCopies: { ...host.gitConfigCopies, ...repoCopies },
    ...(kept ? { keptHome: kept } : {}),
    root,
    allowNet: opts.allowNet,
    gitWritable: opts.gitWritable,
    writable,
    ...(granted.length > 0 ? { grantedRoots: granted } : {}),
    // Granted reads (a rule's glob shows its fixed part), and the repository of a worktree, read-only.
    readable,
    hidden: [
      ...(host.hidden ?? []),
      ...grants.deny.read.paths,
      ...(opts.hiddenGitObjects ?? []),
      ...(confined ? deniedMatches(grants, [root, ...readable, ...writable, ...(host.toolchains ?? [])], root, host.system ?? []) : []),
      // --deny-run's programs, unexecutable however they are started (denied-programs.ts).
      // Every other name of such a file (a hard link) wherever the sandbox shows it, masked the same (reviewer's R11-11).
      ...(confined ? deniedProgramFiles(grants.deny.run, (opts.env ?? process.env).PATH ?? "", commandStarters(), [...(host.system ?? []), ...(host.toolchains ?? []), root, ...writable, ...readable], host.toolchains ?? []) : []),
      ...state.hidden,
    ],
    ...(pinned.length > 0 ? { pinned } : {}),
    // Denied paths in the workspace and in each granted folder: each read-only whole, as it is there (red team 11's F07).
    readOnly: [...new Set([...readOnlyPaths(opts, wall ? grants.deny.write : null, roots), ...(denied?.folders ?? []), ...(denied?.wall ?? []), ...dotGitFile])],
    ...(denied ? { wallPaths: denied.wall } : {}),
    ...(gitGrant ? { grantedGit: gitGrant } : {}),
    workspaceReadOnly,
    ...(workspaceLinkedAs ? { workspaceLinkedAs } : {}),
    ...(writesDenied ? { writesDenied } : {}),
    ...(workspaceDeniedBy ? { writesDeniedBy: workspaceDeniedBy } : {}),
    ...(wall ? { repositories: wall.state } : {}),
    // A line run unasked because it only reads writes nothing there either; a workspace read-only for another reason
    // (a bare --deny-write) leaves the session's /tmp writable, as the in-memory one was.
    ...(held.length > 0 ? { deniedWriteFiles: held } : {}),
    ...(confined && opts.sessionTmp ? { sessionTmp: { dir: opts.sessionTmp, readOnly: workspaceReadOnly && !writesDenied && workspaceLinkedAs === undefined } } : {}),
  };
}

/** The --deny-write paths kept read-only: those inside the workspace, and (with `deny`: the wall is up) those in each writable root. */
function readOnlyPaths(opts: RunBashOptions, deny: Grants["deny"]["write"] | null, roots: string[]): string[] {
  return [...new Set([...(opts.readOnly ?? []), ...(deny ? deniedPathsInside(deny, roots) : [])])];
}

/** The programs every confined command starts with (its shell, the limiter): never masked by a --deny-run. */
export function commandStarters(): string[] {
  return [locateProgram("bash") ?? "/bin/sh", prlimitProgram() ?? ""].filter(Boolean);
}

/**
 * What the deny-read globs match in the trees the command sees, and every
 * hard link to a denied file in the workspace: masked like a denied path. A
 * walk too big to make at each command refuses the command (and says which
 * rule to change) rather than run it with part of the mask.
 */
function deniedMatches(grants: Grants, trees: string[], root: string, system: string[]): string[] {
  const deny = grants.deny.read;
  if (deny.globs.length === 0 && deny.paths.length === 0) return [];
  const scan = scanDenied(deny, trees, { system, always: [root] });
  if ("refused" in scan) throw new ToolError(`not run: ${scan.refused}`);
  const masks = scan.masks.map((m) => m.path);
  // The content caches that keep a denied file's bytes by hash (DVC's): hidden whole (denied-caches.ts).
  return [...masks, ...deniedCaches([...deny.paths, ...scan.masks.filter((m) => !m.dir).map((m) => m.path)], root)];
}

// ---- running ------------------------------------------------------------------

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOutAfterMs: number | null;
  interrupted: boolean;
  output: string;
  /** The spawn itself failed (program missing…). */
  spawnError?: string;
  /** bunker stopped it, and why (the session's /tmp past its limit): its status line. */
  stoppedBecause?: string;
  /** What bwrap wrote on its status descriptor (STATUS_FD), when it was asked to (withSetupStatus). */
  setupStatus?: string;
}

interface RunOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  maxOutputBytes: number;
  killGraceMs: number;
  ui: ToolContext["ui"];
  command: string;
}

/** Run `argv` as a new process group and wait until it and its children are gone (or killed). */
export function runProcess(argv: string[], o: RunOptions): Promise<ProcessResult> {
  return new Promise((resolvePromise) => {
    const out = new BoundedOutput(o.maxOutputBytes);
    const tail = new LiveTail(o.ui);

    const adoptedBefore = adoptOrphans();
    const inherited = inheritedFds(argv);
    // bwrap's status report, when it was asked for one (bubblewrap.ts withSetupStatus).
    const reported = argv.some((a, i) => a === "--json-status-fd" && argv[i + 1] === String(STATUS_FD));
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: o.cwd,
      env: o.env,
      // bunker's binary, where bwrap binds it for the checker and the forwarder (self-binary.ts).
      stdio: reported ? ["ignore", "pipe", "pipe", inherited[0] ?? "ignore", "pipe"] : ["ignore", "pipe", "pipe", ...inherited],
      detached: true, // setsid: its own process group, which we kill as a whole
    });
    const pgid = child.pid;
    if (pgid !== undefined) trackGroup(pgid);
    let timedOut = false;
    let interrupted = false;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    let drainTimer: ReturnType<typeof setTimeout> | undefined;
    let sweep: ReturnType<typeof setInterval> | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let openStreams = reported ? 3 : 2;
    let setupStatus = "";
    const statusPipe = reported ? (child.stdio[STATUS_FD] as import("node:stream").Readable | null) : null;
    statusPipe?.on("data", (chunk: Buffer) => {
      if (setupStatus.length < 4096) setupStatus += chunk.toString("utf8");
    });
    let settled = false;

    const killGroup = (sig: NodeJS.Signals) => {
      if (pgid === undefined) return;
      try {
        process.kill(-pgid, sig);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const stop = () => {
      killGroup("SIGTERM");
      killTimer ??= setTimeout(() => killGroup("SIGKILL"), o.killGraceMs);
    };

    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, o.timeoutMs);
    const onAbort = () => {
      interrupted = true;
      stop();
    };
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener("abort", onAbort, { once: true });

    const onData = (chunk: Buffer) => {
      out.push(chunk);
      tail.show(chunk);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);

    const finish = (spawnError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      clearInterval(sweep);
      o.signal.removeEventListener("abort", onAbort);
      // Whatever is left of the group (background jobs), and what it started outside the group, goes with the command.
      if (pgid !== undefined) endGroup(pgid, adoptedBefore);
      if (killTimer) clearTimeout(killTimer);
      resolvePromise({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOutAfterMs: timedOut ? o.timeoutMs : null,
        interrupted,
        output: out.render(),
        spawnError,
        ...(reported ? { setupStatus } : {}),
      });
    };
    const streamClosed = () => {
      if (--openStreams === 0 && exit) finish();
    };
    child.stdout!.on("close", streamClosed);
    child.stderr!.on("close", streamClosed);
    statusPipe?.on("close", streamClosed);
    child.on("error", (err) => {
      exit = { code: null, signal: null };
      finish(err.message);
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      if (openStreams === 0) return finish();
      // Background children may still hold the pipes: stop them, then stop waiting. What left the group
      // (setsid) goes at once, and again as the group's dying members leave more of it to bunker.
      stop();
      killAdoptedSince(adoptedBefore);
      sweep = setInterval(() => killAdoptedSince(adoptedBefore), 100);
      drainTimer = setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
        statusPipe?.destroy();
        finish();
      }, o.killGraceMs + 500);
    });
  });
}

/** Shows the command's output as it runs: to the UI's live tail when it has one, else its latest line now and then. */
class LiveTail {
  private last = 0;
  private pending = "";
  constructor(private readonly ui: ToolContext["ui"]) {}
  show(chunk: Buffer): void {
    if (this.ui.output) return this.ui.output(chunk.toString("utf8"));
    this.pending = (this.pending + chunk.toString("utf8")).slice(-4096);
    const now = Date.now();
    if (now - this.last < TAIL_INTERVAL_MS) return;
    const line = this.pending.split(/\r?\n|\r/).filter((l) => l.trim() !== "").pop();
    if (!line) return;
    this.last = now;
    this.pending = "";
    this.ui.info(`  │ ${oneLine(line, 160)}`);
  }
}

// ---- the result ---------------------------------------------------------------

function formatResult(r: ProcessResult, note: string | null): ToolOutput {
  let status: string;
  if (r.spawnError) status = `the command could not be started: ${r.spawnError}`;
  else if (r.timedOutAfterMs !== null) status = `timed out after ${formatSeconds(r.timedOutAfterMs)}; the command and its children were stopped`;
  else if (r.stoppedBecause) status = r.stoppedBecause;
  else if (r.interrupted) status = "interrupted by the user; the command and its children were stopped";
  else if (r.signal) status = `killed by signal ${r.signal}`;
  else status = `exit code ${r.exitCode ?? "unknown"}`;
  const body = r.output === "" ? "(no output)" : r.output.replace(/\n$/, "");
  const content = `${status}\n\n${body}${note ? `\n\n${note}` : ""}`;
  return { content, isError: r.exitCode !== 0 || r.signal !== null || r.timedOutAfterMs !== null || r.interrupted || r.stoppedBecause !== undefined };
}

/** The status of a command stopped for filling the session's /tmp (session-tmp.ts). */
function tmpFullStatus(bytes: number, limit: number): string {
  return `stopped by bunker: the session's /tmp and /var/tmp grew to ${shownSize(bytes)}, past their limit of ${shownSize(limit)}, so the command and its children were stopped. ` +
    "They are on disk and kept for the session's later commands (until /clear), so what is there stays: remove what is not needed (rm -rf /tmp/NAME), " +
    "or write large files in the workspace (TMPDIR=$PWD/.tmp), then run it again.";
}

/** A command that left the session's /tmp past its limit, and larger than it found it, before any look while it ran said so. */
function tmpGrewStatus(bytes: number, limit: number, exitCode: number | null): string {
  return `failed by bunker (the command itself exited ${exitCode ?? "by a signal"}): it left the session's /tmp and /var/tmp at ${shownSize(bytes)}, past their limit of ${shownSize(limit)}, ending before bunker's look while it ran could stop it. ` +
    "They are on disk and kept for the session's later commands (until /clear), and every command that adds to them while they are over fails: remove what is not needed (rm -rf /tmp/NAME), or write large files in the workspace (TMPDIR=$PWD/.tmp).";
}

/** The output names a path in the workspace's own .git (`.git/index.lock`, `/ws/.git/HEAD.lock`), not a nested or granted folder's. */
function namesTopGit(out: string, root: string): boolean {
  return out.includes(`${root}/.git/`) || /(^|[\s'"`])\.git\//m.test(out);
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

/**
 * When a confined command failed in a way the sandbox causes, say so, so the
 * model asks the person instead of retrying.
 */
export function sandboxNote(r: ProcessResult, spec: SandboxSpec, command = ""): string | null {
  const out = r.output;
  // Files the person's tools run later, named with why (a loop whose last step succeeded still failed on them).
  const later = spec.workspaceReadOnly || spec.writesDenied || spec.workspaceLinkedAs ? null : runsLaterNote(out, spec, command);
  if (r.exitCode === 0 && !r.signal) return later ? `note: ${later}` : null;
  const notes: string[] = [];
  // A file mounted read-only (a hook, .envrc, a venv's pip) cannot be removed or renamed over either: its mount point is busy.
  const erofs = /Read-only file system|EROFS/.test(out) || busyOnReadOnlyMount(out, spec);
  // A package cache in a toolchain's tree (`bun install`, `cargo build` fetching): which flag, and the other way.
  const toolchain = erofs && !spec.workspaceReadOnly ? toolchainWriteNote(out, spec) : null;
  if (erofs && spec.writesDeniedBy) {
    notes.push(`The person denied writes to ${spec.writesDeniedBy} (--deny-write or a deny rule), which holds the workspace: it is read-only to commands. Do not retry or work around it; say what you would change instead.`);
  } else if (erofs && spec.writesDenied) {
    notes.push("The person ran bunker with a bare --deny-write: the workspace and every folder are read-only to commands. Do not retry or work around it; say what you would change instead.");
  } else if (erofs && spec.workspaceLinkedAs) {
    notes.push(
      `The workspace is read-only to commands: ${spec.workspaceLinkedAs} in the person's home leads to it, so the program that reads ${spec.workspaceLinkedAs} runs or obeys what a command writes here, on this machine, outside the sandbox. ` +
        "Write files with the file tools (the person sees each change and is asked); do not retry the command.",
    );
  } else if (erofs && spec.workspaceReadOnly) {
    notes.push(
      "This command ran without asking because it only reads, so the whole workspace was read-only. " +
        "If it must write, run it in a form that asks the person (for example without the read-only wrapper it was judged by).",
    );
  } else if (toolchain) {
    notes.push(toolchain);
  } else if (later) {
    notes.push(later);
  } else if (erofs && !spec.gitWritable && namesTopGit(out, spec.root)) {
    // git failing on the read-only .git: the grant that lets commands write history and nothing git obeys.
    notes.push(
      "The sandbox keeps the repository's .git read-only, so git cannot commit, branch, rebase, stash or fetch here. " +
        "Do not retry. If the person wants commands to do that, ask them to run bunker with --allow-write=.git: history (objects, refs, the index) becomes writable, while git's config, hooks and info/ stay read-only, so no command can make their own git run a program.",
    );
  } else if (erofs) {
    notes.push(
      `The sandbox blocked a write: only the workspace${spec.grantedRoots?.length ? ", the folders granted with --allow-write" : ""} and /tmp are writable (every git repository in ${spec.grantedRoots?.length ? "them" : "it"}, at any depth, every .bunker, what a --deny-write flag or deny rule names, and the files other tools run later, such as .envrc, .husky/ and .vscode/tasks.json, are read-only; ${spec.gitWritable ? "under --allow-write=.git the top .git's config, hooks, info/ and commondir still are" : "the top .git unless granted with --allow-write=.git"}). ` +
        "Do not retry; if the write is needed, ask the person, who can grant the path with --allow-write=PATH; a file other tools run later is written with the file tools, which ask the person.",
    );
  }
  // A path the sandbox does not show: what it shows, and which flag shows more (a masked socket's refusal is not the network's).
  const path = pathNote(out, spec);
  if (!spec.allowNet && !path?.includes("is a Unix socket") && /Network is unreachable|Could not resolve host|Temporary failure in name resolution|Name or service not known|getaddrinfo|ENETUNREACH|EAI_AGAIN|Connection refused/.test(out)) {
    notes.push(
      "The sandbox has no network of its own: commands reach other hosts only through bunker's proxy (HTTP_PROXY/HTTPS_PROXY are set), for hosts the person grants. " +
        "Do not retry with another tool; if the command needs a host, ask the person to grant it (--allow-net=HOST).",
    );
  }
  const space = spaceNote(out, spec);
  if (space) notes.push(space);
  const memory = memoryNote(out, spec);
  if (memory) notes.push(memory);
  if (path) notes.push(path);
  return notes.length > 0 ? `note: ${notes.join(" ")}` : null;
}

/** The walk's lines shown and sent at the most: a command that plants thousands of files gets one line for the rest. */
const WALL_LINES = 20;

/**
 * The first `max` lines and one for the rest (red team 8: 5,000 planted .envrc files made a 1.1 MB tool result,
 * every line also on screen). What was set aside carries its own name, so `find` lists it all.
 */
export function atMost(max: number, lines: string[]): string[] {
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max - 1), `and ${lines.length - max + 1} more like these, done the same way (find . -name '*.bunker-set-aside*' lists what was set aside)`];
}
