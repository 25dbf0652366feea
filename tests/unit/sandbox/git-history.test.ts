import { expect, test } from "bun:test";
import { join } from "node:path";
import { committedRunsLater, hiddenFromStatus, historyBefore, newlyHidden, refsOf } from "../../../src/sandbox/git-history.ts";
import { tempDir } from "../../support/context.ts";

const git = (cwd: string, ...args: string[]) => Bun.spawnSync(["git", "-c", "user.email=a@b", "-c", "user.name=A", ...args], { cwd, stdout: "pipe" }).stdout.toString();
const ciWhy = (p: string) => (p.includes("/.github/workflows/") ? "runs in CI" : null);

test("the refs before, then the runs-later files only the commits new to a moved or made ref change, each once", async () => {
  const root = tempDir("bunker-history-");
  git(root, "init", "-q", "-b", "main");
  await Bun.write(join(root, "a"), "a\n");
  await Bun.write(join(root, ".github/workflows/old.yml"), "old\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "first");
  const before = refsOf(join(root, ".git"))!;
  expect(Object.keys(before.refs).sort()).toEqual(["HEAD", "refs/heads/main"]);
  expect(committedRunsLater(root, before, ciWhy)).toEqual([]);
  // An ordinary commit, then a branch with a workflow: only the branch's new commit is said.
  await Bun.write(join(root, "a"), "b\n");
  git(root, "commit", "-qam", "second");
  git(root, "checkout", "-qb", "side");
  await Bun.write(join(root, ".github/workflows/new.yml"), "new\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "third");
  const lines = committedRunsLater(root, before, ciWhy);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith(".github/workflows/new.yml was committed by the command to side: runs in CI. bunker does not set history aside");
  // Nothing git can read (not a repository): nothing said.
  expect(refsOf(join(tempDir("bunker-history-"), ".git"))).toBeNull();
});

test("the tracked files hidden from git status: those hidden since the refs were read, one line, the first five named", async () => {
  const root = tempDir("bunker-history-hidden-");
  git(root, "init", "-q", "-b", "main");
  for (let i = 0; i < 8; i++) await Bun.write(join(root, `f${i} x`), "a\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "first");
  const gitDir = join(root, ".git");
  git(root, "update-index", "--skip-worktree", "f0 x");
  const before = { ...refsOf(gitDir)!, hidden: hiddenFromStatus(gitDir, root)! };
  expect(before.hidden).toEqual(["f0 x"]);
  expect(newlyHidden(root, before)).toEqual([]);
  git(root, "update-index", "--assume-unchanged", "f1 x");
  expect(newlyHidden(root, before)).toEqual(["the command hid a tracked file from git status and git diff (their skip-worktree or assume-unchanged bit is set): 'f1 x'. A change there would not show when you review the work or go into git commit -a; to show it again: git update-index --no-skip-worktree --no-assume-unchanged 'f1 x'"]);
  for (let i = 2; i < 8; i++) git(root, "update-index", "--skip-worktree", `f${i} x`);
  const [line] = newlyHidden(root, before);
  expect(line).toStartWith("the command hid 7 tracked files from git status and git diff");
  expect(line).toEndWith("'f1 x' 'f2 x' 'f3 x' 'f4 x' 'f5 x' … (git ls-files -v | grep '^[a-zS]' lists them all)");
  // Not read before (git could not say): nothing to compare with, nothing said.
  expect(newlyHidden(root, { ...before, hidden: undefined })).toEqual([]);
});

/** How many times `fn` starts a process. */
function spawnsIn(fn: () => void): number {
  const real = Bun.spawnSync;
  let n = 0;
  Bun.spawnSync = ((...args: Parameters<typeof Bun.spawnSync>) => {
    n++;
    return real(...args);
  }) as typeof Bun.spawnSync;
  try {
    fn();
  } finally {
    Bun.spawnSync = real;
  }
  return n;
}

test("a command that touches no ref and no index costs no git before or after it; one that commits is still seen", async () => {
  const root = tempDir("bunker-history-cost-");
  git(root, "init", "-q", "-b", "main");
  await Bun.write(join(root, "a"), "a\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "first");
  const gitDir = join(root, ".git");
  historyBefore(gitDir, root);
  // The next command's look before and after: git already said, and nothing it reads changed.
  let before = historyBefore(gitDir, root)!;
  const cost = spawnsIn(() => {
    before = historyBefore(gitDir, root)!;
    expect(committedRunsLater(root, before, ciWhy)).toEqual([]);
    expect(newlyHidden(root, before)).toEqual([]);
  });
  expect(cost).toBe(0);
  expect(before.refs.HEAD).toBe(before.refs["refs/heads/main"]!);
  // A commit of a workflow, hidden from git status: said, with git asked again.
  await Bun.write(join(root, ".github/workflows/w.yml"), "on: push\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "ci");
  git(root, "update-index", "--skip-worktree", ".github/workflows/w.yml");
  const [line] = committedRunsLater(root, before, ciWhy);
  expect(line).toStartWith(".github/workflows/w.yml was committed by the command to main, and git status does not show it");
  expect(newlyHidden(root, before)[0]).toStartWith("the command hid a tracked file from git status");
});

test("a repository with no commit yet has refs git can say (none), not a failure", () => {
  const root = tempDir("bunker-history-empty-");
  git(root, "init", "-q", "-b", "main");
  expect(refsOf(join(root, ".git"))?.refs).toEqual({});
});
