// The one place that decides. Given the grants (flags + rules files) and a
// request, answer allow / deny / ask, in this order: deny rules and --deny-*
// flags, then protected paths (always ask), then allow rules and --allow-*
// flags, then defaults. Pure: no I/O, no prompts; the approver asks.
import { isAbsolute, relative, resolve, sep } from "node:path";
import { isProtectedPath, isWithin } from "./workspace.ts";
import type { PermKind, Verdict } from "./types.ts";
import { hostsCover } from "../net/host-pattern.ts";
import { decideRun, runGrantHint, type RunPolicyOptions, type RunRules } from "./run-policy.ts";

/** Grants for one path kind (read or write). */
export interface PathRules {
  /** Bare flag (`--allow-write`): the whole workspace, no prompts. Never reaches outside. */
  workspace: boolean;
  /** Absolute paths named by flags: each covers itself and everything below. */
  paths: string[];
  /** Absolute glob patterns from rules files. */
  globs: string[];
}

export interface HostRules {
  all: boolean;
  hosts: string[];
}

export interface Grants {
  allow: { read: PathRules; write: PathRules; run: RunRules; net: HostRules };
  deny: { read: PathRules; write: PathRules; run: RunRules; net: HostRules };
}

export interface Decision {
  verdict: Verdict;
  /** Why, in words the model and the person can act on (always set for deny). */
  reason?: string;
}

export const emptyPathRules = (): PathRules => ({ workspace: false, paths: [], globs: [] });
export const emptyRunRules = (): RunRules => ({ all: false, programs: [], patterns: [] });
export const emptyGrants = (): Grants => ({
  allow: { read: emptyPathRules(), write: emptyPathRules(), run: emptyRunRules(), net: { all: false, hosts: [] } },
  deny: { read: emptyPathRules(), write: emptyPathRules(), run: emptyRunRules(), net: { all: false, hosts: [] } },
});

export class Policy {
  constructor(
    readonly root: string,
    readonly grants: Grants,
    /** How commands are judged: read-only ones run unasked only when commands are sandboxed. */
    readonly runOptions: RunPolicyOptions = {},
  ) {}

  decide(kind: PermKind, target: string): Decision {
    switch (kind) {
      case "read":
      case "write":
        return this.decidePath(kind, target);
      case "run":
        return decideRun(this.grants, target, this.root, this.runOptions);
      case "net":
        return this.decideNet(target);
    }
  }

  private decidePath(kind: "read" | "write", real: string): Decision {
    const inside = isWithin(this.root, real);
    const shown = inside ? relative(this.root, real) || "." : real;
    if (matchesPathRules(this.grants.deny[kind], real, this.root, true)) {
      return { verdict: "deny", reason: `${kind} access to ${shown} is denied by a --deny-${kind} flag or a deny rule` };
    }
    if (kind === "write" && inside && this.isProtectedPath(real)) return { verdict: "ask" };
    const allow = this.grants.allow[kind];
    if (matchesPathRules(allow, real, this.root, false)) return { verdict: "allow" };
    if (!inside) {
      return {
        verdict: "deny",
        reason: `${shown} is outside the workspace (${this.root}). To grant it, run bunker with --allow-${kind}=${shown}`,
      };
    }
    if (allow.workspace) return { verdict: "allow" };
    return kind === "read" ? { verdict: "allow" } : { verdict: "ask" };
  }

  /** Inside the workspace and under a `.git` or `.bunker` directory at any depth (workspace.ts). */
  isProtectedPath(real: string): boolean {
    return isProtectedPath(this.root, real);
  }

  /** `target` is "host:port" (net/host-pattern.ts): patterns may name the host, host:port, or *.domain. */
  private decideNet(target: string): Decision {
    const allow = this.grants.allow.net;
    const deny = this.grants.deny.net;
    if (deny.all || hostsCover(deny.hosts, target)) return { verdict: "deny", reason: `network access to ${target} is denied by --deny-net or a deny rule` };
    if (allow.all || hostsCover(allow.hosts, target)) return { verdict: "allow" };
    return { verdict: "ask" };
  }

  /** The flag that would grant a request, for the no-prompt denial message. */
  grantHint(kind: PermKind, target: string): string {
    if (kind === "read" || kind === "write") {
      const inside = isWithin(this.root, target);
      const shown = inside ? relative(this.root, target) || "." : target;
      return `--allow-${kind}=${shown}` + (kind === "write" && inside ? ` (or --allow-write for the whole workspace)` : "");
    }
    if (kind === "run") return runGrantHint(this.grants, target, this.root);
    return `--allow-net=${target}`;
  }
}

/**
 * `deny` matters for bare flags: a bare --deny-write means everywhere, while a
 * bare --allow-write means the workspace only.
 */
function matchesPathRules(rules: PathRules, real: string, root: string, deny: boolean): boolean {
  if (rules.workspace && deny) return true;
  if (rules.paths.some((p) => isWithin(p, real))) return true;
  return rules.globs.some((g) => new Bun.Glob(g).match(real));
}

/** Turn a rules-file glob (relative to the workspace, or absolute) into an absolute pattern. */
export function absoluteGlob(root: string, pattern: string): string {
  return isAbsolute(pattern) ? pattern : resolve(root, pattern);
}
