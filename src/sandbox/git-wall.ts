// The git wall around a sandboxed process's writable roots, one code path for
// every writer (run_bash, an MCP server's `write` grant). Before it runs: one
// walk of the roots finds every git repository site, the files the person's
// tools run later, and what the walk could not see; all of it is mounted
// read-only (git-guard.ts, walk-gaps.ts), or the process is refused. After it
// (each command, each MCP tool call): the roots are walked again, what was
// hidden from the walk is undone, new repositories are disarmed, and new or
// changed runs-later files are set aside; each thing done is one line for the
// person and the model.
import { disarmNewRepositories, gitGuard, isLink, linkedWhy, obeyedFiles, recheckLinked, scanRoots, setAsideRunsLater, walkCutNotes, type GitSite, type LaterMatch, type WorkspaceScan } from "./git-guard.ts";
import { linkedFiles } from "./hard-links.ts";
import { gapsAfter, gapsBefore, type WalkGaps } from "./walk-gaps.ts";
import { relative } from "node:path";
import { shellQuote } from "../shell/quote.ts";

/** What the walk before the process found: checked again after it (wallAfter). */
export interface WallState {
  sites: GitSite[];
  missingHooks: string[];
  missingIncludes: string[];
  later: LaterMatch;
  laterFiles: Map<string, string>;
  gaps: WalkGaps;
  /** Files git obeys that have a second name (a hard link) → their identity: checked again after (recheckLinked). */
  linked: Map<string, string>;
  /** Which of those are configs (the others are hooks). */
  linkedConfigs: Set<string>;
}

/** Before: the paths to mount read-only (every git site's, each runs-later file, each folder the walk cannot list), or why the process may not run. */
export type WallBefore = { readOnly: string[]; state: WallState } | { refusal: string };

/**
 * The walk before a process that may write `roots` (roots[0] the workspace). `writableGit`: git directories the
 * person granted for writing (--allow-write=.git), left out of the read-only list.
 */
export function wallBefore(roots: string[], later: LaterMatch, globalConfig: string[], home: string, writableGit: ReadonlySet<string> = new Set()): WallBefore {
  const scan = scanRoots(roots, later);
  const gaps = gapsBefore(roots, scan, (p) => later.match(p) !== null);
  if (gaps.refusal) return { refusal: gaps.refusal };
  const guard = gitGuard(roots, scan.sites, globalConfig, home);
  // Files the person's tools run later, read-only like .git (a link is not mounted over: one the process makes is set aside).
  const laterReadOnly = [...scan.later.keys()].filter((p) => !isLink(p));
  const obeyed = obeyedFiles(roots, guard, scan.sites, writableGit);
  return {
    readOnly: [...guard.readOnly.filter((p) => !writableGit.has(p)), ...laterReadOnly, ...gaps.readOnly],
    state: { sites: scan.sites, missingHooks: guard.missingHooks, missingIncludes: guard.missingIncludes, later, laterFiles: scan.later, gaps: gapsOf(scan), linked: linkedFiles([...obeyed.configs, ...obeyed.hooks]), linkedConfigs: new Set(obeyed.configs) },
  };
}

/** Why a file an .envrc loads, or a runs-later link leads to, runs later (scanRoots' loadedBy, linkedFrom), or null. */
function loadedWhy(p: string, scan: WorkspaceScan, root: string): string | null {
  const envrc = scan.loadedBy?.get(p);
  if (envrc) return `${relative(root, envrc)} has direnv load it into your shell on every cd, with no new direnv allow`;
  const link = scan.linkedFrom?.get(p);
  return link ? linkedWhy(relative(root, link)) : null;
}

const gapsOf = (scan: WorkspaceScan): WalkGaps => ({ unlistable: scan.unlistable, undecodable: scan.undecodable, unwalked: scan.unwalked });

/** Rounds of undoing what hid from the walk (each may reveal a folder hidden inside the last). */
const GAP_ROUNDS = 64;

/**
 * The walk after the process, of every writable root. Never throws: each step fails safe on its own (a site it
 * cannot disarm is set aside); a step that fails whole is said.
 */
export function wallAfter(roots: string[], before: WallState): string[] {
  const step = (what: string, run: () => string[]): string[] => {
    try {
      return run();
    } catch (e) {
      return [`bunker could not finish ${what} (${e instanceof Error ? e.message : String(e)}): before running git in ${roots.map((r) => shellQuote(r)).join(", ")} or opening it in an editor, look at what the command made`];
    }
  };
  let after: WorkspaceScan | null = null;
  const walked = step("looking for what this command planted for git and the person's tools", () => {
    const lines: string[] = [];
    let scan = scanRoots(roots, before.later);
    // What the command hid from the walk (an unlistable folder, a name that is not UTF-8), undone, and walked again.
    for (let round = 0; ; round++) {
      const fixed = gapsAfter(roots, before.gaps, scan, (p) => before.later.match(p) !== null);
      lines.push(...fixed.lines);
      if (!fixed.rescan) break;
      scan = scanRoots(roots, before.later);
      if (round === GAP_ROUNDS) {
        lines.push(`bunker stopped undoing what hid folders from its check after ${GAP_ROUNDS} rounds: before running git in ${roots.map((r) => shellQuote(r)).join(", ")} or opening it in an editor, look at what the command made`);
        break;
      }
    }
    after = scan;
    return [...lines, ...walkCutNotes(scan)];
  });
  if (!after) return walked;
  const found: WorkspaceScan = after;
  return [
    ...walked,
    ...step("disarming the git repositories this command made", () => disarmNewRepositories(roots, before.sites, found.sites, before)),
    ...step("checking the hard-linked files git obeys", () => recheckLinked(roots, before.linked, before.linkedConfigs)),
    ...step("setting aside the files this command made that run later", () => setAsideRunsLater(roots, before.laterFiles, found.later, (p) => before.later.match(p) ?? loadedWhy(p, found, roots[0]!))),
  ];
}
