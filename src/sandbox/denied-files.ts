// The files a deny-read rule covers, found on disk: what a deny glob
// (`**/*.pem`, `read:secrets/**`) matches in the trees a command sees, and
// every other name of those files (hard links: same device and inode). The
// sandbox masks each one (a glob cannot be mounted over, its matches can);
// the file tools refuse a hard link to a denied file. The walk is bounded: a
// rule that matches too much, or a tree too big to walk at each command,
// gives a refusal that says which rule to change instead of a partial mask.
//
// A mask covers a path, and a command may move what is under it (red team 9's
// F11: `mv secrets s2` with `read:secrets/**`: from the next command on,
// s2/prod.key matched nothing). So every file a rule has matched stays denied
// by identity for the session, wherever it moves (the walk masks it, the file
// tools refuse it), and the folders on the way down to what a rule names are
// pinned during a command (deniedPins: a mount point cannot be renamed).
import { lstatSync, readdirSync, type Stats } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { isWithin } from "../perms/workspace.ts";
import { readRemembered, writeRemembered } from "./denied-memory.ts";

export interface DenyRules {
  /** Absolute paths denied whole (--deny-read=PATHS): already masked by path; walked for their files' other names. */
  paths: string[];
  /** Absolute glob patterns (rules files, --deny-read with wildcards). */
  globs: string[];
}

export interface DeniedScan {
  /** What to mask: each glob match, and each hard link to a denied file (not those under a denied path). */
  masks: { path: string; dir: boolean }[];
  /** `dev:ino` of every denied file found. */
  inodes: Set<string>;
}

export interface ScanLimits {
  /** Most masks one command may get. */
  maxMatches: number;
  /** Most directory entries looked at. */
  maxEntries: number;
  /** Longest the walk may take. */
  budgetMs: number;
}

export const DEFAULT_LIMITS: ScanLimits = { maxMatches: 2000, maxEntries: 200_000, budgetMs: 2000 };

/** The walk gave up: `reason` says why and what to change. */
export interface ScanRefused {
  refused: string;
}

/** A file's identity: its device and inode (every hard link shares them), and its birth, so a reused inode is another file. */
const inodeKey = (st: Stats) => `${st.dev}:${st.ino}:${st.birthtimeMs}`;

/**
 * The identities of every file these rules have denied in this session, by rules object (the session's config holds
 * one), each with the rule that matched it: a denied file moved or renamed out of the rule's reach (`mv secrets s2`)
 * stays denied. With a memory file (rememberDeniedIn), what earlier sessions' rules matched too (denied-memory.ts).
 */
const everDenied = new WeakMap<DenyRules, { ids: Map<string, string>; file?: string; saved: number }>();
const memoryFiles = new WeakMap<DenyRules, string | (() => string)>();

/**
 * From now on, the files `rules` deny are remembered in `file` across sessions (set once, where the session starts).
 * `file` may be how to name it: named when first needed (hashing the workspace's path costs a turn with no deny rule 0.1 ms).
 */
export function rememberDeniedIn(rules: DenyRules, file: string | (() => string)): void {
  memoryFiles.set(rules, file);
}

function deniedState(rules: DenyRules): { ids: Map<string, string>; file?: string; saved: number } {
  let state = everDenied.get(rules);
  if (state) return state;
  const named = memoryFiles.get(rules);
  const file = typeof named === "function" ? named() : named;
  const current = new Set([...rules.globs, ...rules.paths]);
  // Only what a rule still in force matched: a rule the person dropped frees its files.
  const ids = new Map((file ? readRemembered(file) : []).filter(([rule]) => current.has(rule)).map(([rule, id]) => [id, rule] as const));
  everDenied.set(rules, (state = { ids, ...(file ? { file } : {}), saved: -1 }));
  return state;
}

function deniedSoFar(rules: DenyRules): Map<string, string> {
  return deniedState(rules).ids;
}

/** Remembers what this session's rules matched, when it grew (and once a session, so what is still there stays fresh). */
function saveDenied(rules: DenyRules): void {
  const state = deniedState(rules);
  if (!state.file || state.saved === state.ids.size) return;
  const now = Date.now();
  writeRemembered(state.file, [...state.ids].map(([id, rule]) => [rule, id, now]), now);
  state.saved = state.ids.size;
}

/** The most folders pinned above the wall's read-only files (runs-later files) in one sandbox (a command's, an MCP server's). */
export const MAX_WALL_PINS = 64;

/**
 * The folders to pin during a command, in the folders it may write (`writable`: the workspace, write grants): each
 * folder from below such a root down to a deny glob's fixed part (`secrets/**`: secrets) or a denied path's folder
 * (`config/prod.key`: config). A command that renamed one (`mv secrets s2`) would take what a rule names out of its
 * reach; a mount point cannot be renamed (`Device or resource busy`). Only real folders (never a link).
 */
export function deniedPins(rules: DenyRules, writable: readonly string[]): string[] {
  const pins = new Set<string>();
  const ends = [...rules.globs.map(globBase), ...rules.paths.map((p) => dirname(p))];
  for (const w of writable) {
    for (const end of ends) {
      if (end === w || !isWithin(w, end)) continue;
      // Down from the root, up to the first name that is not a real folder (a link, or nothing there yet: nothing in it to move).
      let d = w;
      for (const name of relative(w, end).split(sep)) {
        d = join(d, name);
        try {
          if (!lstatSync(d).isDirectory()) break;
        } catch {
          break;
        }
        pins.add(d);
      }
    }
  }
  return [...pins].sort();
}

/** The paths --allow-read and read: rules grant: each path, and a glob rule's fixed part (`/data/**` shows /data). */
export function grantedReadPaths(grants: { allow: { read: { paths: string[]; globs: string[] } } }): string[] {
  // A loop, not .map: a read-only headless turn calls none (jit.ts).
  const out = [...grants.allow.read.paths];
  for (const g of grants.allow.read.globs) out.push(globBase(g));
  return out;
}

/** A glob's fixed leading directories (`/w/secrets/**` → /w/secrets): nothing outside it can match. */
export function globBase(glob: string): string {
  const parts = glob.split(sep);
  const first = parts.findIndex((p) => /(^|[^\\])[*?[\]{}]/.test(p));
  return (first === -1 ? parts : parts.slice(0, first)).join(sep).replace(/\\(.)/g, "$1") || sep;
}

/**
 * Where to walk: each tree (the workspace, granted paths, toolchains) cut to
 * where some glob can match, and the `always` trees whole (the workspace:
 * where a hard link to a denied file would be made). A system directory is
 * walked only where a glob names a path inside it (a glob on `/` does not
 * walk /usr).
 */
function walkRoots(rules: DenyRules, trees: string[], system: string[], always: string[]): string[] {
  const roots = new Set<string>(always);
  for (const g of rules.globs) {
    const base = globBase(g);
    for (const t of trees) {
      if (isWithin(t, base)) roots.add(base);
      else if (isWithin(base, t)) roots.add(t);
    }
    for (const s of system) if (isWithin(s, base)) roots.add(base);
  }
  for (const p of rules.paths) for (const t of always) if (isWithin(t, p)) roots.add(p);
  const list = [...roots];
  return list.filter((r) => !list.some((o) => o !== r && isWithin(o, r)));
}

/**
 * Walks `trees` for what `rules` deny, and for every file they denied before
 * in this session under whatever name it has now. Symbolic links are neither
 * followed nor masked (a link shows only what its target's own mount shows).
 */
export function scanDenied(
  rules: DenyRules,
  trees: string[],
  opts: { system?: string[]; always?: string[]; limits?: ScanLimits } = {},
): DeniedScan | ScanRefused {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const globs = rules.globs.map((g) => ({ rule: g, glob: new Bun.Glob(g) }));
  // The rule that denies `p` itself (a glob it matches, or it is a denied path), or null.
  const ruleOf = (p: string): string | null => globs.find((g) => g.glob.match(p))?.rule ?? (rules.paths.includes(p) ? p : null);
  const masks: DeniedScan["masks"] = [];
  const inodes = deniedSoFar(rules);
  // Files with more than one name that no rule covers: masked after the walk if another name is denied.
  const linked: { path: string; key: string }[] = [];
  const started = performance.now();
  let entries = 0;
  const tooMuch = (what: string) => ({
    refused:
      `the deny-read rules (${[...rules.globs, ...rules.paths].join(", ")}) ${what}, so bunker cannot hide every file they cover from this command. ` +
      "Narrow the glob (name the folder it is in, like secrets/** instead of **/secrets/**), or deny the folder as a path (--deny-read=PATH, masked whole), or run the command with the file tools.",
  });
  // Each directory with the rule that already covers it, if any (under a match or a denied path: its files' inodes are denied, not masked again).
  const stack: { dir: string; covered: string | null }[] = walkRoots(rules, trees, opts.system ?? [], opts.always ?? []).map((dir) => ({
    dir,
    covered: rules.paths.find((p) => isWithin(p, dir)) ?? ruleOf(dir),
  }));
  while (stack.length > 0) {
    const { dir, covered } = stack.pop()!;
    let names;
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable or gone: the command cannot read it through bunker's eyes either
    }
    for (const d of names) {
      if (++entries > limits.maxEntries) return tooMuch(`would need a walk of more than ${limits.maxEntries} entries`);
      if ((entries & 1023) === 0 && performance.now() - started > limits.budgetMs) return tooMuch(`took longer than ${limits.budgetMs} ms to match`);
      if (d.isSymbolicLink()) continue;
      const path = join(dir, d.name);
      const match = covered === null ? ruleOf(path) : null;
      if (match !== null && !rules.paths.includes(path)) {
        masks.push({ path, dir: d.isDirectory() });
        if (masks.length > limits.maxMatches) return tooMuch(`match more than ${limits.maxMatches} files`);
      }
      if (d.isDirectory()) {
        stack.push({ dir: path, covered: covered ?? match });
        continue;
      }
      if (!d.isFile()) continue;
      let st;
      try {
        st = lstatSync(path);
      } catch {
        continue;
      }
      const by = covered ?? match;
      if (by !== null) inodes.set(inodeKey(st), by);
      else if (st.nlink > 1 || inodes.has(inodeKey(st))) linked.push({ path, key: inodeKey(st) });
    }
  }
  for (const l of linked) {
    if (!inodes.has(l.key)) continue;
    masks.push({ path: l.path, dir: false });
    if (masks.length > limits.maxMatches) return tooMuch(`match more than ${limits.maxMatches} files`);
  }
  saveDenied(rules);
  return { masks, inodes: new Set(inodes.keys()) };
}

/**
 * A check for the file tools: whether `path` is a file the rules denied under
 * another name: a hard link, or a denied file moved out of the rules' reach.
 * The denied files are found once, on the first file with more than one name;
 * when they cannot all be found (the walk is too big), every such file is
 * refused.
 */
export function hardLinkCheck(rules: DenyRules, trees: string[]): (path: string) => string | null {
  if (rules.globs.length === 0 && rules.paths.length === 0) return () => null;
  let scan: DeniedScan | ScanRefused | undefined;
  return (path) => {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return null;
    }
    if (!st.isFile()) return null;
    const shown = trees[0] && isWithin(trees[0], path) ? relative(trees[0], path) : path;
    if (st.nlink < 2) return deniedSoFar(rules).has(inodeKey(st)) ? `${shown} is a file the deny-read rules deny, moved or renamed out of their reach` : null;
    scan ??= scanDenied(rules, trees, { always: trees });
    if ("refused" in scan) return `${shown} has other names (hard links) and bunker could not check them against the deny-read rules: ${scan.refused}`;
    return deniedSoFar(rules).has(inodeKey(st)) ? `${shown} is another name (a hard link) of a file the deny-read rules deny` : null;
  };
}
