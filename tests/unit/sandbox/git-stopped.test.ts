// A stopped operation a command leaves under --allow-write=.git (git-stopped.ts, red team 10 F09): set aside when the
// command started or changed it, left when it only carried the person's own on. The real sandbox and the person's
// own git run it in tests/e2e/git-grant.test.ts.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stoppedOperations, stoppedOperationsAfter } from "../../../src/sandbox/git-stopped.ts";
import { tempDir } from "../../support/context.ts";

function gitDir(): { root: string; git: string } {
  const root = tempDir("bunker-git-stopped-");
  const git = join(root, ".git");
  mkdirSync(join(git, "worktrees/w"), { recursive: true });
  return { root, git };
}

function write(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

test("a rebase, cherry-pick, am, merge autostash or bisect the command left stopped is set aside whole, saying what continuing would do", () => {
  const { root, git } = gitDir();
  const wt = join(git, "worktrees/w");
  const before = stoppedOperations([git, wt]);
  write(git, { "rebase-merge/git-rebase-todo": "break\npick 81ee3b0 tests: quieter hook\n# a comment\n", "rebase-merge/head-name": "refs/heads/main\n", "rebase-apply/0001": "From x\n", "BISECT_START": "81ee3b0\n" });
  write(wt, { "sequencer/todo": "pick 1 one\npick 2 two\npick 3 three\npick 4 four\n", MERGE_AUTOSTASH: "9f9f\n" });
  const lines = stoppedOperationsAfter(root, [git, wt], before);
  expect(lines).toHaveLength(5);
  expect(lines[0]).toBe(
    "bunker set aside .git/rebase-merge, a stopped rebase the command left under --allow-write=.git (git rebase --continue, --skip or --abort would carry it out outside the sandbox, writing the commits it names into your working tree; next in it: break | pick 81ee3b0 tests: quieter hook; HEAD stays where the command left it): it is now .git/rebase-merge.bunker-set-aside; to restore it after checking it: mv .git/rebase-merge.bunker-set-aside .git/rebase-merge",
  );
  expect(lines[1]).toStartWith("bunker set aside .git/rebase-apply, a stopped git am (or rebase --apply) the command left under --allow-write=.git (git am --continue");
  expect(lines[2]).toStartWith("bunker set aside .git/BISECT_START, a bisect's start the command left under --allow-write=.git (git bisect reset would carry it out");
  expect(lines[3]).toContain(".git/worktrees/w/sequencer, a stopped cherry-pick or revert the command left");
  expect(lines[3]).toContain("next in it: pick 1 one | pick 2 two | pick 3 three (and 1 more)");
  expect(lines[4]).toStartWith("bunker set aside .git/worktrees/w/MERGE_AUTOSTASH, a merge's autostash the command left");
  for (const p of ["rebase-merge", "rebase-apply", "BISECT_START", "worktrees/w/sequencer", "worktrees/w/MERGE_AUTOSTASH"]) {
    expect(existsSync(join(git, p))).toBe(false);
    expect(existsSync(join(git, `${p}.bunker-set-aside`))).toBe(true);
  }
  expect(readFileSync(join(git, "rebase-merge.bunker-set-aside/git-rebase-todo"), "utf8")).toStartWith("break\n");
});

test("the person's own stopped rebase that a command only carries on is left theirs; one it adds to or re-aims is set aside", () => {
  const { root, git } = gitDir();
  const own = { "rebase-merge/git-rebase-todo": "pick 1 one\npick 2 two\nexec make test\n", "rebase-merge/orig-head": "aaaa\n", "rebase-merge/head-name": "refs/heads/feat\n", "rebase-merge/done": "" };
  write(git, own);
  // Carried on: the done line leaves the todo, and progress files change.
  let before = stoppedOperations([git]);
  write(git, { "rebase-merge/git-rebase-todo": "# comment git keeps\npick 2 two\nexec make test\n", "rebase-merge/done": "pick 1 one\n", "rebase-merge/stopped-sha": "1\n", "rebase-merge/message": "two\n" });
  expect(stoppedOperationsAfter(root, [git], before)).toEqual([]);
  // Nothing done at all: left.
  expect(stoppedOperationsAfter(root, [git], stoppedOperations([git]))).toEqual([]);
  // A line added, even after those the person had: set aside.
  before = stoppedOperations([git]);
  write(git, { "rebase-merge/git-rebase-todo": "pick 2 two\nexec make test\npick 666 evil\n" });
  expect(stoppedOperationsAfter(root, [git], before)[0]).toStartWith(
    "bunker set aside .git/rebase-merge, a stopped rebase whose .git/rebase-merge/git-rebase-todo the command changed under --allow-write=.git",
  );
  // The commit --abort goes back to, re-aimed: set aside.
  write(git, own);
  before = stoppedOperations([git]);
  write(git, { "rebase-merge/orig-head": "6666\n" });
  expect(stoppedOperationsAfter(root, [git], before)[0]).toContain("whose .git/rebase-merge/orig-head the command changed");
  // A file git obeys that was not there (a strategy of the command's naming): set aside.
  write(git, own);
  before = stoppedOperations([git]);
  write(git, { "rebase-merge/strategy": "evil\n" });
  expect(stoppedOperationsAfter(root, [git], before)[0]).toContain("whose .git/rebase-merge/strategy the command changed");
  // The todo made a link (to what says the same): set aside unread.
  write(git, own);
  writeFileSync(join(root, "same"), own["rebase-merge/git-rebase-todo"]);
  before = stoppedOperations([git]);
  unlinkSync(join(git, "rebase-merge/git-rebase-todo"));
  symlinkSync(join(root, "same"), join(git, "rebase-merge/git-rebase-todo"));
  expect(stoppedOperationsAfter(root, [git], before)[0]).toContain("whose .git/rebase-merge/git-rebase-todo the command changed");
});
