// --deny-run at the sandbox's wall (red team 11's F05). The judge refuses a
// command line that names a denied program, but a program it lets run can
// start it (python's subprocess, make, an npm script, xargs). Here each denied
// program's file, wherever the sandbox's PATH and the system's bin folders
// find it, is hidden as a denied read is: /dev/null in its place, which
// nothing can execute (EACCES) nor copy. Every name that links to it is
// covered, since the file itself is masked. What no mask can reach: a copy the
// command brings or builds itself, or another program that does the same job
// (an interpreter's own HTTP client in place of curl).
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { RunRules } from "../perms/run/patterns.ts";
import { SYSTEM_BIN_DIRS } from "./host-program.ts";

/**
 * The real files of the programs `rules` denies whole (a --deny-run name, or a rules file's `run:NAME *`), found on
 * `path` and in the system's bin folders, except those in `keep` (the shell and the limiter bunker starts every
 * command with: masking them would stop every command, not the denied one).
 */
export function deniedProgramFiles(rules: RunRules, path: string, keep: readonly string[] = []): string[] {
  const names = [...rules.programs, ...rules.patterns.flatMap((p) => wholeProgram(p))];
  if (names.length === 0) return [];
  const dirs = [...path.split(":").filter((d) => isAbsolute(d)), ...SYSTEM_BIN_DIRS];
  const kept = new Set(keep.map(real).filter((p): p is string => p !== null));
  const out = new Set<string>();
  for (const name of new Set(names)) {
    const candidates = name.includes("/") ? (isAbsolute(name) ? [name] : []) : dirs.map((d) => join(d, name));
    for (const c of candidates) {
      const file = real(c);
      if (file && !kept.has(file)) out.add(file);
    }
  }
  return [...out];
}

/** A rules-file pattern that names a whole program (`curl *`): its name. `git push` or `curl` alone (no arguments) deny less. */
function wholeProgram(pattern: string): string[] {
  const words = pattern.trim().split(/\s+/);
  return words.length === 2 && words[1] === "*" && words[0] !== "*" ? [words[0]!] : [];
}

/** The regular file a path leads to, or null. */
function real(p: string): string | null {
  try {
    return statSync(p).isFile() ? realpathSync(p) : null;
  } catch {
    return null;
  }
}
