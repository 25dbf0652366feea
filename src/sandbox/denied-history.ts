// A deny-read rule over a file git holds (red team 11's F04). The sandbox
// masks the file in the working tree, but git's object store has the same
// bytes whenever the file is or was committed, staged or stashed (a .env
// committed once, then untracked: the usual accident), and `git show
// HEAD~1:config/secrets.env` or `git log -p` reads them, judged read-only and
// run unasked. The object store is the channel, so it is what is hidden: when
// git (on the host, hardened as git-history.ts runs it) finds a denied path in
// the index or anywhere in history (every ref, every reflog entry: stashes,
// amended and reset-away commits), or the denied file's bytes as they are
// now in its object store with nothing holding them (`git add` undone, a
// stash dropped: `git fsck --unreachable` names the blob), that repository's
// objects are hidden from commands and MCP servers, and the person is told why.
//
// Asked only when a deny-read rule exists, and not at start (reviewer's
// R11-10: a walk of 300,000 commits held up every start, then timed out):
// before the first command (or MCP server), and again when the refs or the
// index moved; in a REPL it starts in the background while the person types.
// The answer is kept in bunker's state folder (hidden from every command) with
// the commits the walk started from: the next look walks only the commits
// added since (`--not` those), and none when no ref moved, so a long history
// is walked once. While a walk runs, and when one cannot finish (its limit,
// or git fails), the repository's objects are hidden: closed, never open. Not
// "visible but for the denied blobs": a blob lives in a pack with every other
// object, and the sandbox hides files, not objects; and until the walk has
// reached the oldest commit, nothing says which blobs those are. It is said
// to the person and, when git fails in a command, to the model.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { emptyPathRules, type PathRules } from "../perms/policy.ts";
import { isWithin } from "../perms/workspace.ts";
import { shellQuote } from "../shell/quote.ts";
import { globBase } from "./denied-files.ts";
import { readRegularSync } from "../fs/file-kind.ts";
import { realpathLoose } from "../perms/workspace.ts";
import { hostGitAsync } from "./git-history.ts";
import { indexStamp, refsStamp } from "./git-stamps.ts";
import { enclosingGitDirs, linkedGitDirs } from "./spec.ts";
import { gitDirsOfFolder } from "./repo-configs.ts";
import { incompleteLine, onWalk, upTo } from "./bounded.ts";
import { findGitSites } from "./git-guard.ts";
import { noteHidden, serversMaySee } from "./hidden-objects.ts";

/** A repository whose history commands could read: its git directory, the folder its paths are relative to, its object stores. */
export interface Repository {
  gitDir: string;
  top: string;
  objects: string[];
  /** Past the bound of repositories walked (bounded.ts): not walked, its objects hidden as "unknown". */
  unwalked?: true;
}

export interface HiddenHistory {
  /** Object stores to hide from commands and MCP servers. */
  objects: string[];
  /** What the person is told at start (one line per repository). */
  lines: string[];
}

/**
 * The repositories a command sees history of: the workspace's own (a .git folder, or the one a .git file names)
 * and the one it is a folder of. Each with its object stores (the common directory's `objects`, and the
 * alternates it borrows from).
 */
export function repositoriesSeen(root: string, home: string, deny?: PathRules, maxSubmodules = MAX_SUBMODULES, nested = true): Repository[] {
  const out: Repository[] = [];
  const add = (gitDirs: string[], top: string) => {
    // Not a repository git would read (an empty .git folder left behind): no history to hide.
    if (gitDirs.length === 0 || !isGitDir(gitDirs[0]!)) return;
    const real = realpathLoose(gitDirs[0]!).real;
    if (out.some((r) => realpathLoose(r.gitDir).real === real)) return;
    const common = gitDirs[gitDirs.length - 1]!;
    const objects = join(common, "objects");
    // Git LFS's and git-annex's stores hold tracked files' bytes outside the object store, named by hash (red team 12's F16).
    const beside = ["lfs", "annex"].map((d) => join(common, d)).filter((d) => existsSync(d));
    out.push({ gitDir: gitDirs[0]!, top, objects: [objects, ...alternates(objects), ...beside] });
  };
  const own = linkedGitDirs(root);
  add(own.length > 0 ? own : [join(root, ".git")], root);
  // The repository the workspace is a folder of: its top is the folder above that holds its .git.
  const enclosing = enclosingGitDirs(root, home);
  let top = dirname(root);
  while (enclosing.length > 0 && !existsSync(join(top, ".git")) && dirname(top) !== top) top = dirname(top);
  add(enclosing, top);
  // Repositories inside the workspace that could hold a denied path (red team 12's F12: `git -C sub log -p` read a
  // nested clone's or a submodule's history): each folder between a rule's fixed part and the workspace that is a
  // repository's work tree, and each submodule .gitmodules names.
  if (deny) {
    // Every repository inside the workspace, at any depth, is one a command can read the history of (red team 12's
    // F12: `git -C sub log -p` read a nested clone's history, and a `**/.env` rule has no fixed folder to look under):
    // each found as the git wall finds them (a .git folder or file, a bare-shaped folder; the walk is the wall's,
    // cached by folder), work trees first, so a repository's paths are read against its work tree; then each submodule
    // .gitmodules names (its work tree may not be checked out).
    const sites = nested ? findGitSites(root).filter((s) => s.kind !== "link") : [];
    const sorted = (paths: string[]) => [...new Set(paths)].sort();
    const trees = sorted(sites.filter((s) => s.kind !== "bare").map((s) => dirname(s.path)));
    const bare = sorted(sites.filter((s) => s.kind === "bare").map((s) => s.path));
    const submodules = new Set(submodulePaths(root));
    const before = out.length;
    for (const top of [...trees, ...sorted([...submodules])]) add(gitDirsOfFolder(top), top);
    for (const top of bare) add([top], top);
    // Past the bound the rest are hidden unwalked, never shown unchecked (reviewer's R12-13 pattern: 1,000 lines of
    // padding in .gitmodules had put a real submodule past the look, its history shown).
    onWalk(upTo(out.slice(before), maxSubmodules), () => undefined, (walked) => {
      for (const r of out.slice(before)) if (!walked.includes(r)) r.unwalked = true;
    });
  }
  return out;
}

/** Most submodules' histories walked (those past it are hidden unwalked). */
const MAX_SUBMODULES = 1_000;

/** The work trees of the submodules the workspace's .gitmodules names (`path = X`), inside it. */
function submodulePaths(root: string): string[] {
  let text: string;
  try {
    const got = readRegularSync(join(root, ".gitmodules"), ".gitmodules", { max: 1024 * 1024 });
    if (!got) return [];
    text = got.bytes.toString("utf8");
  } catch {
    return [];
  }
  return [...text.matchAll(/^\s*path\s*=\s*(.+?)\s*$/gm)].map((m) => resolve(root, m[1]!)).filter((p) => p !== root && isWithin(root, p));
}

function isGitDir(p: string): boolean {
  try {
    return readFileSync(join(p, "HEAD"), "utf8").length > 0;
  } catch {
    return false;
  }
}

/** The object stores `objects/info/alternates` names (each line a path, relative to `objects`). */
function alternates(objects: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(objects, "info", "alternates"), "utf8");
  } catch {
    return [];
  }
  return text.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#")).map((l) => (isAbsolute(l) ? l : resolve(objects, l)));
}

/**
 * git's pathspecs for the rules inside `top` (`:(top,literal)config/secrets.env`, `:(top,glob)config/**`), or null when
 * one cannot be said that way (a glob with braces, or whose fixed part lies above the repository): then every path
 * history holds is matched here instead.
 */
export function pathspecs(deny: PathRules, top: string): string[] | null {
  const out: string[] = [];
  for (const p of deny.paths) {
    if (isWithin(p, top)) return [":/"];
    if (isWithin(top, p)) out.push(`:(top,literal)${relative(top, p)}`);
  }
  for (const g of deny.globs) {
    const base = globBase(g);
    if (!isWithin(top, base) && !isWithin(base, top)) continue;
    const rest = g.startsWith(`${top}/`) ? g.slice(top.length + 1) : null;
    if (rest === null || /(^|[^\\])[{}]/.test(rest)) return null;
    // `DIR/**` is the folder whole: a literal pathspec, which git prunes the walk by (a glob it matches path by path).
    const folder = rest.endsWith("/**") ? rest.slice(0, -3) : null;
    out.push(folder !== null && !/(^|[^\\])[*?[\]]/.test(folder) ? `:(top,literal)${folder.replace(/\\(.)/g, "$1")}` : `:(top,glob)${rest}`);
  }
  return out;
}

/** Whether a path git names (relative to `top`) is one the rules deny. */
function denied(deny: PathRules, top: string): (rel: string) => boolean {
  const globs = deny.globs.map((g) => new Bun.Glob(g));
  return (rel) => {
    const abs = join(top, rel);
    return deny.paths.some((p) => isWithin(p, abs)) || globs.some((g) => g.match(abs));
  };
}

export type Held = { path: string; where: "index" | "history" | "store" | "kept" } | "unknown" | "timeout" | null;

/**
 * How long bunker waits for a walk before a command (once per state of the refs), before MCP servers start (an answer
 * kept, or a walk of the commits added since, takes milliseconds: a first walk of a long history is not waited for
 * there, the servers start without the objects), and how long a walk may take.
 */
const WAIT_MS = 10_000;
export const MCP_WAIT_MS = 2_000;
/** A wait longer than this is said while it lasts. */
const SAY_WAIT_MS = 1_000;
const LIMIT_MS = 10 * 60_000;
const QUICK_MS = 10_000;
/** More start points than this (refs and reflog entries) are walked, but not kept. */
const MAX_TIPS = 200_000;

const envMs = (name: string, fallback: number) => {
  const n = Number(process.env[name]);
  return process.env[name] !== undefined && Number.isFinite(n) && n >= 0 ? n : fallback;
};

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
/** Most blob ids of denied paths remembered (a secret has few versions; more are walked, the first ones kept). */
const MAX_BLOBS = 10_000;
/**
 * The version of what a walk looks at: 2 walks the commits in the store that no ref or reflog entry holds and the trees
 * refs point at (security N2's leftovers); an answer kept by an earlier version is walked again once.
 */
const WALK_VERSION = 2;
/**
 * The sessions' blob maps that reached MAX_BLOBS with more left out: their store check is incomplete (bounded.ts), so
 * it can never answer "none of them is stored" (a command that padded history with 10,000 versions of the denied
 * path, then re-pointed the refs and removed its own objects, had the real one forgotten and the store shown).
 */
const overflowed = new WeakSet<Map<string, string>>();
function remember(blobs: Map<string, string>, id: string, path: string, max: number): void {
  if (blobs.has(id)) return;
  if (blobs.size < max) blobs.set(id, path);
  else overflowed.add(blobs);
}
/** Most lines of a shallow file checked (a clone's has one per branch it cut). */
const MAX_SHALLOW = 10_000;

/** What the last walk of a repository found, for the rules it was asked about, and the commits it started from. */
interface Walked {
  /** WALK_VERSION when kept; an answer kept by an earlier walk (which did not look at the commits no ref holds) is walked again. */
  v?: number;
  tips: string[];
  held: string | null;
  /** The blob ids the denied paths had wherever the walk found them (R12-10: looked for in the store at every later look). */
  blobs?: string[];
}

function readWalked(file: string | null): Walked | null {
  if (!file) return null;
  try {
    const got = readRegularSync(file, file, { max: 64 * 1024 * 1024 });
    if (!got) return null;
    const w = JSON.parse(got.bytes.toString("utf8")) as Walked;
    if (w.blobs !== undefined && !(Array.isArray(w.blobs) && w.blobs.every((b) => typeof b === "string" && OBJECT_ID.test(b)))) return null;
    return Array.isArray(w.tips) && w.tips.every((t) => typeof t === "string") && (w.held === null || typeof w.held === "string") ? w : null;
  } catch {
    return null;
  }
}

function writeWalked(file: string | null, w: Walked): void {
  if (!file || w.tips.length > MAX_TIPS) return;
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(tmp, JSON.stringify({ ...w, v: WALK_VERSION }), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // A state folder that cannot be written: the next session walks again.
    rmSync(tmp, { force: true });
  }
}

/** Where the answer for `repo` and these rules is kept in the state folder. */
export function walkedFile(stateDir: string, repo: Repository, deny: PathRules): string {
  const key = JSON.stringify([realpathLoose(repo.gitDir).real, repo.top, [...deny.paths].sort(), [...deny.globs].sort()]);
  return join(stateDir, "git-history", `${new Bun.CryptoHasher("sha256").update(key).digest("hex").slice(0, 32)}.json`);
}

/**
 * The denied files' bytes as they are, in the object store with nothing holding them: staged once and unstaged, a
 * stash dropped (`git fsck --unreachable` names the blob, `git cat-file` prints it). Asked at every look after the
 * walk found nothing: it is cheap (a list of the untracked files the rules cover, their hashes, one question to git).
 */
async function inStore(repo: Repository, deny: PathRules, specs: string[] | null, match: (rel: string) => boolean, git: (args: string[], stdin?: string, timeoutMs?: number) => Promise<string | "timeout" | null>, names: (out: string) => string[], limitMs: number): Promise<Held> {
  // A walk of the working tree (ignored folders too: node_modules under a ** rule): the walk's time, not a quick question's.
  const untracked = await git(["ls-files", "-z", "--others", "--", ...(specs ?? baseSpecs(deny, repo.top))], undefined, Math.max(QUICK_MS, limitMs));
  if (untracked === null || untracked === "timeout") return untracked === null ? "unknown" : "timeout";
  // Past the bound, not "nothing there" (a command can make files a rule covers, sorted before the person's: bounded.ts).
  const walk = upTo(names(untracked).filter(match), MAX_HASHED);
  if (!walk.complete) return "unknown";
  const files = walk.items;
  if (files.length === 0) return null;
  const ids = files.map((f) => blobIds(join(repo.top, f)));
  const known = await git(["cat-file", "--batch-check=%(objectname)"], ids.flat().map((id) => `${id}\n`).join(""));
  if (known === null || known === "timeout") return known === null ? "unknown" : "timeout";
  const present = new Set(known.split("\n").filter((l) => /^[0-9a-f]+$/.test(l)));
  const found = files.find((_, i) => ids[i]!.some((id) => present.has(id)));
  return found === undefined ? null : { path: found, where: "store" };
}

/**
 * Where git holds a denied path: its first name, and whether in the index or in history (a commit, stash or reflog
 * entry); "unknown" when git cannot say, "timeout" when the walk ran past `limitMs`. With `keep`, the answer for the
 * history is read from and kept in that file (walkedFile), with the commits the walk started from.
 */
export async function heldByGit(repo: Repository, deny: PathRules, opts: { keep?: string | null; limitMs?: number; signal?: AbortSignal; blobs?: Map<string, string>; maxBlobs?: number; content?: ReadonlyMap<string, string> } = {}): Promise<Held> {
  const specs = pathspecs(deny, repo.top);
  if (repo.unwalked) return "unknown";
  const limitMs = opts.limitMs ?? envMs("BUNKER_GIT_HISTORY_LIMIT_MS", LIMIT_MS);
  // The walk has `limitMs`; the index and the list of refs, each a file read, the ten seconds any question of bunker's has.
  const git = (args: string[], stdin?: string, timeoutMs = QUICK_MS) => hostGitAsync(repo.gitDir, args, { worktree: repo.top, timeoutMs, ...(stdin === undefined ? {} : { stdin }), ...(opts.signal ? { signal: opts.signal } : {}) });
  if (specs !== null && specs.length === 0) {
    // No rule names a path in it: only the denied contents found elsewhere are looked for (one question to git).
    if (!opts.content || opts.content.size === 0) return null;
    const s = await stillStored(opts.content, git);
    if (s === "unknown" || s === "timeout") return s;
    return s === null ? null : { path: opts.content.get(s) ?? s, where: "kept" };
  }
  const names = (out: string) => out.split("\0").map((n) => n.replace(/^\n+/, "")).filter((n) => n !== "");
  const match = specs === null ? denied(deny, repo.top) : () => true;
  // The denied paths' blobs seen so far (this session's looks, and the kept answer's): an object is what a command reads,
  // reachable or not, so while one is in the store the answer stays "held" (R12-10: refs re-pointed, reflogs trimmed,
  // .git/shallow written, and a walk that no longer reaches the commit must not open the store).
  const blobs = opts.blobs ?? new Map<string, string>();
  const maxBlobs = opts.maxBlobs ?? MAX_BLOBS;
  const keptAny = readWalked(opts.keep ?? null);
  for (const b of keptAny?.blobs ?? []) remember(blobs, b, keptAny?.held ?? b, maxBlobs);
  // A kept answer written at the bound had more left out.
  if ((keptAny?.blobs?.length ?? 0) >= maxBlobs) overflowed.add(blobs);
  const kept = keptAny?.v === WALK_VERSION ? keptAny : null;
  const index = await git(["ls-files", "-z", "--cached", "-s", "--", ...(specs ?? [])]);
  if (index === null || index === "timeout") return index === null ? "unknown" : "timeout";
  // `mode id stage\tpath`
  const staged = names(index).map((l) => ({ id: l.split(" ")[1] ?? "", path: l.slice(l.indexOf("\t") + 1) })).filter((e) => match(e.path));
  for (const e of staged) if (OBJECT_ID.test(e.id)) remember(blobs, e.id, e.path, maxBlobs);
  if (staged.length > 0) return { path: staged[0]!.path, where: "index" };
  // A shallow file says which commits' parents git does not walk to: one a command wrote over commits whose parents
  // are in the store hides history from the walk (R12-10), so the walk's answer could not be trusted.
  const shallow = await shallowLies(repo, git);
  if (shallow !== null) return shallow;
  // Where the walk starts: every ref and every reflog entry (stash@{n}, HEAD@{n}); a ref to a tree or blob is no commit.
  const tipsOut = await git(["rev-list", "--no-walk=unsorted", "--all", "--reflog"]);
  if (tipsOut === null || tipsOut === "timeout") return tipsOut === null ? "unknown" : "timeout";
  // Refs straight at a tree, or at a tag of one (`git tag snap $(git write-tree)`): git shows the files in it, and no
  // commit walk reaches it. Kept among the tips as `tree:ID`, so a new one is a reason to look again.
  const refsOut = await git(["for-each-ref", "--format=%(objecttype) %(objectname) %(*objecttype) %(*objectname)"]);
  if (refsOut === null || refsOut === "timeout") return refsOut === null ? "unknown" : "timeout";
  const trees = [...new Set([...refsOut.matchAll(/^(?:tree ([0-9a-f]{40,64})|\S+ \S+ tree ([0-9a-f]{40,64}))\s*$/gm)].map((m) => (m[1] ?? m[2])!))];
  const tips = [...new Set(tipsOut.split("\n").filter((t) => /^[0-9a-f]{40,64}$/.test(t))), ...trees.map((t) => `tree:${t}`)];
  const before = new Set(kept?.tips ?? []);
  const now = new Set(tips);
  // With the denied files' contents found in the workspace's other repositories (`content`): a nested clone of the
  // workspace's repository holds the same bytes under a path no rule names (red team 12's F12).
  const seen = async (): Promise<Held> => {
    const all = opts.content && opts.content.size > 0 ? new Map([...opts.content, ...blobs]) : blobs;
    const s = await stillStored(all, git);
    if (s === "unknown" || s === "timeout") return s;
    // None of those remembered is stored, but not all were remembered: not "nothing there".
    if (s === null && overflowed.has(blobs)) return "unknown";
    return s === null ? null : { path: all.get(s) ?? s, where: "kept" };
  };
  const stored = async (): Promise<Held> => (await seen()) ?? inStore(repo, deny, specs, match, git, names, limitMs);
  // Walked from these same commits (or from more of them) and found nothing: nothing new to walk.
  if (kept && kept.held === null && tips.every((t) => before.has(t))) return stored();
  // Found, and every commit it was walked from is still a start: still found.
  if (kept && kept.held !== null && kept.tips.every((t) => now.has(t))) return { path: kept.held, where: "history" };
  // Every parent of a merge (a stash's untracked files are its third); only the commits the last clean walk had not reached.
  // --raw: each change's blob ids, kept for the store check above.
  const walk = ["log", "--all", "--reflog", "--full-history", "--no-renames", "--no-textconv", "--no-ext-diff", "--format=", "--raw", "--no-abbrev", "-z", "--diff-merges=first-parent"];
  const notAgain = kept && kept.held === null ? kept.tips.filter((t) => !t.startsWith("tree:")) : [];
  // A whole walk looks at every commit in the store too: one no ref or reflog entry holds any more (a branch deleted
  // and its reflog expired, not yet pruned) is read by `git fsck --unreachable` and `git show` all the same. Later
  // walks start from the refs that moved: a commit that stopped being held had been walked while it was.
  const everyCommit = async (): Promise<string[] | "unknown" | "timeout"> => {
    const out = await git(["cat-file", "--batch-all-objects", "--unordered", "--batch-check=%(objecttype) %(objectname)"], undefined, limitMs);
    if (out === null || out === "timeout") return out === null ? "unknown" : "timeout";
    return [...out.matchAll(/^commit ([0-9a-f]{40,64})$/gm)].map((m) => m[1]!);
  };
  const run = (args: string[], stdin: string[]) => git([...args, ...(stdin.length > 0 ? ["--stdin"] : []), ...(specs === null ? [] : ["--", ...specs])], stdin.length > 0 ? `${stdin.join("\n")}\n` : undefined, limitMs);
  let whole = notAgain.length === 0;
  let history = await run(walk, notAgain.map((t) => `^${t}`));
  // A commit of the last walk that is gone (pruned): the whole walk again.
  if (history === null && notAgain.length > 0) {
    whole = true;
    history = await run(walk, []);
  }
  if (history === null || history === "timeout") return history === null ? "unknown" : "timeout";
  // The first denied path a walk's output names (`:old-mode new-mode old-id new-id status` then the path, each ended
  // by NUL), its blob ids added to `blobs`.
  const denials = (out: string): string | undefined => {
    let first: string | undefined;
    const parts = names(out);
    for (let i = 0; i < parts.length; i++) {
      const meta = parts[i]!;
      if (!meta.startsWith(":")) continue;
      const path = parts[++i];
      if (path === undefined || !match(path)) continue;
      first ??= path;
      for (const id of meta.split(" ").slice(2, 4)) if (OBJECT_ID.test(id) && !/^0+$/.test(id)) remember(blobs, id, path, maxBlobs);
    }
    return first;
  };
  // The trees refs point at, listed whole: a denied path in one is held as in a commit.
  const inTree = denied(deny, repo.top);
  for (const tree of trees) {
    const listed = await git(["ls-tree", "-r", "-z", "--full-tree", tree], undefined, limitMs);
    if (listed === null || listed === "timeout") return listed === null ? "unknown" : "timeout";
    for (const entry of names(listed)) {
      const path = entry.slice(entry.indexOf("\t") + 1);
      if (!inTree(path)) continue;
      const id = entry.split(" ")[2]?.split("\t")[0] ?? "";
      if (OBJECT_ID.test(id)) remember(blobs, id, path, maxBlobs);
      writeWalked(opts.keep ?? null, { tips, held: path, blobs: [...blobs.keys()] });
      return { path, where: "history" };
    }
  }
  const committed = denials(history);
  // A whole walk found nothing: the commits in the store no ref or reflog entry reaches (those from every commit, not
  // from the starts). Found there, it is an old version in the store: its blobs kept, said as such ("kept").
  if (committed === undefined && whole) {
    const all = await everyCommit();
    if (all === "unknown" || all === "timeout") return all;
    const commits = tips.filter((t) => !t.startsWith("tree:"));
    const unreached = all.length === 0 ? "" : await run(walk.filter((a) => a !== "--all" && a !== "--reflog"), [...all, ...commits.map((t) => `^${t}`)]);
    if (unreached === null || unreached === "timeout") return unreached === null ? "unknown" : "timeout";
    denials(unreached);
  }
  writeWalked(opts.keep ?? null, { tips, held: committed ?? null, blobs: [...blobs.keys()] });
  return committed === undefined ? stored() : { path: committed, where: "history" };
}

/** Which of `blobs` the store still has (the first one's id), null when none, or why git could not say. */
async function stillStored(blobs: ReadonlyMap<string, string> | ReadonlySet<string>, git: (args: string[], stdin?: string) => Promise<string | "timeout" | null>): Promise<string | null | "unknown" | "timeout"> {
  if (blobs.size === 0) return null;
  const out = await git(["cat-file", "--batch-check=%(objectname)"], [...blobs.keys()].map((b) => `${b}\n`).join(""));
  if (out === null || out === "timeout") return out === null ? "unknown" : "timeout";
  return out.split("\n").find((l) => OBJECT_ID.test(l)) ?? null;
}

/**
 * "unknown" when the repository's shallow file names a commit whose parent is in the store (git would stop its walk
 * there: a file a command wrote, not a clone's, whose cut commits' parents were never fetched), or is too long to check.
 */
async function shallowLies(repo: Repository, git: (args: string[], stdin?: string) => Promise<string | "timeout" | null>): Promise<Held> {
  const file = join(dirname(repo.objects[0]!), "shallow");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return existsSync(file) ? "unknown" : null;
  }
  const cut = [...new Set(text.split("\n").map((l) => l.trim()).filter((l) => l !== ""))];
  if (cut.length === 0) return null;
  if (cut.length > MAX_SHALLOW || cut.some((c) => !OBJECT_ID.test(c))) return "unknown";
  // The cut commits as stored (cat-file reads the object, not what the shallow file says of it): their parent lines.
  const commits = await git(["cat-file", "--batch"], cut.map((c) => `${c}\n`).join(""));
  if (commits === null || commits === "timeout") return commits === null ? "unknown" : "timeout";
  const parents = [...new Set([...commits.matchAll(/^parent ([0-9a-f]{40,64})$/gm)].map((m) => m[1]!))];
  const present = await stillStored(new Set(parents), git);
  return present === null ? null : "unknown";
}

function duration(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} minutes` : ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

/** Most denied files whose bytes are looked for in the object store. */
const MAX_HASHED = 2_000;
/** Past this size a file's bytes are not looked for (a secret is small). */
const MAX_HASHED_BYTES = 64 * 1024 * 1024;

/** Literal pathspecs for the fixed parts of the rules' globs inside `top`: what ls-files walks when the globs cannot be said to git. */
function baseSpecs(deny: PathRules, top: string): string[] {
  const bases = [...deny.paths, ...deny.globs.map(globBase)].filter((b) => isWithin(top, b) || isWithin(b, top));
  return bases.some((b) => isWithin(b, top)) ? [":/"] : bases.map((b) => `:(top,literal)${relative(top, b)}`);
}

/**
 * The blob ids a file's bytes are stored under: as they are, and with CRLF made LF (git add's under core.autocrlf),
 * in both hashes (a repository's objects are SHA-1 or SHA-256); none when it cannot be read.
 */
function blobIds(path: string): string[] {
  let bytes: Buffer;
  try {
    const got = readRegularSync(path, path, { max: MAX_HASHED_BYTES });
    if (!got) return [];
    bytes = got.bytes;
  } catch {
    return [];
  }
  const forms = [bytes];
  if (bytes.includes("\r\n")) forms.push(Buffer.from(bytes.toString("latin1").replaceAll("\r\n", "\n"), "latin1"));
  return forms.flatMap((b) => (["sha1", "sha256"] as const).map((h) => new Bun.CryptoHasher(h).update(`blob ${b.length}\0`).update(b).digest("hex")));
}

/** The blob ids of the files deny-read rules name by path inside the workspace, as they are now (→ their path from the root). */
function deniedContent(root: string, deny: PathRules): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of deny.paths.slice(0, MAX_HASHED)) if (isWithin(root, p)) for (const id of blobIds(p)) out.set(id, relative(root, p));
  return out;
}

/** Adds a repository's denied blobs to `content` (by their path from the workspace root), up to MAX_BLOBS. */
function shareContent(content: Map<string, string>, root: string, repo: Repository, blobs: ReadonlyMap<string, string>): void {
  for (const [id, p] of blobs) if (content.size < MAX_BLOBS && !content.has(id)) content.set(id, relative(root, join(repo.top, p)) || p);
}

function whereShown(root: string, repo: Repository): string {
  const rel = relative(root, repo.top);
  return rel === "" ? "this repository" : `the repository at ${shellQuote(rel)}`;
}

/** What the person is told of a repository whose objects are hidden, or that it has no denied file after all. */
function heldLine(root: string, repo: Repository, held: Exclude<Held, null> | "walking" | "clean", limitMs: number): string {
  const where = whereShown(root, repo);
  if (held === "walking") return `bunker is checking the git history of ${where} for files your deny-read rules cover (a long history is walked once: the answer is kept for later sessions). Until it has, commands do not see its objects (nor, this session, MCP servers started before then), so git show, log and diff fail in them; bunker says when it has finished.`;
  if (held === "clean") return `bunker has checked the git history of ${where}: no file your deny-read rules cover is in it, so commands see its objects again.`;
  if (held === "timeout") return `bunker could not finish checking the git history of ${where} for files your deny-read rules cover within ${duration(limitMs)}, so commands and MCP servers do not see its objects this session: git cannot read its commits in them. Run git yourself there; a later session walks it again.`;
  if (held === "unknown" && repo.unwalked) return `${incompleteLine("submodules (.gitmodules)", MAX_SUBMODULES, `the history of ${where} is not checked for files your deny-read rules cover, so commands and MCP servers do not see its objects this session: git cannot read its commits in them. Run git yourself there`)}.`;
  if (held === "unknown") return `bunker could not ask git whether ${where} holds a file your deny-read rules cover, so commands and MCP servers do not see its objects this session: git cannot read its commits in them. Run git yourself there.`;
  if (held.where === "kept") return `a version of ${shellQuote(held.path)} that git held (in history, the index or a stash) is still in the git object store of ${where}, reachable or not, and a deny-read rule covers it: commands and MCP servers do not see its objects this session (git show, log, diff and status fail in them). Run git yourself; to give commands git back, remove it from history and drop what nothing holds (git reflog expire --expire-unreachable=now --all && git gc --prune=now), or drop the rule.`;
  if (held.where === "store") return `${shellQuote(held.path)} as it is now is in the git object store of ${where} (staged once and unstaged, or in a dropped stash: git fsck --unreachable lists it), and a deny-read rule covers it: the mask on the file cannot hide what git keeps, so commands and MCP servers do not see its objects (git show, log, diff and status fail in them). Run git yourself; to give commands git back, drop what nothing holds (git reflog expire --expire-unreachable=now --all && git gc --prune=now) or drop the rule.`;
  return `${shellQuote(held.path)} is ${held.where === "index" ? "in the git index" : "in git history (a commit, a stash or a reflog entry)"} of ${where}, and a deny-read rule covers it: the mask on the file cannot hide what git keeps, so commands and MCP servers do not see its objects this session (git show, log, diff and status fail in them). Run git yourself; to give commands git back, remove the file from history (git filter-repo --invert-paths --path ${shellQuote(held.path)}, and drop the stash or reflog entries that hold it) or drop the rule.`;
}

/** What to hide, and what to say, for the repositories `root` shows commands: every walk waited for to the end. */
export async function hiddenHistory(root: string, deny: PathRules, home: string, opts: { stateDir?: string; limitMs?: number } = {}): Promise<HiddenHistory> {
  const out: HiddenHistory = { objects: [], lines: [] };
  if (deny.paths.length === 0 && deny.globs.length === 0) return out;
  const limitMs = opts.limitMs ?? envMs("BUNKER_GIT_HISTORY_LIMIT_MS", LIMIT_MS);
  const content = deniedContent(root, deny);
  for (const repo of repositoriesSeen(root, home, deny)) {
    const blobs = new Map<string, string>();
    const held = await heldByGit(repo, deny, { keep: opts.stateDir ? walkedFile(opts.stateDir, repo, deny) : null, limitMs, blobs, content: new Map(content) });
    shareContent(content, root, repo, blobs);
    if (held === null) continue;
    out.objects.push(...repo.objects);
    out.lines.push(heldLine(root, repo, held, limitMs));
  }
  return out;
}

export interface HistoryCheckOptions {
  root: string;
  deny: PathRules;
  home: string;
  /** bunker's state folder: where walks' answers are kept (none: not kept). */
  stateDir?: string;
}

/** One repository's look: the state of its refs and index it stands for, and its answer once there. */
interface Look {
  key: string | null;
  answer: Held | undefined;
  done: Promise<Held>;
  waited: boolean;
}

/**
 * The session's look at the repositories a command sees: started at most once for each state of their refs and index
 * (git-stamps.ts's digests; no digest, a look each time), in the background, each command waiting a bounded time for it.
 */
export class HistoryCheck {
  private repos: Repository[];
  /** Whether the repositories inside the workspace were looked for (a walk of its folders: at the first command, not at start). */
  private nestedFound = false;
  private readonly looks = new Map<string, Look>();
  /** What the person was last told of each repository (a line is said once, and again only when it changes). */
  private readonly told = new Map<string, string>();
  private readonly limitMs = envMs("BUNKER_GIT_HISTORY_LIMIT_MS", LIMIT_MS);
  /** Each repository's denied blobs seen this session (R12-10: a later look may only add hiding while one is stored). */
  private readonly blobs = new Map<string, Map<string, string>>();
  /**
   * The denied files' contents found so far, in any repository's history or index, and as they are now (blob id → path
   * from the workspace root): looked for in every other repository's store (F12: a nested clone of the same content).
   */
  private readonly content = new Map<string, string>();

  constructor(private readonly opts: HistoryCheckOptions) {
    // At start only the workspace's own repository, the one it is in and the submodules (a REPL's prompt is not held
    // by a walk of every folder: 0.75 s for 52,000); the repositories inside it are found before the first command.
    this.repos = opts.deny.paths.length === 0 && opts.deny.globs.length === 0 ? [] : repositoriesSeen(opts.root, opts.home, opts.deny, MAX_SUBMODULES, false);
  }

  private outliving = false;

  /**
   * bunker exiting while a walk runs (a headless turn shorter than a long history's walk): the walk is done again by a
   * process of bunker's own that outlives it and keeps the answer, so the next session starts with it (reviewer's
   * R12-15: each `-p` waited, then ran with the objects hidden, and no answer was ever kept).
   */
  private outliveExit(): void {
    if (this.outliving || !this.opts.stateDir) return;
    this.outliving = true;
    process.once("exit", () => {
      for (const repo of this.repos) {
        const look = this.looks.get(repo.gitDir);
        if (!look || look.answer !== undefined) continue;
        walkAfterExit({ repo, deny: { paths: this.opts.deny.paths, globs: this.opts.deny.globs }, keep: walkedFile(this.opts.stateDir!, repo, this.opts.deny), limitMs: this.limitMs });
      }
    });
  }

  /** Starts the looks not yet started for the refs as they are now (a REPL's start: while the person types). */
  start(): void {
    for (const repo of this.repos) this.look(repo);
  }

  private look(repo: Repository): Look {
    // The workspace's own repository first: the others are looked at after it, for its denied contents too, and again
    // when more are known (`content`'s size in the key).
    const first = this.repos[0]!;
    const stamp = (() => {
      const r = refsStamp(repo.gitDir);
      const i = indexStamp(repo.gitDir);
      return r === null || i === null ? null : `${r}\0${i}${repo === first ? "" : `\0${this.content.size}`}`;
    })();
    const had = this.looks.get(repo.gitDir);
    if (had && had.key !== null && had.key === stamp) return had;
    // A walk still running for an earlier state goes on: this one waits for it (its answer is kept), then looks anew.
    const earlier = had && had.answer === undefined ? had.done.then(() => undefined, () => undefined) : Promise.resolve();
    const firstLook = repo === first ? undefined : this.looks.get(first.gitDir);
    const after = firstLook ? Promise.all([earlier, firstLook.done.then(() => undefined, () => undefined)]) : earlier;
    const keep = this.opts.stateDir ? walkedFile(this.opts.stateDir, repo, this.opts.deny) : null;
    const look: Look = { key: stamp, answer: undefined, waited: false, done: Promise.resolve(null) };
    const blobs = this.blobs.get(repo.gitDir) ?? new Map<string, string>();
    this.blobs.set(repo.gitDir, blobs);
    if (repo === first) for (const [id, p] of deniedContent(this.opts.root, this.opts.deny)) if (this.content.size < MAX_BLOBS) this.content.set(id, p);
    look.done = after
      .then(() => heldByGit(repo, this.opts.deny, { keep, limitMs: this.limitMs, blobs, content: new Map(this.content) }))
      .then((a) => (shareContent(this.content, this.opts.root, repo, blobs), a))
      .catch((): Held => "unknown");
    look.done.then((a) => (look.answer = a));
    this.looks.set(repo.gitDir, look);
    this.outliveExit();
    return look;
  }

  /**
   * Before a command (or MCP servers' start): the object stores to hide, whether a walk is still running, and what to
   * tell the person (through `tell`, each line once). Waits for a look started for this state at most WAIT_MS, once.
   */
  async forCommand(tell: (line: string) => void, signal?: AbortSignal, wait = WAIT_MS): Promise<{ objects: string[]; walking: boolean }> {
    if (!this.nestedFound && (this.opts.deny.paths.length > 0 || this.opts.deny.globs.length > 0)) {
      this.nestedFound = true;
      this.repos = repositoriesSeen(this.opts.root, this.opts.home, this.opts.deny);
    }
    const objects: string[] = [];
    let walking = false;
    const waitMs = Math.min(wait, envMs("BUNKER_GIT_HISTORY_WAIT_MS", WAIT_MS));
    for (const repo of this.repos) {
      const look = this.look(repo);
      if (look.answer === undefined && !look.waited) {
        look.waited = true;
        let timer: ReturnType<typeof setTimeout> | undefined;
        // A wait the person would notice is said while it lasts (the REPL is not held: Ctrl+C ends it).
        const saying = waitMs > SAY_WAIT_MS ? setTimeout(() => tell(`bunker is looking through the git history of ${whereShown(this.opts.root, repo)} for files your deny-read rules cover (once: the answer is kept), for up to ${duration(waitMs)}…`), SAY_WAIT_MS) : undefined;
        const aborted = new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true }));
        await Promise.race([look.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))), aborted]);
        clearTimeout(timer);
        clearTimeout(saying);
        // Let the answer's own continuation run.
        await Promise.resolve();
      }
      const answer = look.answer;
      const state = answer === undefined ? "walking" : answer === null ? "clean" : answer;
      if (answer !== null) objects.push(...repo.objects);
      if (answer === undefined) walking = true;
      // A server started before this look was made with the store shown: it keeps that view until restarted.
      const stale = answer !== null && serversMaySee(repo.objects) ? " MCP servers started before this was found still see them: /mcp restart NAME starts one with them hidden (or restart bunker)." : "";
      const line = heldLine(this.opts.root, repo, state, this.limitMs) + stale;
      const last = this.told.get(repo.gitDir);
      // "Nothing there" is said only after a look the person heard about; the rest once each.
      if (line !== last && (state !== "clean" || last !== undefined)) tell(line);
      this.told.set(repo.gitDir, line);
    }
    noteHidden(objects);
    return { objects, walking };
  }
}

/** What the walk that outlives bunker is given (argv of `bunker __history-walk`). */
interface AfterExit {
  repo: Repository;
  deny: { paths: string[]; globs: string[] };
  keep: string;
  limitMs: number;
}

/**
 * Where a walk that outlives bunker says it runs for the answer kept in `keep` (beside the answers, not among them):
 * one such walk at a time for a repository and its rules (reviewer's R12-27: six headless runs in a row left six
 * full walks running at once).
 */
export function walkLockFile(keep: string): string {
  return join(dirname(dirname(keep)), "git-history-walks", `${basename(keep, ".json")}.lock`);
}

/** Whether the walk named in `lock` may still be running: its process alive, and younger than its limit allows. */
function walkLive(lock: string, limitMs: number): boolean {
  try {
    const st = statSync(lock);
    // A walk is stopped at its limit: a lock older than that (and a minute) was left by a walk that died.
    if (Date.now() - st.mtimeMs > limitMs + 60_000) return false;
    const pid = Number(readFileSync(lock, "utf8").trim());
    // Not yet written (the spawn is under way): held.
    if (!Number.isInteger(pid) || pid <= 0) return Date.now() - st.mtimeMs < 10_000;
    try {
      process.kill(pid, 0);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === "EPERM";
    }
  } catch {
    return false;
  }
}

/** The lock for a walk after exit (its descriptor), or null while another live walk holds it or it cannot be made. */
function takeWalkLock(lock: string, limitMs: number): number | null {
  try {
    mkdirSync(dirname(lock), { recursive: true, mode: 0o700 });
  } catch {
    return null;
  }
  for (let tries = 0; tries < 2; tries++) {
    try {
      return openSync(lock, "wx", 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || walkLive(lock, limitMs)) return null;
      rmSync(lock, { force: true });
    }
  }
  return null;
}

/**
 * Starts `bunker __history-walk` in a session of its own (not ended with bunker's terminal), nothing read from it,
 * unless one is already running for the same answer (walkLockFile): that one keeps it.
 */
function walkAfterExit(spec: AfterExit): void {
  const main = Bun.main;
  // The compiled binary, or bun running the checkout's main.ts; never from a test runner or another embedding.
  const argv = import.meta.path.startsWith("/$bunfs/") ? [process.execPath] : main.endsWith("/src/main.ts") ? [process.execPath, main] : null;
  if (!argv) return;
  const lock = walkLockFile(spec.keep);
  const fd = takeWalkLock(lock, spec.limitMs);
  if (fd === null) return;
  try {
    const child = Bun.spawn([...argv, "__history-walk", JSON.stringify(spec)], { stdio: ["ignore", "ignore", "ignore"], detached: true });
    child.unref();
    writeSync(fd, String(child.pid));
  } catch {
    // Not started: the next session walks again.
    rmSync(lock, { force: true });
  } finally {
    closeSync(fd);
  }
}

/** `bunker __history-walk SPEC`: the walk, its answer kept in the state folder, nothing printed; then its lock let go. */
export async function runHistoryWalk(args: string[]): Promise<number> {
  let lock: string | null = null;
  try {
    const spec = JSON.parse(args[0] ?? "") as AfterExit;
    lock = walkLockFile(spec.keep);
    const deny = { ...emptyPathRules(), paths: spec.deny.paths, globs: spec.deny.globs };
    await heldByGit(spec.repo, deny, { keep: spec.keep, limitMs: spec.limitMs });
    return 0;
  } catch {
    return 1;
  } finally {
    // Only its own (a lock taken over as stale names another walk).
    try {
      if (lock && readFileSync(lock, "utf8").trim() === String(process.pid)) rmSync(lock, { force: true });
    } catch {
      // gone already
    }
  }
}

/** One look per session for the same workspace and rules (run_bash, MCP servers and the REPL's start share it). */
const checks = new Map<string, HistoryCheck>();
export function historyCheckFor(opts: HistoryCheckOptions): HistoryCheck {
  const key = JSON.stringify([opts.root, opts.home, opts.stateDir ?? null, opts.deny.paths, opts.deny.globs]);
  let c = checks.get(key);
  if (!c) checks.set(key, (c = new HistoryCheck(opts)));
  return c;
}

/** After a failed command that ran git while objects were hidden: why, for the model, so it asks rather than retries. */
export function hiddenHistoryNote(command: string, exitCode: number | null, hidden: readonly string[], walking = false): string | null {
  if (exitCode === 0 || hidden.length === 0 || !/\bgit\b/.test(command)) return null;
  if (walking) return "note: bunker is still checking this repository's git history for files a deny-read rule covers (a long history, walked once), and until it has, its git objects are hidden from commands, so git cannot read commits, trees or file contents here yet. Do not work around it; do other work first and run the git command again later, or ask the person to run it.";
  return "note: this repository's git objects are hidden from commands this session, because its history or index holds a file a deny-read rule covers (the person was told), so git cannot read commits, trees or file contents here. Do not retry or work around it; ask the person to run the git command themselves if it is needed.";
}
