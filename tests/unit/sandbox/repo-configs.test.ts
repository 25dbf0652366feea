// A repository's own config, as commands, read_file and grep are shown it: a token in a remote URL withheld (red team 10's O1).
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configAsShown, gitDirsOfFolder, isRepositoryConfig, repositoryConfigs } from "../../../src/sandbox/repo-configs.ts";
import { tempDir } from "../../support/context.ts";

const git = (cwd: string, ...args: string[]) => Bun.spawnSync(["git", ...args], { cwd, stdout: "pipe", stderr: "pipe" });

test("the configs of a workspace's repository, its worktrees' and submodules', and of a linked worktree's common directory", () => {
  const root = tempDir("bunker-repo-configs-");
  git(root, "init", "-q", "-b", "main");
  git(root, "-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "--allow-empty", "-m", "one");
  const linked = join(tempDir("bunker-repo-configs-wt-"), "wt");
  git(root, "worktree", "add", "-q", linked);
  // Submodules' git directories (a HEAD file each): lib, one nested in it (red team 12's F05), and one named libs/x.
  for (const d of ["lib", "lib/modules/inner", "libs/x"]) {
    mkdirSync(join(root, ".git/modules", d), { recursive: true });
    writeFileSync(join(root, ".git/modules", d, "HEAD"), "ref: refs/heads/main\n");
  }
  // The linked worktree's own submodule (reviewer's R12-03).
  mkdirSync(join(root, ".git/worktrees/wt/modules/libs"), { recursive: true });
  writeFileSync(join(root, ".git/worktrees/wt/modules/libs/HEAD"), "ref: refs/heads/main\n");
  const gitDir = join(root, ".git");
  expect(gitDirsOfFolder(root)).toEqual([gitDir]);
  expect(repositoryConfigs(gitDirsOfFolder(root)).sort()).toEqual([
    join(gitDir, "config"), join(gitDir, "config.worktree"),
    join(gitDir, "modules/lib/config"), join(gitDir, "modules/lib/config.worktree"),
    join(gitDir, "modules/lib/modules/inner/config"), join(gitDir, "modules/lib/modules/inner/config.worktree"),
    join(gitDir, "modules/libs/x/config"), join(gitDir, "modules/libs/x/config.worktree"),
    join(gitDir, "worktrees/wt/config"), join(gitDir, "worktrees/wt/config.worktree"),
    join(gitDir, "worktrees/wt/modules/libs/config"), join(gitDir, "worktrees/wt/modules/libs/config.worktree"),
  ].sort());
  // A linked worktree: the git directory its .git file names, and the common one whose config holds the remotes.
  expect(gitDirsOfFolder(linked)).toEqual([join(gitDir, "worktrees/wt"), gitDir]);
  expect(gitDirsOfFolder(tempDir("bunker-repo-configs-none-"))).toEqual([]);
  expect(isRepositoryConfig(join(gitDir, "config"))).toBe(true);
  expect(isRepositoryConfig(join(gitDir, "worktrees/wt/config.worktree"))).toBe(true);
  expect(isRepositoryConfig(join(root, "config"))).toBe(false);
});

test("read_file's and grep's text: a repository's config less its credentials, with a first line saying so; any other file as it is", () => {
  const root = tempDir("bunker-repo-configs-shown-");
  git(root, "init", "-q");
  const text = '[remote "origin"]\n\turl = https://bob:ghp_0123456789abcdefABCDEF0123456789abcd@github.com/bob/app.git\n';
  writeFileSync(join(root, ".git/config"), text);
  expect(configAsShown(join(root, ".git/config"), text)).toEqual({
    text: '; bunker withheld a credential in this file (commands are shown the same copy)\n[remote "origin"]\n; bunker withheld the credential in the URL below\n\turl = https://github.com/bob/app.git\n',
    withheld: 1,
  });
  expect(configAsShown(join(root, "notes.txt"), text)).toEqual({ text, withheld: 0 });
  expect(configAsShown(join(root, ".git/config"), "[core]\n\tbare = false\n")).toEqual({ text: "[core]\n\tbare = false\n", withheld: 0 });
});
