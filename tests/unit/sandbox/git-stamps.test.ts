import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync, utimesSync, statSync, writeFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { indexStamp, refsStamp } from "../../../src/sandbox/git-stamps.ts";
import { tempDir } from "../../support/context.ts";

const git = (cwd: string, ...args: string[]) => Bun.spawnSync(["git", "-c", "user.email=a@b", "-c", "user.name=A", ...args], { cwd, stdout: "pipe" }).stdout.toString();

function repo(): { root: string; gitDir: string } {
  const root = tempDir("bunker-stamps-");
  git(root, "init", "-q", "-b", "main");
  writeFileSync(join(root, "a"), "a\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "first");
  return { root, gitDir: join(root, ".git") };
}

test("the refs' stamp holds while nothing git reads refs from changes, and moves with any ref, however it was written", () => {
  const { root, gitDir } = repo();
  const first = refsStamp(gitDir);
  expect(first).toMatch(/^[0-9a-f]{64}$/);
  expect(refsStamp(gitDir)).toBe(first);
  git(root, "branch", "side");
  const branched = refsStamp(gitDir);
  expect(branched).not.toBe(first);
  // A ref rewritten in place to another commit of the same length, its times put back: the bytes tell.
  git(root, "commit", "-q", "--allow-empty", "-m", "second");
  const ref = join(gitDir, "refs/heads/side");
  const before = refsStamp(gitDir);
  const st = statSync(ref);
  writeFileSync(ref, git(root, "rev-parse", "HEAD"));
  utimesSync(ref, st.atime, st.mtime);
  expect(statSync(ref).size).toBe(st.size);
  expect(refsStamp(gitDir)).not.toBe(before);
  // Packed, and HEAD detached: both in the stamp.
  const loose = refsStamp(gitDir);
  git(root, "pack-refs", "--all");
  expect(refsStamp(gitDir)).not.toBe(loose);
  const packed = refsStamp(gitDir);
  git(root, "checkout", "-q", "--detach");
  expect(refsStamp(gitDir)).not.toBe(packed);
  // The pseudo-refs a person's git follows (red team 10 F09b): ORIG_HEAD, FETCH_HEAD, a stopped am's abort-safety.
  for (const name of ["ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "rebase-apply/abort-safety"]) {
    const was = refsStamp(gitDir);
    mkdirSync(join(gitDir, "rebase-apply"), { recursive: true });
    writeFileSync(join(gitDir, name), git(root, "rev-parse", "HEAD~1"));
    expect(refsStamp(gitDir)).not.toBe(was);
  }
});

test("no refs' stamp where git may follow a link or wait on a FIFO: git is asked instead", () => {
  const { root, gitDir } = repo();
  const outside = join(tempDir("bunker-stamps-out-"), "ref");
  writeFileSync(outside, readFileSync(join(gitDir, "refs/heads/main")));
  symlinkSync(outside, join(gitDir, "refs/heads/linked"));
  expect(refsStamp(gitDir)).toBeNull();
  rmSync(join(gitDir, "refs/heads/linked"));
  expect(refsStamp(gitDir)).not.toBeNull();
  Bun.spawnSync(["mkfifo", join(gitDir, "refs/heads/fifo")]);
  expect(refsStamp(gitDir)).toBeNull();
});

test("the index's stamp moves when a tracked file is hidden from git status, and with a linked worktree's common config", () => {
  const { root, gitDir } = repo();
  const first = indexStamp(gitDir);
  expect(indexStamp(gitDir)).toBe(first);
  git(root, "update-index", "--skip-worktree", "a");
  expect(indexStamp(gitDir)).not.toBe(first);
  const wt = join(tempDir("bunker-stamps-wt-"), "wt");
  git(root, "worktree", "add", "-q", wt);
  const linked = join(gitDir, "worktrees/wt");
  const before = indexStamp(linked);
  expect(before).not.toBeNull();
  git(root, "config", "core.sparseCheckout", "true");
  expect(indexStamp(linked)).not.toBe(before);
});
