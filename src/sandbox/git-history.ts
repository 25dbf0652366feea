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

/** A granted git directory's refs before a command: ref name → commit (HEAD included). */
export interface RefsBefore {
  gitDir: string;
  refs: Record<string, string>;
}

/** git on the host, reading history only: no config but the repository's own (read-only to commands), nothing run. */
function git(gitDir: string, args: string[], worktree?: string): string | null {
  const PATH = process.env.PATH ?? "/usr/bin:/bin";
  const program = hostProgram("git", PATH, []);
  if (!program) return null;
  const env: Record<string, string> = { PATH, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_DIR: gitDir, GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C" };
  if (worktree) env.GIT_WORK_TREE = worktree;
  const r = Bun.spawnSync([program, "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", ...args], { env, stdout: "pipe", stderr: "ignore", timeout: 10_000 });
  return r.exitCode === 0 ? r.stdout.toString() : null;
}

/** Every ref of `gitDir` and what HEAD points at; null when git cannot say (no git, not a repository). */
export function refsOf(gitDir: string): RefsBefore | null {
  const out = git(gitDir, ["for-each-ref", "--format=%(objectname) %(refname)"]);
  if (out === null) return null;
  const refs: Record<string, string> = {};
  for (const line of out.split("\n")) {
    const sp = line.indexOf(" ");
    if (sp > 0) refs[line.slice(sp + 1)] = line.slice(0, sp);
  }
  const head = git(gitDir, ["rev-parse", "--verify", "-q", "HEAD"])?.trim();
  if (head) refs.HEAD = head;
  return { gitDir, refs };
}

/**
 * After the command: for each ref that moved or was made, the runs-later files (`laterWhy`: why a path is one, or
 * null) its new commits change; one line each (at most `max`), naming the ref and how to review it.
 */
export function committedRunsLater(root: string, before: RefsBefore, laterWhy: (path: string) => string | null, max = 20): string[] {
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
    const log = git(before.gitDir, ["log", "--no-renames", "--format=", "--name-only", "-z", sha, "--not", ...old, "--"]);
    if (log === null) continue;
    for (const path of log.split("\0").map((p) => p.trim()).filter(Boolean)) {
      const key = `${ref}\0${path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const why = laterWhy(`${root}/${path}`);
      if (!why) continue;
      const name = ref === "HEAD" ? "HEAD" : ref.replace(/^refs\/(heads|tags)\//, "");
      const hidden = /^[Sa-z] /.test(git(before.gitDir, ["ls-files", "-v", "--", path], root) ?? "") ? ", and git status does not show it (its skip-worktree or assume-unchanged bit is set)" : "";
      lines.push(`${path} was committed by the command to ${name}${hidden}: ${why}. bunker does not set history aside: review it before you push (git show ${sha.slice(0, 12)} -- ${path})`);
      if (lines.length >= max) return lines;
    }
  }
  return lines;
}
