import { expect, test } from "bun:test";
import { join } from "node:path";
import { committedRunsLater, refsOf } from "../../../src/sandbox/git-history.ts";
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
