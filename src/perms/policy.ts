// The one place that decides. Given the grants (flags + rules files), what
// the person granted for this session, and a request, answer allow / deny /
// ask, and say what decided it. Order: deny rules and --deny-* flags, then
// protected paths (always ask), then allow rules and --allow-* flags, then
// session grants, then defaults. No prompts: the approver asks; Permissions
// records the person's session answers here (grantSession).
//
// Adding a kind (net hosts, MCP tools…): add it to PermKind (types.ts), give
// it a case in decide() returning a Decision, and a hint for the no-prompt
// denial. Session grants (grantSession) work for every kind.
import { isAbsolute, relative, resolve } from "node:path";
import { isProtectedPath, isProtectedRelative, isWithin, realpathLoose } from "./workspace.ts";
import { matchesPathRules } from "./path-rules.ts";
import type { RunsLaterRule } from "./runs-later.ts";
import { unnamedHomeDotEntry } from "../sandbox/home-dots.ts";
import { homedir } from "../fs/home.ts";
import type { PermKind, Verdict } from "./types.ts";
import { hostsCover } from "../net/host-pattern.ts";
import { shellQuote } from "../shell/quote.ts";
import type { RunEvaluation } from "./run/evaluate.ts";
import type { RunGrant } from "./run/judge.ts";
import type { RunRules } from "./run/patterns.ts";
import { decideMcp, emptyMcpRules, type McpRules } from "../mcp/decide.ts";

export type { RunRules } from "./run/patterns.ts";

/** Grants for one path kind (read or write). */
export interface PathRules {
  /** Bare flag (`--allow-write`): the whole workspace, no prompts. Never reaches outside. */
  workspace: boolean;
  /** Absolute paths named by flags (or by wildcard-free rules-file entries): each covers itself and everything below. */
  paths: string[];
  /** Absolute glob patterns from rules files. */
  globs: string[];
}

export interface HostRules {
  all: boolean;
  hosts: string[];
}

export interface Grants {
  /** Files that run code later, from settings' "protect" (on top of runs-later.ts's list): writing them always asks. */
  protect?: RunsLaterRule[];
  allow: { read: PathRules; write: PathRules; run: RunRules; net: HostRules; mcp: McpRules };
  deny: { read: PathRules; write: PathRules; run: RunRules; net: HostRules; mcp: McpRules };
}

/**
 * What let a request through: a flag (or a path named in a rules file), a
 * rules-file pattern, the person's session answer, the read-only class of
 * commands, or the default (reads inside the workspace).
 */
export type GrantedBy = RunGrant | "default";

export interface Decision {
  verdict: Verdict;
  /** Why, in words the model and the person can act on (always set unless allowed). */
  reason?: string;
  /** What allowed it (set when allowed). */
  grantedBy?: GrantedBy;
  /** The flag that would grant it, for the no-prompt denial (set when asked). */
  hint?: string;
  /** Commands: the whole evaluation, per simple command (what the prompt, run_bash and permission_denials read). */
  run?: RunEvaluation;
  /** The person said yes at a question, which showed the request whole (run_bash then does not print the command again). */
  approvedAtQuestion?: boolean;
  /** A read outside the workspace that no grant covers: asked, and without a person to ask refused with `reason`. */
  outside?: boolean;
  /**
   * What the person let this one command see beyond its grants, at the question (run_bash adds it to the sandbox for
   * this run only): paths outside the workspace shown read-only, and the workspace's .git writable.
   */
  sandboxOnce?: SandboxNeeds;
}

/** What the sandbox would keep from a command line that it needs (sandbox-needs.ts). */
export interface SandboxNeeds {
  /** Existing paths outside the workspace the line names that the sandbox does not show. */
  reads: string[];
  /** The line writes git history (commit, add, branch…) and the workspace's .git is read-only in the sandbox. */
  gitWrite: boolean;
}

export interface PolicyOptions {
  /** Whether read-only commands may run without asking (only when run_bash is sandboxed). Default true. */
  readOnlyUnasked?: boolean;
}

export const emptyPathRules = (): PathRules => ({ workspace: false, paths: [], globs: [] });
export const emptyRunRules = (): RunRules => ({ all: false, programs: [], patterns: [] });
export const emptyGrants = (): Grants => ({
  allow: { read: emptyPathRules(), write: emptyPathRules(), run: emptyRunRules(), net: { all: false, hosts: [] }, mcp: emptyMcpRules() },
  deny: { read: emptyPathRules(), write: emptyPathRules(), run: emptyRunRules(), net: { all: false, hosts: [] }, mcp: emptyMcpRules() },
});

/**
 * Whether commands and MCP servers share the machine's network: a bare
 * --allow-net with no --deny-net at all. A shared network cannot refuse a
 * host (red team 11's F06: --allow-net --deny-net=127.0.0.1 reached the
 * host's loopback services), so anything less goes through bunker's proxy
 * (or has no network).
 */
export function sharesMachineNetwork(grants: Grants): boolean {
  return grants.allow.net.all && !grants.deny.net.all && grants.deny.net.hosts.length === 0;
}

/** A bare --allow-net that a --deny-net list narrows: every host but the denied ones, through bunker's proxy. */
export function proxiesAllNetBut(grants: Grants): boolean {
  return grants.allow.net.all && !grants.deny.net.all && grants.deny.net.hosts.length > 0;
}

/**
 * What runs a written file later, and the credential stores: loaded at the first write or granted
 * outside read (later-checks.ts). Required, not imported: decide() answers synchronously.
 */
let later: typeof import("./later-checks.ts") | undefined;
const laterChecks = () => (later ??= require("./later-checks.ts") as typeof import("./later-checks.ts"));

// The command judge's tables (src/perms/run/) are loaded when the first command is judged, not at start-up.
let runJudge: typeof import("./run/evaluate.ts") | undefined;

/** Loads the command judge: Permissions awaits it before a command is judged (decide("run") needs it). */
export async function loadRunJudge(): Promise<void> {
  runJudge ??= await import("./run/evaluate.ts");
}

export class Policy {
  /** "kind\0target" the person allowed for the session (for run: a command prefix). */
  private readonly sessionTargets = new Set<string>();
  /** Kinds the person allowed for the session ("all edits"); never covers protected paths. */
  private readonly sessionKinds = new Set<PermKind>();
  private readonly sessionPrefixes: string[] = [];
  /** Exact commands allowed for the session ("always allow `run:rm -rf build`"): those words and no others. */
  private readonly sessionExact: string[] = [];

  constructor(
    readonly root: string,
    readonly grants: Grants,
    readonly runOptions: PolicyOptions = {},
  ) {}

  decide(kind: PermKind, target: string): Decision {
    switch (kind) {
      case "read":
      case "write":
        return this.withSession(kind, target, this.decidePath(kind, target));
      case "run":
        return this.decideRun(target);
      case "net":
        return this.withSession(kind, target, this.decideNet(target));
      case "mcp":
        return this.withSession(kind, target, decideMcp(this.grants.allow.mcp, this.grants.deny.mcp, target));
    }
  }

  /** The person answered "for the rest of the session": this target (for run, this command prefix). */
  /**
   * "Always allow" rules (`run:npm test *`, `run:rm -rf build`) for the rest of the session: one ending in ` *` as the
   * prefix before it, an exact one for those words alone (reviewer's R12-12).
   */
  grantSessionRules(rules: readonly string[]): void {
    for (const rule of rules) {
      const pattern = rule.replace(/^run:/, "").trim();
      if (pattern.endsWith(" *")) this.grantSession("run", pattern.slice(0, -2).trim());
      else if (pattern && !pattern.endsWith("*") && !this.sessionExact.includes(pattern)) this.sessionExact.push(pattern);
    }
  }

  grantSession(kind: PermKind, target: string): void {
    if (kind === "run") {
      if (target.trim() && !this.sessionPrefixes.includes(target)) this.sessionPrefixes.push(target);
      return;
    }
    this.sessionTargets.add(`${kind}\0${target}`);
  }

  /**
   * The person let bunker read `path` (a file or a folder outside the workspace) for the rest of the session: added
   * to the grants themselves, as --allow-read=PATH would be, so that commands see it too (run_bash's sandbox builds its
   * read view from the same grants, and hides what a deny-read rule covers inside it). Deny rules still win.
   */
  grantSessionRead(path: string): void {
    if (!this.grants.allow.read.paths.includes(path)) this.grants.allow.read.paths.push(path);
  }

  /**
   * The person let commands write the workspace's .git for the rest of the session: the grant --allow-write=.git
   * gives (history writable; config, hooks and info still read-only: run-bash.ts, git-grant.ts).
   */
  grantSessionGitWrite(): void {
    const git = `${this.root}/.git`;
    if (!this.grants.allow.write.paths.includes(git)) this.grants.allow.write.paths.push(git);
  }

  /** The targets of `kind` the person allowed for the session, in the order given. */
  sessionTargetsOf(kind: PermKind): string[] {
    const prefix = `${kind}\0`;
    return [...this.sessionTargets].filter((t) => t.startsWith(prefix)).map((t) => t.slice(prefix.length));
  }

  /** The person answered "all of this kind for the session" (protected paths still ask). */
  grantKindForSession(kind: PermKind): void {
    this.sessionKinds.add(kind);
  }

  /**
   * Under a `.git` or `.bunker` directory at any depth (workspace.ts), inside
   * the workspace or anywhere else (a granted `--allow-write=../shared` has
   * hooks too).
   */
  isProtectedPath(real: string): boolean {
    if (isWithin(this.root, real)) return isProtectedPath(this.root, real);
    // A granted folder's own `.git` file may name its git directory beside it (`gitdir: ./.bare`).
    return isProtectedRelative(real) || this.grants.allow.write.paths.some((r) => isWithin(r, real) && isProtectedPath(r, real));
  }

  /**
   * Why a write to `real` always asks, even under -A or --allow-write (and is
   * never covered by "all edits for the session"), or null: `.git`/`.bunker`,
   * or a file other programs run later (runs-later.ts), wherever it is.
   */
  protectedReason(real: string): string | null {
    if (this.isProtectedPath(real)) return "git and bunker run what is in .git/ and .bunker/";
    return this.runsLater(real);
  }

  /**
   * What runs `real` later: runs-later.ts's answer, then git-guard's (the
   * same knowledge the sandbox uses for commands: git directories of any
   * name, included config files, hooks folders), with the granted write
   * paths as roots of their own (`../shared/.github/workflows/x`).
   */
  private runsLater(real: string): string | null {
    const { gitConfigFiles, gitHooksPath, gitWriteReason, laterQuestions, linkedNames, runsLaterReason, scanRoots, scanWhy } = laterChecks();
    const roots = [this.root, ...this.grants.allow.write.paths];
    // By its own name and by every name a link to a folder gives it (what the person's tools open).
    const protect = this.grants.protect ?? [];
    const key = `write\0${protect.map((r) => r.glob).join("\0")}\0${roots.map((r) => `${r}\0${gitHooksPath(r) ?? ""}`).join("\0")}\0${process.env.PATH ?? ""}`;
    const scan = scanRoots(roots, { key, ...laterQuestions(roots, protect) });
    for (const name of [real, ...linkedNames(scan, real)]) {
      const why = runsLaterReason(roots, name, this.grants.protect);
      if (why) return name === real ? why : `${why} (as ${relative(this.root, name)}, through a link)`;
    }
    // What an .envrc loads, what a hook or runs-later file that is a link leads to or names by its path, a program
    // where an .envrc puts a folder on PATH (scanRoots reads them at every walk).
    const named = scanWhy(scan, real, this.root);
    if (named) return named;
    // A relative core.hooksPath in the person's global git config (found through $HOME, as git finds it) names a folder in every repository.
    const home = process.env.HOME || homedir();
    return gitWriteReason(roots, real, gitConfigFiles(process.env, home), scan, home);
  }

  /** The credential store (a hidden path of the sandbox) that holds `real`, if any. */
  private credentialStore(real: string): string | null {
    const home = realpathLoose(process.env.HOME || homedir()).real;
    return laterChecks().secretPaths(home, this.root, process.env).find((s) => isWithin(s, real)) ?? null;
  }

  /** The flag that would grant a request, for the no-prompt denial message. */
  grantHint(kind: PermKind, target: string): string {
    return this.decide(kind, target).hint ?? "";
  }

  private withSession(kind: PermKind, target: string, d: Decision): Decision {
    if (d.verdict !== "ask") return d;
    const protectedWrite = kind === "write" && this.protectedReason(target) !== null;
    if ((this.sessionKinds.has(kind) && !protectedWrite) || this.sessionTargets.has(`${kind}\0${target}`)) {
      return { verdict: "allow", grantedBy: "session" };
    }
    return d;
  }

  private decideRun(command: string): Decision {
    if (!runJudge) throw new Error("the command judge is not loaded: await loadRunJudge() before deciding on a command");
    const run = runJudge.evaluateRun(command, {
      root: this.root,
      grants: this.grants,
      sessionPrefixes: this.sessionPrefixes,
      sessionExact: this.sessionExact,
      readOnlyUnasked: this.runOptions.readOnlyUnasked ?? true,
    });
    if (run.verdict === "ask" && this.sessionKinds.has("run")) return { verdict: "allow", grantedBy: "session", run };
    const grantedBy = run.verdict === "allow" ? lineGrant(run) : undefined;
    return {
      verdict: run.verdict,
      ...(run.reason ? { reason: run.reason } : {}),
      ...(grantedBy ? { grantedBy } : {}),
      ...(run.verdict === "ask" ? { hint: run.hint } : {}),
      run,
    };
  }

  private decidePath(kind: "read" | "write", real: string): Decision {
    const inside = isWithin(this.root, real);
    const shown = inside ? relative(this.root, real) || "." : real;
    // Quoted when it must be, so the flag can be pasted into a shell as it is (a path with a space);
    // made only for a decision that asks (an allowed read is the common case).
    const hint = () => `--allow-${kind}=${shellQuote(shown)}` + (kind === "write" && inside ? ` (or --allow-write for the whole workspace)` : "");
    if (matchesPathRules(this.grants.deny[kind], real, true)) {
      return { verdict: "deny", reason: `${kind} access to ${shown} is denied by a --deny-${kind} flag or a deny rule` };
    }
    const allow = this.grants.allow[kind];
    const by = matchesPathRules(allow, real, false);
    // Protected wherever it is; outside the workspace only a grant makes it askable (else it is denied below).
    if (kind === "write" && (inside || by)) {
      if (this.isProtectedPath(real)) return { verdict: "ask", reason: `${shown} is protected: writes there always ask`, hint: hint() };
      const later = this.runsLater(real);
      if (later) return { verdict: "ask", reason: `${shown} ${later}: writing it always asks`, hint: hint() };
    }
    if (by && !inside) {
      // A grant of the home (or a folder holding it) covers its non-dot entries only, as in the sandbox (home-dots.ts).
      const dot = unnamedHomeDotEntry(realpathLoose(process.env.HOME || homedir()).real, real, allow);
      if (dot) {
        return {
          verdict: "ask",
          reason: `${shown} is in ${dot}, a dot-entry of your home folder, which a grant of the home (or of a folder holding it) does not cover: logins, keys and histories live there, and commands never see it either. ${kind === "read" ? "Reading" : "Writing"} it always asks`,
          hint: hint(),
        };
      }
    }
    if (by && kind === "read" && !inside) {
      // The credential stores commands never see (spec.ts's hidden list): a wide grant (--allow-read=~) does not
      // cover them for read_file either; one that names the store or a file in it does.
      const store = this.credentialStore(real);
      if (store && !allow.paths.some((p) => isWithin(store, p))) {
        return { verdict: "ask", reason: `${shown} is in a credential store (${store}), which commands never see either: reading it always asks`, hint: hint() };
      }
    }
    if (by) return { verdict: "allow", grantedBy: by };
    if (!inside) {
      const reason = `${shown} is outside the workspace (${this.root}). To grant it, run bunker with --allow-${kind}=${shellQuote(shown)}`;
      // A read outside is asked about (new user's N12-11/N12-20), as a host is: the question shows the exact path, and a
      // yes for the session is a grant the sandbox's read view gets too (grantSessionRead). A credential store is
      // never asked about: only a flag or rule that names it grants it.
      if (kind === "read" && !this.credentialStore(real)) return { verdict: "ask", reason, hint: hint(), outside: true };
      return { verdict: "deny", reason };
    }
    if (allow.workspace) return { verdict: "allow", grantedBy: "flag" };
    return kind === "read" ? { verdict: "allow", grantedBy: "default" } : { verdict: "ask", reason: `writing ${shown} needs approval`, hint: hint() };
  }

  /** `target` is "host:port" (net/host-pattern.ts): patterns may name the host, host:port, or *.domain. */
  private decideNet(target: string): Decision {
    const allow = this.grants.allow.net;
    const deny = this.grants.deny.net;
    if (deny.all || hostsCover(deny.hosts, target)) return { verdict: "deny", reason: `network access to ${target} is denied by --deny-net or a deny rule` };
    if (allow.all || hostsCover(allow.hosts, target)) return { verdict: "allow", grantedBy: "flag" };
    return { verdict: "ask", reason: `network access to ${target} needs approval`, hint: `--allow-net=${target}` };
  }
}

/** What let a whole line through: the one grant its commands share, else the strongest ("flag" over "session" over "read-only"). */
function lineGrant(run: RunEvaluation): GrantedBy {
  const by = new Set(run.commands.map((c) => c.granted_by).filter((g): g is RunGrant => g !== undefined));
  for (const g of ["flag", "rules", "session", "read-only"] as const) if (by.has(g)) return g;
  return "read-only";
}


/** Turn a rules-file glob (relative to the workspace, or absolute) into an absolute pattern. */
export function absoluteGlob(root: string, pattern: string): string {
  return isAbsolute(pattern) ? pattern : resolve(root, pattern);
}
