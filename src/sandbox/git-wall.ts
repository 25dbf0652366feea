// The git wall around a sandboxed process's writable roots, one code path for
// every writer (run_bash, an MCP server's `write` grant). Before it runs: one
// walk of the roots finds every git repository site, the files the person's
// tools run later, and what the walk could not see; all of it is mounted
// read-only (git-guard.ts, walk-gaps.ts), or the process is refused. After it
// (each command, each MCP tool call): the roots are walked again, what was
// hidden from the walk is undone, new repositories are disarmed, and new or
// changed runs-later files are set aside; each thing done is one line for the
// person and the model.
import { disarmNewRepositories, gitGuard, isLink, obeyedFiles, recheckLinked, scanRoots, scanWhy, setAsideFirstModules, setAsideRunsLater, type GitSite, type LaterMatch, type WorkspaceScan } from "./git-guard.ts";
import { linkedFiles } from "./hard-links.ts";
import type { Portion } from "./python-portions.ts";
import { hookKeysBefore, restoreHookKeys, type ManifestBefore } from "./package-hooks.ts";
import { gapsAfter, gapsBefore, setAsideUnwalked, type WalkGaps } from "./walk-gaps.ts";
import { relative } from "node:path";
import { isWithin } from "../perms/workspace.ts";
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
  /** Every folder the walk read → dev:ino:ctime: the walk after takes these first, and what it does not reach that is not among them is the command's. */
  dirs: Map<string, string>;
  /**
   * Whether a read-only mount moved with its folder (`mv tools t2`) stayed read-only all along: bubblewrap's do (a
   * mount holds to its folder, and mount-check.ts saw each in place before the command ran); Seatbelt's rules name
   * paths, so a git directory moved is checked as a new one.
   */
  mountsMove?: boolean;
  /** The modules in the folders python puts first on its module path for a hook (git-guard.ts): a new one is set aside after. */
  firstModules?: ReadonlyMap<string, string>;
  /** The top-level folders there, with the code in each (python-portions.ts): one with none before and some after is set aside. */
  firstPortions?: ReadonlyMap<string, Portion>;
  /** Each package.json's hook keys before (package-hooks.ts): a change the command made to one is undone after. */
  hookKeys?: ReadonlyMap<string, ManifestBefore>;
  /** Why a file in laterFiles runs later, as the walk found it (`, imported by scripts/check.js, run by .husky/pre-commit …`): said when a write to it fails. */
  laterWhy?: (path: string) => string | null;
  /** The bounds the look for what hooks run stopped at (git-guard.ts namedCut): said once (explain.ts boundsNote). */
  namedCut?: string[];
}

/** Before: the paths to mount read-only (every git site's, each runs-later file, each folder the walk cannot list), or why the process may not run. */
export type WallBefore = { readOnly: string[]; later: string[]; state: WallState } | { refusal: string };

/**
 * The walk before a process that may write `roots` (roots[0] the workspace). `writableGit`: git directories the
 * person granted for writing (--allow-write=.git), left out of the read-only list.
 */
export function wallBefore(roots: string[], later: LaterMatch, globalConfig: string[], home: string, writableGit: ReadonlySet<string> = new Set()): WallBefore {
  if (doubt) return { refusal: doubt };
  const scan = scanRoots(roots, later);
  if (scan.unsettled?.length) return { refusal: unsettledSentence(roots, scan.unsettled, "so it cannot know which to keep read-only for this command; nothing ran. Run it again when they are still") };
  const gaps = gapsBefore(roots, scan, (p) => later.match(p) !== null);
  if (gaps.refusal) return { refusal: gaps.refusal };
  const guard = gitGuard(roots, scan.sites, globalConfig, home);
  // Files the person's tools run later, read-only like .git (a link is not mounted over: one the process makes is set aside).
  const laterReadOnly = [...scan.later.keys()].filter((p) => !isLink(p));
  const obeyed = obeyedFiles(roots, guard, scan.sites, writableGit);
  return {
    readOnly: [...guard.readOnly.filter((p) => !writableGit.has(p)), ...laterReadOnly, ...gaps.readOnly],
    // The runs-later files alone: the folders above them are pinned (run-bash.ts); a repository is found wherever it is moved.
    later: laterReadOnly,
    state: { sites: scan.sites, missingHooks: guard.missingHooks, missingIncludes: guard.missingIncludes, later, laterFiles: scan.later, gaps: gapsOf(scan), dirs: scan.dirs ?? new Map(), linked: linkedFiles([...obeyed.configs, ...obeyed.hooks]), linkedConfigs: new Set(obeyed.configs), firstModules: scan.firstModules ?? new Map(), firstPortions: scan.firstPortions ?? new Map(), hookKeys: hookKeysBefore(scan.packageJsons ?? [], [...(scan.hookScripts ?? [])]), laterWhy: (p) => later.match(p) ?? scanWhy(scan, p, roots[0]!), ...(scan.namedCut ? { namedCut: scan.namedCut } : {}) },
  };
}

/** What the person is told when folders kept changing while the walk read them (another session, an MCP server). */
function unsettledSentence(roots: readonly string[], dirs: readonly string[], what: string): string {
  const shown = dirs.slice(0, 3).map((d) => shellQuote(relative(roots[0]!, d) || ".")).join(", ");
  return `bunker's check for git repositories and files that run later saw folders change while it read them (${shown}${dirs.length > 3 ? ", …" : ""}: another bunker session's command, an MCP server or a tool is renaming them), ${what}`;
}

/**
 * Set when a walk after a command could not finish checking what it made: every later command (and MCP server)
 * of this bunker is refused with it, until the person has looked and started bunker again.
 */
let doubt: string | null = null;

/** The walk after a process could not check everything it may have made: fail closed from now on (doubt). */
export { distrust as refuseFurther };
function distrust(roots: readonly string[], why: string): string {
  doubt = `bunker runs no more commands in this session: ${why}. Before running git in ${roots.map((r) => shellQuote(r)).join(", ")} or opening it in an editor, look at what the earlier command made (find ${shellQuote(roots[0]!)} -newer FILE, with a FILE older than the command); then start bunker again.`;
  return `${why}; bunker refuses further commands in this session, so nothing more is built on it. Before running git there or opening it in an editor, look at what the command made, then start bunker again.`;
}

/** For tests: forget a doubt (a new bunker starts without one). */
export function forgetDoubt(): void {
  doubt = null;
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
      return [distrust(roots, `bunker could not finish ${what} (${e instanceof Error ? e.message : String(e)})`)];
    }
  };
  let after: WorkspaceScan | null = null;
  const walked = step("looking for what this command planted for git and the person's tools", () => {
    const lines: string[] = [];
    const walk = () => scanRoots(roots, before.later, undefined, before.dirs, { later: before.laterFiles, sites: before.sites });
    let scan = walk();
    // What the command hid from the walk (an unlistable folder, a name that is not UTF-8), undone, and walked again.
    for (let round = 0; ; round++) {
      const fixed = gapsAfter(roots, before.gaps, scan, (p) => before.later.match(p) !== null);
      lines.push(...fixed.lines);
      if (!fixed.rescan) break;
      scan = walk();
      if (round === GAP_ROUNDS) {
        lines.push(distrust(roots, `bunker stopped undoing what hid folders from its check after ${GAP_ROUNDS} rounds, so what the command made in them was not checked`));
        break;
      }
    }
    // Past the walk's bound: what it did not reach is the command's, set aside; anything else fails closed.
    if (scan.cut.length > 0) {
      const aside = setAsideUnwalked(roots, scan.unwalked, before.dirs);
      lines.push(...aside.lines);
      // (Not those the walk before did not reach either: they were read-only to the command whole.)
      const unchecked = aside.unchecked.filter((d) => !before.gaps.unwalked.some((u) => isWithin(u, d)));
      if (unchecked.length > 0) lines.push(distrust(roots, `bunker stopped checking at its bound of 200,000 folders, before ${unchecked.length.toLocaleString("en-US")} folder${unchecked.length === 1 ? "" : "s"} that were there before the command (${unchecked.slice(0, 3).map((d) => shellQuote(d)).join(", ")}), so what the command made in them was not checked`));
    }
    if (scan.unsettled?.length) lines.push(distrust(roots, unsettledSentence(roots, scan.unsettled, "so what the command made there may not have been checked")));
    after = scan;
    return lines;
  });
  if (!after) return walked;
  const found: WorkspaceScan = after;
  return [
    ...walked,
    ...step("disarming the git repositories this command made", () => disarmNewRepositories(roots, before.sites, found.sites, before, before.mountsMove === true)),
    ...step("checking the hard-linked files git obeys", () => recheckLinked(roots, before.linked, before.linkedConfigs)),
    ...step("setting aside the files this command made that run later", () => setAsideRunsLater(roots, before.laterFiles, found.later, (p) => before.later.match(p) ?? scanWhy(found, p, roots[0]!), before.dirs, found.linkedFrom)),
    ...step("setting aside the modules this command made where a hook's python looks first", () => setAsideFirstModules(roots, before.firstModules ?? new Map(), found.firstModules ?? new Map(), before.firstPortions, found.firstPortions)),
    ...step("undoing the command's changes to package.json's hook keys", () => restoreHookKeys(roots[0]!, before.hookKeys ?? new Map(), found.packageJsons ?? [])),
  ];
}
