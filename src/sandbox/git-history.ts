// Under --allow-write=.git a command writes history, not only the tree: it can
// commit a file other tools run later (a CI workflow, a hook under .husky/, an
// .envrc) straight from an object it hashed, never writing it in the tree
// where bunker would set it aside, and hide it from `git status` with
// --skip-worktree (red team 9's F10). The person's next push hands it to CI,
// with the repository's secrets. bunker does not move history back (the
// command's commits may be the work asked for), but it looks: the commits each
// ref gained during the command, the runs-later files they change, said to the
// person and the model, with the command to review them before a push.
import { hostProgram } from "./host-program.ts";
import { shellQuote } from "../shell/quote.ts";
import { join } from "node:path";
import { readRegularSync } from "../fs/file-kind.ts";
import { indexStamp as indexStampNow, refsStamp as refsStampNow } from "./git-stamps.ts";

/** A granted git directory's refs before a command: ref name → commit (HEAD included). */
export interface RefsBefore {
  gitDir: string;
  refs: Record<string, string>;
  /** Tracked paths git status did not look at before it (hiddenFromStatus), when read. */
  hidden?: string[];
  /** Paths staged (the index against HEAD) before it (stagedNow), when read. */
  staged?: string[];
  /** What git read the refs and the index from, as a digest (git-stamps.ts): the same after, nothing to ask git. */
  refsStamp?: string | null;
  indexStamp?: string | null;
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
  return { ...refs, ...(hidden.value ? { hidden: hidden.value } : {}), ...(staged ? { staged } : {}), indexStamp: hidden.stamp };
}

/** The paths whose staged content differs from HEAD's (`git diff-index --cached`: the index's object ids, no file's stat data). */
function stagedNow(gitDir: string, worktree: string): { value: string[] | null } {
  const stampOf = () => {
    const [refs, index] = [refsStamp(gitDir), indexStamp(gitDir)];
    return refs && index ? `${refs}:${index}` : null;
  };
  return remembered(`staged\0${gitDir}\0${worktree}`, stampOf, () => {
    const out = git(gitDir, ["diff-index", "--cached", "--no-renames", "--name-only", "-z", "HEAD", "--"], worktree);
    return out === null ? null : out.split("\0").filter(Boolean);
  }, () => {
    const [refs, index] = [refsStampNow(gitDir), indexStampNow(gitDir)];
    return refs && index ? `${refs}:${index}` : null;
  });
}

/**
 * After the command: the runs-later files it staged (`laterWhy`: why a path is one, or null), which the person's next
 * `git commit` takes in with their own work. Written straight into the index under --allow-write=.git (an object's
 * id in the file's entry, its stat data kept), the change shows neither in `git status` nor `git diff` (red team 10
 * F02); `git diff --cached` shows it. Not undone (staging is ordinary work): said, with how to look and how to unstage.
 */
export function stagedRunsLater(worktree: string, before: RefsBefore, laterWhy: (path: string) => string | null, max = 5): string[] {
  if (!before.staged) return [];
  if (before.indexStamp && indexStamp(before.gitDir) === before.indexStamp && before.refsStamp && refsStamp(before.gitDir) === before.refsStamp) return [];
  const was = new Set(before.staged);
  const now = (stagedNow(before.gitDir, worktree).value ?? []).filter((p) => !was.has(p)).flatMap((p) => {
    const why = laterWhy(`${worktree}/${p}`);
    return why ? [{ p, why }] : [];
  });
  return now.slice(0, max).map(({ p, why }) => `the command staged a change to ${p}, which your next git commit takes in: ${why}. Review it with git --no-replace-objects diff --cached -- ${shellQuote(p)} (git status may not show it), or unstage it: git restore --staged ${shellQuote(p)}`);
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
function git(gitDir: string, args: string[], worktree?: string, stdin?: string): string | null {
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
  const r = Bun.spawnSync([program, ...hardening, ...args], { env, stdin: stdin === undefined ? "ignore" : Buffer.from(stdin), stdout: "pipe", stderr: "ignore", timeout: 10_000 });
  return r.exitCode === 0 ? r.stdout.toString() : null;
}

/** Every ref of `gitDir` and what HEAD points at; null when git cannot say (no git, not a repository). */
export function refsOf(gitDir: string): RefsBefore | null {
  const got = remembered(`refs\0${gitDir}`, () => refsStamp(gitDir), () => {
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
    return refs;
  }, () => refsStampNow(gitDir));
  return got.value ? { gitDir, refs: got.value, refsStamp: got.stamp } : null;
}

/** What HEAD points at: read from its file (a branch's name, or a commit), git asked only when it says something else. */
function headOf(gitDir: string, refs: Record<string, string>): string | undefined {
  let text: string | undefined;
  try {
    text = readRegularSync(join(gitDir, "HEAD"), "HEAD", { max: 4096 })?.bytes.toString("utf8");
  } catch {
    // A link or something stranger: git's own reading, below.
  }
  const symbolic = text === undefined ? null : /^ref: (refs\/\S+)\s*$/.exec(text);
  if (symbolic) return refs[symbolic[1]!];
  const detached = text === undefined ? null : /^([0-9a-f]{40}|[0-9a-f]{64})\s*$/.exec(text);
  if (detached) return detached[1];
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
 * cannot say, that is said: history moved unseen is not passed over in silence.
 */
export function committedRunsLater(root: string, before: RefsBefore, laterWhy: (path: string) => string | null, max = 20): string[] {
  // Nothing git reads refs from changed: nothing moved, no git asked.
  if (before.refsStamp && refsStamp(before.gitDir) === before.refsStamp) return [];
  const now = refsOf(before.gitDir);
  if (!now) return [];
  const movedRefs = Object.entries(now.refs).filter(([ref, sha]) => before.refs[ref] !== sha);
  // HEAD moved with the branch it names: said once, by the branch.
  const moved = movedRefs.filter(([ref, sha]) => ref !== "HEAD" || !movedRefs.some(([r, s]) => r !== "HEAD" && s === sha));
  if (moved.length === 0) return [];
  const unseen = (why: string) => [`the command moved ${moved.length === 1 ? "a ref" : `${moved.length} refs`} (${moved.slice(0, 3).map(([r]) => shownRef(r)).join(", ")}${moved.length > 3 ? ", …" : ""}) and bunker could not see what ${moved.length === 1 ? "it holds" : "they hold"} (${why}): review ${moved.length === 1 ? "it" : "them"} before you push (git --no-replace-objects log --stat ${shellQuote(moved[0]![0])})`];
  const oldIds = [...new Set(Object.values(before.refs))];
  const newIds = [...new Set(moved.map(([, sha]) => sha))];
  const commits = commitsOf(before.gitDir, [...new Set([...oldIds, ...newIds])]);
  if (!commits) return unseen("git could not read the objects they name");
  const oldCommits = [...new Set(oldIds.flatMap((id) => commits.get(id) ?? []))];
  const newCommits = new Map<string, string[]>();
  for (const [ref, sha] of moved) {
    const c = commits.get(sha);
    if (c) newCommits.set(c, [...(newCommits.get(c) ?? []), ref]);
  }
  const found: { ref: string; tip: string; path: string }[] = [];
  if (newCommits.size > 0) {
    // The commits no ref had before, with the tip each was reached from (%S), merges against each parent (-m).
    const input = [...[...newCommits.keys()].map((c) => `${c}\n`), ...oldCommits.map((c) => `^${c}\n`)].join("");
    const log = git(before.gitDir, ["log", "-m", "--no-renames", "--no-textconv", "--no-ext-diff", "--format=%x01%S", "--name-only", "-z", "--stdin"], undefined, input);
    if (log === null) return unseen("git log failed");
    for (const record of log.split("\x01").slice(1)) {
      const [source = "", ...paths] = record.split("\0");
      const refs = newCommits.get(source) ?? [];
      for (const path of paths.map((p) => p.replace(/^\n/, "")).filter(Boolean)) for (const ref of refs) found.push({ ref, tip: source, path });
    }
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

/**
 * After the command: the replace refs it made or re-aimed are removed. A replace ref has every local look at an object
 * show another (`git replace EVIL INNOCENT`: git show, diff, log -p and blame show the innocent text) while a push
 * sends the real one (red team 10 F06), so the review bunker asks for would show the wrong thing. Said, with how to
 * make it again should the person want it.
 */
export function replaceRefsMade(before: RefsBefore): string[] {
  if (before.refsStamp && refsStamp(before.gitDir) === before.refsStamp) return [];
  const now = refsOf(before.gitDir);
  if (!now) return [];
  return Object.entries(now.refs).flatMap(([ref, sha]) => {
    if (!ref.startsWith("refs/replace/") || before.refs[ref] === sha) return [];
    const object = ref.slice("refs/replace/".length);
    const shown = `git would have shown the object ${object.slice(0, 12)} as ${sha.slice(0, 12)} (git show, diff, log -p, blame) while a push sends the real one`;
    const removed = git(before.gitDir, ["update-ref", "-d", ref, sha]) !== null;
    // The refs changed: the rest of the look takes their stamp anew.
    stamps?.clear();
    return [removed
      ? `the command made the replace ref ${shellQuote(ref)}: ${shown}. bunker removed it (to make it again: git replace ${object} ${sha})`
      : `the command made the replace ref ${shellQuote(ref)}: ${shown}. bunker could not remove it: git update-ref -d ${shellQuote(ref)}`];
  });
}

function shownRef(ref: string): string {
  return ref === "HEAD" ? "HEAD" : ref.replace(/^refs\/(heads|tags)\//, "");
}

/** The same hardened git for another question about history (denied-history.ts: whether it holds a denied file). */
export { git as hostGit };
