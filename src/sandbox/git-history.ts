// Under --allow-write=.git a command writes history, not only the tree: it can
// commit a file other tools run later (a CI workflow, a hook under .husky/, an
// .envrc) straight from an object it hashed, never writing it in the tree
// where bunker would set it aside, and hide it from `git status` with
// --skip-worktree (red team 9's F10). The person's next push hands it to CI,
// with the repository's secrets. bunker does not move history back (the
// command's commits may be the work asked for), but it looks: the commits each
// ref gained during the command, the runs-later files they change, said to the
// person and the model, with the command to review them before a push.
import { blobIdOf, hashOfId, type HashBudget, type ObjectHash } from "./blob-id.ts";
import { idAtStart, refTarget } from "./git-ids.ts";
import { hostProgram } from "./host-program.ts";
import { shellQuote } from "../shell/quote.ts";
import { lstatSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { readRegularSync } from "../fs/file-kind.ts";
import { replaceFile } from "../fs/no-follow.ts";
import { isWithin, realpathLoose } from "../perms/workspace.ts";
import { upTo, type Walk } from "./bounded.ts";
import { setAside } from "./git-guard.ts";
import { indexStamp as indexStampNow, PSEUDO_REFS, refsStamp as refsStampNow } from "./git-stamps.ts";

/** A granted git directory's refs before a command: ref name → commit (HEAD included). */
export interface RefsBefore {
  gitDir: string;
  refs: Record<string, string>;
  /** The pseudo-refs there (PSEUDO_REFS: ORIG_HEAD, FETCH_HEAD, …), by name. */
  pseudo?: Record<string, PseudoRef>;
  /** Tracked paths git status did not look at before it (hiddenFromStatus), when read. */
  hidden?: string[];
  /** What each path staged (its index entry differs from HEAD's) was staged as before it (stagedNow), when read. */
  staged?: Record<string, StagedEntry>;
  /** Each index entry's `mode id` and cached stat data before it (statsNow), when read (red team 12's F09). */
  stats?: Map<string, { entry: string; stat: string }>;
  /** What git read the refs and the index from, as a digest (git-stamps.ts): the same after, nothing to ask git. */
  refsStamp?: string | null;
  indexStamp?: string | null;
  /**
   * A linked worktree of a granted repository (its git directory is `.git/worktrees/NAME`, which the command could
   * write): only its index is looked at (its refs are the repository's), its paths judged as the workspace's, and it
   * is named in what is said (red team 11's F11).
   */
  linked?: { shown: string; judgedIn: string };
}

/** A pseudo-ref's file: its text (null when it is no regular file bunker could read: a link, a folder) and the commits it names. */
export interface PseudoRef {
  text: string | null;
  ids: string[];
}

/**
 * The last answer git gave for each git directory, with the stamp of what it read: the same stamp at the next
 * look (the next command's before, or this command's after when it touched nothing) needs no git. Taken only
 * when the stamp held while git ran (nothing changed under it). Bounded: a session sees a handful of repositories.
 */
/**
 * Within one look (oneLook: the looks before a command, or after it, with nothing of the command left running), each
 * stamp is taken once; forgotten when the look ends, and when bunker itself changes the refs (replaceRefsMade).
 * Outside a look every stamp is taken anew.
 */
let stamps: Map<string, string | null> | null = null;
function stampOnce(key: string, take: () => string | null): string | null {
  if (!stamps) return take();
  if (stamps.has(key)) return stamps.get(key)!;
  const stamp = take();
  stamps.set(key, stamp);
  return stamp;
}

/** Runs `look` with each stamp taken once. */
export function oneLook<T>(look: () => T): T {
  const outer = stamps;
  stamps = new Map();
  try {
    return look();
  } finally {
    stamps = outer;
  }
}
const refsStamp = (gitDir: string) => stampOnce(`refs\0${gitDir}`, () => refsStampNow(gitDir));
const indexStamp = (gitDir: string) => stampOnce(`index\0${gitDir}`, () => indexStampNow(gitDir));

const answers = new Map<string, { stamp: string; value: unknown }>();
const MAX_ANSWERS = 64;

function remembered<T>(key: string, stampOf: () => string | null, ask: () => T | null, freshStamp: () => string | null = stampOf): { value: T | null; stamp: string | null } {
  const stamp = stampOf();
  const hit = stamp === null ? undefined : answers.get(key);
  if (hit && hit.stamp === stamp) return { value: hit.value as T, stamp };
  const value = ask();
  // Changed while git read it: this answer stands for no stamp.
  if (stamp === null || value === null || freshStamp() !== stamp) return { value, stamp: null };
  answers.delete(key);
  answers.set(key, { stamp, value });
  if (answers.size > MAX_ANSWERS) answers.delete(answers.keys().next().value!);
  return { value, stamp };
}

/** The index's hidden paths (hiddenFromStatus) and the stamp they stand for. */
function hiddenNow(gitDir: string, worktree: string): { value: string[] | null; stamp: string | null } {
  return remembered(`index\0${gitDir}\0${worktree}`, () => indexStamp(gitDir), () => {
    const out = git(gitDir, ["ls-files", "-v", "-z"], worktree);
    return out === null ? null : out.split("\0").filter((e) => /^[a-zS] /.test(e)).map((e) => e.slice(2));
  }, () => indexStampNow(gitDir));
}

/**
 * Tracked paths `git status` and `git diff` do not look at: their assume-unchanged or skip-worktree bit is set in
 * the index (`git ls-files -v` tags them with a lower-case letter or `S`); null when git cannot say.
 */
export function hiddenFromStatus(gitDir: string, worktree: string): string[] | null {
  return hiddenNow(gitDir, worktree).value;
}

/** Before a command: the refs of `gitDir` and the tracked paths hidden from git status in `worktree`; null when git cannot say. */
export function historyBefore(gitDir: string, worktree: string): RefsBefore | null {
  const refs = refsOf(gitDir);
  if (!refs) return null;
  const hidden = hiddenNow(gitDir, worktree);
  const staged = stagedNow(gitDir, worktree).value;
  const stats = statsNow(gitDir, worktree).value;
  return { ...refs, ...(hidden.value ? { hidden: hidden.value } : {}), ...(staged ? { staged } : {}), ...(stats ? { stats } : {}), indexStamp: hidden.stamp };
}

/** A staged path's index entry (`mode id`) and HEAD's (mode 000000: not in HEAD). */
export interface StagedEntry {
  entry: string;
  head: string;
}

/**
 * What each path whose staged content differs from HEAD's is staged as (`git diff-index --cached --raw`: the index's
 * object ids, no file's stat data: a blob swapped in under the same stat data shows here).
 */
function stagedNow(gitDir: string, worktree: string): { value: Record<string, StagedEntry> | null } {
  const stampOf = () => {
    const [refs, index] = [refsStamp(gitDir), indexStamp(gitDir)];
    return refs && index ? `${refs}:${index}` : null;
  };
  return remembered(`staged\0${gitDir}\0${worktree}`, stampOf, () => {
    const out = git(gitDir, ["diff-index", "--cached", "--no-renames", "--raw", "--no-abbrev", "-z", "HEAD", "--"], worktree);
    if (out === null) return null;
    const staged: Record<string, StagedEntry> = {};
    const fields = out.split("\0");
    for (let i = 0; i + 1 < fields.length; i += 2) {
      // ":HEADMODE MODE HEADID ID STATUS", then the path.
      const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) /.exec(fields[i]!);
      if (m) staged[fields[i + 1]!] = { entry: `${m[2]} ${m[4]}`, head: `${m[1]} ${m[3]}` };
    }
    return staged;
  }, () => {
    const [refs, index] = [refsStampNow(gitDir), indexStampNow(gitDir)];
    return refs && index ? `${refs}:${index}` : null;
  });
}

/**
 * After the command: the runs-later files whose staged content it changed (`laterWhy`: why a path is one, or null),
 * which the person's next `git commit` takes in with their own work; compared per path by object id, so a swap of what
 * the person had staged themselves counts too (reviewer's R10-05). Staged as the working tree's file holds it (a
 * command's `git add` of the person's edit): said, with how to look. Staged as something else, written straight into
 * the index with the entry's stat data kept (red team 10 F02): neither `git status` nor `git diff --cached` would show
 * it (git takes a stat-clean entry for the file beside it), so what was staged before is put back, and said.
 */
export function stagedRunsLater(worktree: string, before: RefsBefore, laterWhy: (path: string) => string | null, max = 5): string[] {
  if (!before.staged) return [];
  const judgedIn = before.linked?.judgedIn ?? worktree;
  const inWorktree = before.linked ? ` in the worktree at ${shellQuote(before.linked.shown)}` : "";
  const whose = before.linked ? "its" : "your";
  if (before.indexStamp && indexStamp(before.gitDir) === before.indexStamp && before.refsStamp && refsStamp(before.gitDir) === before.refsStamp) return [];
  const was = before.staged;
  const changed = Object.entries(stagedNow(before.gitDir, worktree).value ?? {}).flatMap(([p, now]) => {
    // Unchanged, or a deletion staged (nothing of it runs).
    if (was[p]?.entry === now.entry || /^0+ /.test(now.entry)) return [];
    const why = laterWhy(`${judgedIn}/${p}`);
    return why ? [{ p, now, why }] : [];
  });
  if (changed.length === 0) return [];
  const inTree = worktreeIds(worktree, changed.map((c) => c.p), hashOfId(changed[0]!.now.entry.split(" ")[1]!));
  const lines: string[] = [];
  const back: { p: string; entry: string; id: string; why: string }[] = [];
  for (const { p, now, why } of changed) {
    const id = now.entry.split(" ")[1]!;
    if (inTree.get(p)?.includes(id) && !now.entry.startsWith("120000")) {
      lines.push(`the command staged a change to ${p}${inWorktree}, which your next git commit${before.linked ? " there" : ""} takes in: ${why}. Review it with git --no-replace-objects show :${shellQuote(p)}, or unstage it: git restore --staged ${shellQuote(p)}`);
    } else back.push({ p, entry: was[p]?.entry ?? now.head, id, why });
  }
  if (back.length > 0) {
    const zero = (e: string) => /^0+ /.test(e);
    const input = back.map(({ p, entry }) => (zero(entry) ? `0 ${entry.split(" ")[1]}\t${p}\0` : `${entry}\t${p}\0`)).join("");
    const done = git(before.gitDir, ["update-index", "-z", "--index-info"], worktree, input) !== null;
    // The index changed: the rest of the look takes its stamp anew.
    stamps?.clear();
    for (const { p, entry, id, why } of back) {
      const what = `the command staged ${p}${inWorktree} as content ${whose} working tree does not hold (git status and git diff --cached would not have shown it), which your next git commit${before.linked ? " there" : ""} would take in: ${why}`;
      const had = was[p] ? "what you had staged" : zero(entry) ? "its absence from the index" : "HEAD's version of it";
      lines.push(done
        ? `${what}. bunker put back ${had} (to look at the command's: git --no-replace-objects show ${id.slice(0, 12)})`
        : `${what}. bunker could not put back ${had}: look with git --no-replace-objects show :${shellQuote(p)} and unstage it: git restore --staged ${shellQuote(p)}`);
    }
  }
  return lines.slice(0, max);
}

/** Most linked worktrees of one repository looked at after a command (past it the command is not run: run-bash.ts). */
export const MAX_LINKED = 100;

/**
 * The linked worktrees of the repository whose git directory is `gitDir`: each one's git directory
 * (`worktrees/NAME`) and its work tree (the folder of the .git file its `gitdir` names), read before the command.
 * Only those git would use: the `gitdir` file names a `.git` FILE that points back at `worktrees/NAME` (a folder a
 * command made there with a `gitdir` of `/usr/.git`, or one bunker set aside, is none). Up to `bound` of them, or
 * said incomplete (bounded.ts; reviewer's R12-11: past 100 sorted names the rest were skipped without a word).
 */
export function linkedWorktrees(gitDir: string, bound = MAX_LINKED): Walk<{ gitDir: string; worktree: string }> {
  let names: string[];
  try {
    names = readdirSync(join(gitDir, "worktrees")).sort();
  } catch {
    return { complete: true, items: [] };
  }
  function* valid(): Generator<{ gitDir: string; worktree: string }> {
    for (const name of names) {
      if (name.includes(".bunker-set-aside")) continue;
      const dir = join(gitDir, "worktrees", name);
      const found = worktreeOf(dir);
      if (found) yield { gitDir: dir, worktree: found };
    }
  }
  return upTo(valid(), bound);
}

/** The work tree of the linked worktree whose git directory is `dir`, when its .git file points back at `dir`; else null. */
function worktreeOf(dir: string): string | null {
  try {
    if (!lstatSync(dir).isDirectory()) return null;
    const pointer = readRegularSync(join(dir, "gitdir"), "gitdir", { max: 4096 })?.bytes.toString("utf8").trim();
    if (!pointer || !pointer.startsWith("/")) return null;
    const dotGit = readRegularSync(pointer, pointer, { max: 4096 })?.bytes.toString("utf8");
    const back = dotGit?.match(/^gitdir:\s*(.+?)\s*$/m)?.[1];
    if (!back) return null;
    const worktree = dirname(pointer);
    return realpathLoose(resolve(worktree, back)).real === realpathLoose(dir).real ? worktree : null;
  } catch {
    return null;
  }
}

/**
 * The object ids each of `paths` in the working tree could be staged as: its bytes as they are (no filter run), and,
 * for a text file with CRLF line endings, those lines ending in LF, as `git add` stages it under core.autocrlf or a
 * `text`/`eol` attribute (reviewer's R11-01: the person's CRLF file, staged that way, was taken for a swap and put
 * back). Only that conversion, done here: git is not asked to run the filters a .gitattributes names. Hashed by bunker
 * (blob-id.ts: git's batch call lost every answer to one name ending in CR, red team 13's F03). Missing for a file
 * that cannot be read, or past MAX_HASHED_BYTES in all: each caller takes the safe side for it.
 */
function worktreeIds(worktree: string, paths: string[], hash: ObjectHash): Map<string, string[]> {
  const budget: HashBudget = { bytes: MAX_HASHED_BYTES };
  const out = new Map<string, string[]>();
  for (const p of paths) {
    const id = blobIdOf(`${worktree}/${p}`, hash, budget);
    if (id === null) continue;
    const lf = lfId(`${worktree}/${p}`, hash);
    out.set(p, lf === null ? [id] : [id, lf]);
  }
  return out;
}

/** The most bytes hashed in one look after a command (a command can make many large files). */
const MAX_HASHED_BYTES = 1024 * 1024 * 1024;

/** Past this size a file is not read to see it with LF endings (git's own check for text reads its first 8,000 bytes). */
const MAX_LF_BYTES = 16 * 1024 * 1024;

/** The blob id of the file at `path` with each CRLF made LF; null when it is no text file with a CRLF (a NUL in its first 8,000 bytes: binary to git). */
function lfId(path: string, hash: "sha1" | "sha256"): string | null {
  let bytes: Buffer;
  try {
    const got = readRegularSync(path, path, { max: MAX_LF_BYTES });
    if (!got) return null;
    bytes = got.bytes;
  } catch {
    return null;
  }
  if (bytes.subarray(0, 8000).includes(0) || !bytes.includes("\r\n")) return null;
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = bytes.indexOf("\r\n"); i >= 0; i = bytes.indexOf("\r\n", from)) {
    parts.push(bytes.subarray(from, i));
    from = i + 1;
  }
  parts.push(bytes.subarray(from));
  const lf = Buffer.concat(parts);
  return new Bun.CryptoHasher(hash).update(`blob ${lf.length}\0`).update(lf).digest("hex");
}

/** Each index entry (stage 0): its `mode id` and the stat data git caches for it (`git ls-files --debug`). */
function statsNow(gitDir: string, worktree: string): { value: Map<string, { entry: string; stat: string }> | null; stamp: string | null } {
  return remembered(`stats\0${gitDir}\0${worktree}`, () => indexStamp(gitDir), () => {
    const out = git(gitDir, ["ls-files", "-s", "--debug", "-z"], worktree);
    if (out === null) return null;
    const stats = new Map<string, { entry: string; stat: string }>();
    // `mode id stage\tpath` NUL, then five lines of stat data (ctime, mtime, dev/ino, uid/gid, size/flags), then the
    // next entry. Sliced, not split: 50,000 entries in about 70 ms.
    let at = 0;
    while (at < out.length) {
      const nul = out.indexOf("\0", at);
      if (nul < 0) break;
      let end = nul;
      for (let k = 0; k < 5 && end >= 0; k++) end = out.indexOf("\n", end + 1);
      if (end < 0) break;
      const header = out.slice(at, nul);
      const tab = header.indexOf("\t");
      // Stage 0 only (a conflict's stages are git's to show).
      if (tab > 0 && header.slice(tab - 2, tab) === " 0") stats.set(header.slice(tab + 1), { entry: header.slice(0, tab - 2), stat: out.slice(nul + 1, end) });
      at = end + 1;
    }
    return stats;
  }, () => indexStampNow(gitDir));
}

/** Most files hashed after a command to see whether their index entries' new stat data is true. */
const MAX_STAT_CHECKED = 2_000;

/**
 * After the command: the index entries whose cached stat data it changed while their blob stayed the same, when the
 * file beside them no longer holds that blob (red team 12's F09): the command edited a tracked file and wrote the
 * file's new stat data into its entry, so git takes it as unchanged and neither `git status` nor `git diff` shows
 * the edit. git's own refresh only does that when the bytes match. Each such entry's stat data is cleared (the same
 * blob staged again: git hashes the file at its next look and shows the change), and it is said.
 */
export function statForged(worktree: string, before: RefsBefore, max = 5, maxChecked = MAX_STAT_CHECKED): string[] {
  if (!before.stats) return [];
  if (before.indexStamp && indexStamp(before.gitDir) === before.indexStamp) return [];
  const now = statsNow(before.gitDir, worktree).value;
  if (!now) return [];
  const moved: { p: string; entry: string }[] = [];
  for (const [p, e] of now) {
    const was = before.stats.get(p);
    if (!was || was.entry !== e.entry || was.stat === e.stat || !/^100(644|755) /.test(e.entry)) continue;
    moved.push({ p, entry: e.entry });
  }
  if (moved.length === 0) return [];
  // Past the files hashed, an entry is not let through unchecked (a command touching 2,100 files first had hidden a
  // forged one: reviewer's R12-26): its stat data is cleared too, and git hashes the file at its next look.
  const checked = moved.slice(0, maxChecked);
  const unchecked = moved.slice(maxChecked);
  const ids = worktreeIds(worktree, checked.map((m) => m.p), hashOfId(checked[0]!.entry.split(" ")[1]!));
  const forged = checked.filter(({ p, entry }) => {
    const got = ids.get(p);
    return got !== undefined && !got.includes(entry.split(" ")[1]!);
  });
  // One bunker could not hash (unreadable, gone, past the bytes hashed) is not let through either (red team 13's F03).
  const unread = checked.filter(({ p }) => !ids.has(p));
  const cleared = [...forged, ...unchecked, ...unread];
  if (cleared.length === 0) return [];
  const done = git(before.gitDir, ["update-index", "-z", "--index-info"], worktree, cleared.map(({ p, entry }) => `${entry} 0\t${p}\0`).join("")) !== null;
  const after = done ? "bunker cleared it, so git hashes those files again at its next look and shows any change" : "bunker could not clear it: run git update-index --really-refresh, then git status";
  const more = [
    ...(unchecked.length === 0 ? [] : [`the command changed the git index's stat data of ${unchecked.length} more tracked files than bunker hashes after a command (${maxChecked}): ${after}`]),
    ...(unread.length === 0 ? [] : [`the command changed the git index's stat data of ${unread.length === 1 ? "a tracked file" : `${unread.length} tracked files`} bunker could not read to check (${unread.slice(0, max).map(({ p }) => shellQuote(p)).join(" ")}${unread.length > max ? " …" : ""}): ${after}`]),
  ];
  if (forged.length === 0) return more;
  const inWorktree = before.linked ? ` in ${before.linked.shown}` : "";
  const shown = forged.slice(0, max).map(({ p }) => shellQuote(p)).join(" ");
  const what = `the command changed ${forged.length === 1 ? "a tracked file" : `${forged.length} tracked files`}${inWorktree} and wrote ${forged.length === 1 ? "its" : "their"} new stat data into the git index with the old content's id, so git status and git diff would not have shown the change: ${shown}${forged.length > max ? " …" : ""}`;
  return [done ? `${what}. bunker cleared that stat data, so git status and git diff show it again: review it with git diff -- ${shown}` : `${what}. bunker could not clear it: review the file${forged.length === 1 ? "" : "s"} with git diff --no-index or git update-index --really-refresh, then git diff`, ...more];
}

/**
 * After the command: the tracked paths it hid from `git status` and `git diff` (`git update-index --skip-worktree`
 * or `--assume-unchanged`, which --allow-write=.git lets it write): a change it made there would not show when the
 * person reviews the work, nor go into `git commit -a`. Not undone (a sparse checkout sets these bits too): said,
 * with how to show them again.
 */
export function newlyHidden(worktree: string, before: RefsBefore, max = 5): string[] {
  if (!before.hidden) return [];
  if (before.indexStamp && indexStamp(before.gitDir) === before.indexStamp) return [];
  const was = new Set(before.hidden);
  const now = (hiddenFromStatus(before.gitDir, worktree) ?? []).filter((p) => !was.has(p));
  if (now.length === 0) return [];
  const shown = now.slice(0, max).map((p) => shellQuote(p)).join(" ");
  return [`the command hid ${now.length === 1 ? "a tracked file" : `${now.length} tracked files`} from git status and git diff (their skip-worktree or assume-unchanged bit is set): ${shown}${now.length > max ? " …" : ""}. A change there would not show when you review the work or go into git commit -a; to show ${now.length === 1 ? "it" : "them"} again: git update-index --no-skip-worktree --no-assume-unchanged ${shown}${now.length > max ? " … (git ls-files -v | grep '^[a-zS]' lists them all)" : ""}`];
}

/**
 * git on the host, reading history the command may have written: no config but the repository's own (read-only to
 * commands, with what it includes), nothing run (no fsmonitor, hooks, signature checks, lazy fetches), and what
 * git shows of history only what a push sends: replace refs and the commit-graph (both in what a command may
 * write) are not read, so a commit cannot be shown to bunker as another one.
 */
/** How host git is started for bunker's own questions: hardened against what a command may have written in the repository. */
function gitCommand(gitDir: string, args: string[], worktree?: string): { argv: string[]; env: Record<string, string> } | null {
  const PATH = process.env.PATH ?? "/usr/bin:/bin";
  const program = hostProgram("git", PATH, []);
  if (!program) return null;
  const env: Record<string, string> = {
    PATH,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_NO_LAZY_FETCH: "1",
    GIT_DIR: gitDir,
    GIT_OPTIONAL_LOCKS: "0",
    LC_ALL: "C",
  };
  if (worktree) env.GIT_WORK_TREE = worktree;
  const hardening = ["core.fsmonitor=false", "core.hooksPath=/dev/null", "core.commitGraph=false", "log.showSignature=false", "log.showRoot=true"].flatMap((c) => ["-c", c]);
  return { argv: [program, ...hardening, ...args], env };
}

function git(gitDir: string, args: string[], worktree?: string, stdin?: string): string | null {
  const cmd = gitCommand(gitDir, args, worktree);
  if (!cmd) return null;
  const r = Bun.spawnSync(cmd.argv, { env: cmd.env, stdin: stdin === undefined ? "ignore" : Buffer.from(stdin), stdout: "pipe", stderr: "ignore", timeout: 10_000 });
  return r.exitCode === 0 ? r.stdout.toString() : null;
}

/**
 * The same hardened git, without holding up the REPL: its output, or "timeout" when it ran past `timeoutMs` (killed),
 * or null when it failed. `signal` kills it too (then null).
 */
export async function hostGitAsync(gitDir: string, args: string[], opts: { worktree?: string; stdin?: string; timeoutMs: number; signal?: AbortSignal }): Promise<string | "timeout" | null> {
  const cmd = gitCommand(gitDir, args, opts.worktree);
  if (!cmd) return null;
  const proc = Bun.spawn(cmd.argv, { env: cmd.env, stdin: opts.stdin === undefined ? "ignore" : Buffer.from(opts.stdin), stdout: "pipe", stderr: "ignore" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, opts.timeoutMs);
  const stop = () => proc.kill("SIGKILL");
  opts.signal?.addEventListener("abort", stop, { once: true });
  // bunker exiting while git walks: the walk goes with it.
  const onExit = () => proc.kill("SIGKILL");
  process.once("exit", onExit);
  try {
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    if (timedOut) return "timeout";
    return code === 0 ? out : null;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", stop);
    process.removeListener("exit", onExit);
  }
}

/** Every ref of `gitDir` and what HEAD points at; null when git cannot say (no git, not a repository). */
export function refsOf(gitDir: string): RefsBefore | null {
  const got = remembered<{ refs: Record<string, string>; pseudo: Record<string, PseudoRef> }>(`refs\0${gitDir}`, () => refsStamp(gitDir), () => {
    // for-each-ref lists a ref whose object is missing too (show-ref gives up on it: red team 10 F03b's dangling ref).
    const out = git(gitDir, ["for-each-ref", "--format=%(objectname) %(refname)"]);
    if (out === null) return null;
    const refs: Record<string, string> = {};
    for (const line of out.split("\n")) {
      const sp = line.indexOf(" ");
      if (sp > 0) refs[line.slice(sp + 1)] = line.slice(0, sp);
    }
    const head = headOf(gitDir, refs);
    if (head) refs.HEAD = head;
    return { refs, pseudo: pseudoRefsOf(gitDir, refs) };
  }, () => refsStampNow(gitDir));
  return got.value ? { gitDir, refs: got.value.refs, pseudo: got.value.pseudo, refsStamp: got.stamp } : null;
}

/** Far more than any pseudo-ref holds (FETCH_HEAD of a fetch of every branch: a line each); past it, unreadable. */
const MAX_PSEUDO_BYTES = 4 * 1024 * 1024;

/**
 * The pseudo-refs in `gitDir`, read from their files as git does: each line's commit id (FETCH_HEAD has one a
 * branch), or `ref: NAME` resolved through `refs`. One that is no regular file is there, unreadable.
 */
function pseudoRefsOf(gitDir: string, refs: Record<string, string>): Record<string, PseudoRef> {
  const out: Record<string, PseudoRef> = {};
  for (const name of PSEUDO_REFS) {
    let text: string | null;
    try {
      const got = readRegularSync(join(gitDir, name), name, { max: MAX_PSEUDO_BYTES });
      if (!got) continue;
      text = got.bytes.toString("latin1");
    } catch {
      text = null;
    }
    const ids = (text ?? "").split("\n").flatMap((line) => {
      const id = idAtStart(line) ?? refs[refTarget(line) ?? ""];
      return id ? [id] : [];
    });
    out[name] = { text, ids };
  }
  return out;
}

/** What HEAD points at: read from its file (a branch's name, or a commit), git asked only when it says something else. */
function headOf(gitDir: string, refs: Record<string, string>): string | undefined {
  let text: string | undefined;
  try {
    text = readRegularSync(join(gitDir, "HEAD"), "HEAD", { max: 4096 })?.bytes.toString("utf8");
  } catch {
    // A link or something stranger: git's own reading, below.
  }
  const symbolic = text === undefined ? null : refTarget(text);
  if (symbolic?.startsWith("refs/")) return refs[symbolic];
  const detached = text === undefined ? null : idAtStart(text);
  if (detached) return detached;
  return git(gitDir, ["rev-parse", "--verify", "-q", "HEAD"])?.trim() || undefined;
}

/** The commit each of `ids` names (a tag peeled), or none: a ref may name a blob, a tree or a missing object (red team 10 F03b). */
function commitsOf(gitDir: string, ids: string[]): Map<string, string> | null {
  if (ids.length === 0) return new Map();
  const out = git(gitDir, ["cat-file", "--batch-check=%(objectname) %(objecttype)"], undefined, ids.map((id) => `${id}^{commit}\n`).join(""));
  if (out === null) return null;
  const lines = out.split("\n");
  const found = new Map<string, string>();
  ids.forEach((id, i) => {
    const m = /^([0-9a-f]{40,64}) commit$/.exec(lines[i] ?? "");
    if (m) found.set(id, m[1]!);
  });
  return found;
}

/**
 * After the command: for each ref that moved or was made (any ref: none is the command's own), the runs-later files
 * (`laterWhy`: why a path is one, or null) a push of it would bring: those the commits new to it change, merges
 * against each parent (an "evil merge" changes a file no parent had: red team 10 F02), and, for a ref that moved,
 * those its tree holds otherwise than before (moved onto a commit made earlier). One line each (at most `max`),
 * naming the ref and how to review it. A few git runs whatever the number of refs: what was there before goes on
 * git's input, never its command line (red team 10 F03: 60 000 refs overflowed it, and every check failed). When git
 * cannot say, that is said: history moved unseen is not passed over in silence. Then the pseudo-refs (pseudoRefsBack).
 */
export function committedRunsLater(root: string, before: RefsBefore, laterWhy: (path: string) => string | null, max = 20): string[] {
  // Nothing git reads refs from changed: nothing moved, no git asked.
  if (before.refsStamp && refsStamp(before.gitDir) === before.refsStamp) return [];
  const now = refsOf(before.gitDir);
  if (!now) return [];
  const movedRefs = Object.entries(now.refs).filter(([ref, sha]) => before.refs[ref] !== sha);
  // HEAD moved with the branch it names: said once, by the branch.
  const moved = movedRefs.filter(([ref, sha]) => ref !== "HEAD" || !movedRefs.some(([r, s]) => r !== "HEAD" && s === sha));
  const was = before.pseudo ?? {};
  const movedPseudo = Object.entries(now.pseudo ?? {}).filter(([name, p]) => was[name]?.text !== p.text);
  if (moved.length === 0 && movedPseudo.length === 0) return [];
  // What the person had: every ref's commit and every pseudo-ref's before the command.
  const oldIds = [...new Set([...Object.values(before.refs), ...Object.values(was).flatMap((p) => p.ids)])];
  const newIds = [...new Set([...moved.map(([, sha]) => sha), ...movedPseudo.flatMap(([, p]) => p.ids)])];
  const commits = commitsOf(before.gitDir, [...new Set([...oldIds, ...newIds])]);
  if (!commits) return [...(moved.length > 0 ? unseenRefs(moved, "git could not read the objects they name") : []), ...pseudoRefsBack(root, before, movedPseudo, null, laterWhy)];
  const oldCommits = [...new Set(oldIds.flatMap((id) => commits.get(id) ?? []))];
  const lines = moved.length > 0 ? refsRunsLater(root, before, moved, commits, oldCommits, laterWhy, max) : [];
  return [...lines, ...pseudoRefsBack(root, before, movedPseudo, { commits, oldCommits }, laterWhy)];
}

/** What is said when git cannot say what moved refs hold: history moved unseen is not passed over in silence. */
function unseenRefs(moved: [string, string][], why: string): string[] {
  return [`the command moved ${moved.length === 1 ? "a ref" : `${moved.length} refs`} (${moved.slice(0, 3).map(([r]) => shownRef(r)).join(", ")}${moved.length > 3 ? ", …" : ""}) and bunker could not see what ${moved.length === 1 ? "it holds" : "they hold"} (${why}): review ${moved.length === 1 ? "it" : "them"} before you push (git --no-replace-objects log --stat ${shellQuote(moved[0]![0])})`];
}

/** The paths the commits reachable from `tips` and from none of `old` change (merges against each parent), with the tip each was reached from (%S); null when git failed. */
function pathsNewIn(gitDir: string, tips: readonly string[], old: readonly string[]): { tip: string; path: string }[] | null {
  const input = [...tips.map((c) => `${c}\n`), ...old.map((c) => `^${c}\n`)].join("");
  const log = git(gitDir, ["log", "-m", "--no-renames", "--no-textconv", "--no-ext-diff", "--format=%x01%S", "--name-only", "-z", "--stdin"], undefined, input);
  if (log === null) return null;
  const out: { tip: string; path: string }[] = [];
  for (const record of log.split("\x01").slice(1)) {
    const [tip = "", ...paths] = record.split("\0");
    for (const path of paths.map((p) => p.replace(/^\n/, "")).filter(Boolean)) out.push({ tip, path });
  }
  return out;
}

function refsRunsLater(root: string, before: RefsBefore, moved: [string, string][], commits: Map<string, string>, oldCommits: string[], laterWhy: (path: string) => string | null, max: number): string[] {
  const unseen = (why: string) => unseenRefs(moved, why);
  const newCommits = new Map<string, string[]>();
  for (const [ref, sha] of moved) {
    const c = commits.get(sha);
    if (c) newCommits.set(c, [...(newCommits.get(c) ?? []), ref]);
  }
  const found: { ref: string; tip: string; path: string }[] = [];
  if (newCommits.size > 0) {
    // The commits no ref had before, with the tip each was reached from, merges against each parent.
    const log = pathsNewIn(before.gitDir, [...newCommits.keys()], oldCommits);
    if (log === null) return unseen("git log failed");
    for (const { tip, path } of log) for (const ref of newCommits.get(tip) ?? []) found.push({ ref, tip, path });
    // A ref that moved onto a commit some ref had already: what its tree holds now against before.
    const pairs = moved.flatMap(([ref, sha]) => {
      const was = before.refs[ref] === undefined ? undefined : commits.get(before.refs[ref]!);
      const is = commits.get(sha);
      return was && is && was !== is ? [{ ref, was, is }] : [];
    });
    // Each pair that differs prints its first commit, then the paths; a pair that does not differ prints nothing. So
    // one git run per set of pairs whose first commits all differ: a header then names one pair (two refs moved from
    // one commit, the first onto an equal tree, were taken for each other: reviewer's R10-02).
    const batches: (typeof pairs)[] = [];
    for (const p of pairs) {
      const batch = batches.find((b) => !b.some((q) => q.was === p.was));
      if (batch) batch.push(p);
      else batches.push([p]);
    }
    for (const batch of batches) {
      const diff = git(before.gitDir, ["diff-tree", "-r", "--no-renames", "--no-textconv", "--no-ext-diff", "--name-only", "-z", "--stdin"], undefined, batch.map((p) => `${p.was} ${p.is}\n`).join(""));
      if (diff === null) return unseen("git diff-tree failed");
      let at: (typeof pairs)[number] | undefined;
      for (const token of diff.split("\0").filter(Boolean)) {
        const header = batch.find((p) => p.was === token);
        if (header) at = header;
        else if (at) found.push({ ref: at.ref, tip: at.is, path: token });
      }
    }
  }
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const { ref, tip, path } of found) {
    const key = `${ref}\0${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const why = laterWhy(`${root}/${path}`);
    if (!why) continue;
    const hidden = (hiddenNow(before.gitDir, root).value ?? []).includes(path) ? ", and git status does not show it (its skip-worktree or assume-unchanged bit is set)" : "";
    lines.push(`${path} was committed by the command to ${shownRef(ref)}${hidden}: ${why}. bunker does not set history aside: review it before you push (git --no-replace-objects show ${tip.slice(0, 12)} -- ${shellQuote(path)})`);
    if (lines.length >= max) return lines;
  }
  return lines;
}

/** What the person's git does with each pseudo-ref's commit. */
const FOLLOWED_BY: Record<(typeof PSEUDO_REFS)[number], string> = {
  ORIG_HEAD: "git reset --hard ORIG_HEAD (or git am --abort) would write it into your working tree",
  FETCH_HEAD: "git merge FETCH_HEAD would bring it into your branch and working tree",
  MERGE_HEAD: "the git commit that concludes the merge would bring it into your branch",
  CHERRY_PICK_HEAD: "the git commit that concludes the cherry-pick would take its message and author",
  REVERT_HEAD: "the git commit that concludes the revert would name it",
  AUTO_MERGE: "git diff AUTO_MERGE would show it as the merge's result",
  "rebase-apply/abort-safety": "git am --abort would take it for the HEAD it left, and reset to ORIG_HEAD",
  "sequencer/abort-safety": "git cherry-pick --abort would take it for the HEAD it left, and reset",
};

/**
 * After the command: each pseudo-ref (PSEUDO_REFS) it moved onto commits no ref or pseudo-ref held before that change
 * a runs-later file is put back as it was, or set aside when there was none: the person's own `git reset --hard
 * ORIG_HEAD` or `git am --abort` would write that file into the working tree outside the sandbox, and nothing in
 * `git status` or `git log` shows a pseudo-ref (red team 10 F09b, reviewer's R10-07). One moved onto commits the person
 * had brings nothing new and stays; one bunker cannot read or judge (a link, git failing) is put back all the same.
 * `judged` null: git could not read the objects.
 */
function pseudoRefsBack(root: string, before: RefsBefore, moved: [string, PseudoRef][], judged: { commits: Map<string, string>; oldCommits: string[] } | null, laterWhy: (path: string) => string | null): string[] {
  const lines: string[] = [];
  for (const [name, now] of moved) {
    const fresh = judged ? [...new Set(now.ids.flatMap((id) => judged.commits.get(id) ?? []))].filter((c) => !judged.oldCommits.includes(c)) : [];
    let reason: string | null = null;
    if (now.text === null) reason = "to something bunker could not read (no regular file)";
    else if (!judged && now.ids.length > 0) reason = "to objects git could not read";
    else if (judged && fresh.length > 0) {
      const paths = pathsNewIn(before.gitDir, fresh, judged.oldCommits);
      if (paths === null) reason = "to commits git could not read";
      else {
        const later = paths.flatMap(({ tip, path }) => {
          const why = laterWhy(`${root}/${path}`);
          return why ? [{ tip, path, why }] : [];
        });
        const first = later[0];
        if (first) {
          const more = [...new Set(later.map((l) => l.path))].length - 1;
          reason = `to a commit no ref held, which changes ${first.path}${more > 0 ? ` (and ${more} more)` : ""}: ${first.why}; ${FOLLOWED_BY[name as keyof typeof FOLLOWED_BY]} outside the sandbox (to look at it: git --no-replace-objects show ${first.tip.slice(0, 12)} -- ${shellQuote(first.path)})`;
        }
      }
    }
    if (reason) lines.push(putBack(root, before, name, reason));
  }
  return lines;
}

/** `name`'s file in the git directory as it was before the command, or set aside when there was none. */
function putBack(root: string, before: RefsBefore, name: string, reason: string): string {
  const path = join(before.gitDir, name);
  const shown = isWithin(root, path) ? relative(root, path) : path;
  const old = before.pseudo?.[name]?.text;
  // The refs changed: the rest of the look takes their stamp anew.
  stamps?.clear();
  if (old === undefined || old === null) return setAside(root, path, `${shown}, which the command set ${reason}`);
  try {
    // Written only into a folder of the git directory's own (rebase-apply/ may now be a link elsewhere).
    if (!lstatSync(dirname(path)).isDirectory()) throw new Error(`${dirname(shown)} is no folder`);
    replaceFile(path, old);
    return `the command set ${shown} ${reason}. bunker put back the ${name} there was before it`;
  } catch (e) {
    return setAside(root, path, `${shown}, which the command set ${reason} (bunker could not put back the one before it: ${(e as Error).message})`);
  }
}

/**
 * After the command: the replace refs it made are removed, and those of the person's it re-aimed put back. A replace
 * ref has every local look at an object show another (`git replace EVIL INNOCENT`: git show, diff, log -p and blame
 * show the innocent text) while a push sends the real one (red team 10 F06), so the review bunker asks for would show
 * the wrong thing. Said, with how to make the command's again should the person want it.
 */
export function replaceRefsMade(before: RefsBefore): string[] {
  if (before.refsStamp && refsStamp(before.gitDir) === before.refsStamp) return [];
  const now = refsOf(before.gitDir);
  if (!now) return [];
  return Object.entries(now.refs).flatMap(([ref, sha]) => {
    if (!ref.startsWith("refs/replace/") || before.refs[ref] === sha) return [];
    const object = ref.slice("refs/replace/".length);
    const shown = `git would have shown the object ${object.slice(0, 12)} as ${sha.slice(0, 12)} (git show, diff, log -p, blame) while a push sends the real one`;
    const had = before.refs[ref];
    const again = `to make it again: git replace ${had === undefined ? "" : "-f "}${object} ${sha}`;
    // The person's own, re-aimed (reviewer's R10-16): back where it was, only if it still names the command's object.
    const undone = git(before.gitDir, had === undefined ? ["update-ref", "-d", ref, sha] : ["update-ref", ref, had, sha]) !== null;
    // The refs changed: the rest of the look takes their stamp anew.
    stamps?.clear();
    if (had !== undefined) {
      return [undone
        ? `the command re-aimed your replace ref ${shellQuote(ref)}: ${shown}. bunker put back yours (to ${had.slice(0, 12)}; ${again})`
        : `the command re-aimed your replace ref ${shellQuote(ref)}: ${shown}. bunker could not put back yours: git update-ref ${shellQuote(ref)} ${had}`];
    }
    return [undone
      ? `the command made the replace ref ${shellQuote(ref)}: ${shown}. bunker removed it (${again})`
      : `the command made the replace ref ${shellQuote(ref)}: ${shown}. bunker could not remove it: git update-ref -d ${shellQuote(ref)}`];
  });
}

function shownRef(ref: string): string {
  return ref === "HEAD" ? "HEAD" : ref.replace(/^refs\/(heads|tags)\//, "");
}

/** The same hardened git for another question about history (denied-history.ts: whether it holds a denied file). */
export { git as hostGit };
