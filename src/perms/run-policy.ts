// Decides run_bash commands. Placeholder rules until the shell parser lands:
// a bare --allow-run grants all, --deny-run denies all, anything else asks.
import type { Decision, Grants } from "./policy.ts";

export interface RunRules {
  /** Bare flag: every command. */
  all: boolean;
  /** Program names from --allow-run=git,bun. */
  programs: string[];
  /** Rules-file patterns such as `git status` or `bun test *`. */
  patterns: string[];
}

export function decideRun(grants: Grants, command: string, _root: string): Decision {
  if (grants.deny.run.all) return { verdict: "deny", reason: "running commands is denied by --deny-run" };
  if (grants.allow.run.all) return { verdict: "allow" };
  void command;
  return { verdict: "ask" };
}

/**
 * Whether every simple command in `command` starts with one of the prefixes
 * the person allowed for the session. Placeholder: only a command with no
 * shell operators at all can match, so `git status; rm -rf ~` never does.
 */
export function commandCoveredByPrefixes(command: string, prefixes: string[]): boolean {
  if (/[;&|<>`$(){}\n\\'"*?~]/.test(command)) return false;
  const c = command.trim();
  return prefixes.some((p) => c === p || c.startsWith(p + " "));
}
