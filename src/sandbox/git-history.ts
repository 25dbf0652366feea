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
import { indexStamp, refsStamp } from "./git-stamps.ts";

/** A granted git directory's refs before a command: ref name → commit (HEAD included). */
export interface RefsBefore {
  gitDir: string;
  refs: Record<string, string>;
  /** Tracked paths git status did not look at before it (hiddenFromStatus), when read. */
  hidden?: string[];
  /** What git read the refs and the index from, as a digest (git-stamps.ts): the same after, nothing to ask git. */
  refsStamp?: string | null;
  indexStamp?: string | null;
}

/**
 * The last answer git gave for each git directory, with the stamp of what it read: the same stamp at the next
 * look (the next command's before, or this command's after when it touched nothing) needs no git. Taken only
 * when the stamp held while git ran (nothing changed under it). Bounded: a session sees a handful of repositories.
 */
const answers = new Map<string, { stamp: string; value: unknown }>();
const MAX_ANSWERS = 64;

function remembered<T>(key: string, stampOf: () => string | null, ask: () => T | null): { value: T | null; stamp: string | null } {
  const stamp = stampOf();
  const hit = stamp === null ? undefined : answers.get(key);
  if (hit && hit.stamp === stamp) return { value: hit.value as T, stamp };
  const value = ask();
  // Changed while git read it: this answer stands for no stamp.
  if (stamp === null || value === null || stampOf() !== stamp) return { value, stamp: null };
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
  });
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
  return { ...refs, ...(hidden.value ? { hidden: hidden.value } : {}), indexStamp: hidden.stamp };
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
function git(gitDir: string, args: string[], worktree?: string, okEmpty = false): string | null {
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
  const r = Bun.spawnSync([program, ...hardening, ...args], { env, stdout: "pipe", stderr: "ignore", timeout: 10_000 });
  if (r.exitCode === 0) return r.stdout.toString();
  // `git show-ref` finds nothing in a repository with no commits yet: exit 1, nothing said.
  return okEmpty && r.exitCode === 1 && r.stdout.length === 0 ? "" : null;
}

/** Every ref of `gitDir` and what HEAD points at; null when git cannot say (no git, not a repository). */
export function refsOf(gitDir: string): RefsBefore | null {
  const got = remembered(`refs\0${gitDir}`, () => refsStamp(gitDir), () => {
    const out = git(gitDir, ["show-ref", "--head"], undefined, true);
    if (out === null) return null;
    const refs: Record<string, string> = {};
    for (const line of out.split("\n")) {
      const sp = line.indexOf(" ");
      if (sp > 0) refs[line.slice(sp + 1)] = line.slice(0, sp);
    }
    return refs;
  });
  return got.value ? { gitDir, refs: got.value, refsStamp: got.stamp } : null;
}

/**
 * After the command: for each ref that moved or was made, the runs-later files (`laterWhy`: why a path is one, or
 * null) its new commits change; one line each (at most `max`), naming the ref and how to review it.
 */
export function committedRunsLater(root: string, before: RefsBefore, laterWhy: (path: string) => string | null, max = 20): string[] {
  // Nothing git reads refs from changed: nothing moved, no git asked.
  if (before.refsStamp && refsStamp(before.gitDir) === before.refsStamp) return [];
  const now = refsOf(before.gitDir);
  if (!now) return [];
  const movedRefs = Object.entries(now.refs).filter(([ref, sha]) => before.refs[ref] !== sha && !ref.startsWith("refs/bunker-"));
  // HEAD moved with the branch it names: said once, by the branch.
  const moved = movedRefs.filter(([ref, sha]) => ref !== "HEAD" || !movedRefs.some(([r, s]) => r !== "HEAD" && s === sha));
  if (moved.length === 0) return [];
  const old = [...new Set(Object.values(before.refs))];
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const [ref, sha] of moved) {
    // The files the commits new to this ref change (none of them reachable from any ref before the command).
    const log = git(before.gitDir, ["log", "--no-renames", "--no-textconv", "--no-ext-diff", "--format=", "--name-only", "-z", sha, "--not", ...old, "--"]);
    if (log === null) continue;
    for (const path of log.split("\0").map((p) => p.trim()).filter(Boolean)) {
      const key = `${ref}\0${path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const why = laterWhy(`${root}/${path}`);
      if (!why) continue;
      const name = ref === "HEAD" ? "HEAD" : ref.replace(/^refs\/(heads|tags)\//, "");
      const hidden = (hiddenNow(before.gitDir, root).value ?? []).includes(path) ? ", and git status does not show it (its skip-worktree or assume-unchanged bit is set)" : "";
      lines.push(`${path} was committed by the command to ${name}${hidden}: ${why}. bunker does not set history aside: review it before you push (git show ${sha.slice(0, 12)} -- ${path})`);
      if (lines.length >= max) return lines;
    }
  }
  return lines;
}
