// The person's repository for tests of what a git hook runs at their next commit: git on the host as their shell
// runs it (no system config, an identity), and the repository committed as they left it (hooks bypassed).
import { expect } from "bun:test";

/** The person's git on the host: its exit code. */
export function hostGit(root: string, home: string, args: string[]): number {
  const env = { PATH: process.env.PATH ?? "", HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@b", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@b" };
  return Bun.spawnSync(["git", ...args], { cwd: root, env, stdout: "pipe", stderr: "pipe", timeout: 20_000 }).exitCode ?? -1;
}

/** `root` made a repository with everything in it committed, `hooksPath` as its core.hooksPath when given. */
export function committedRepo(root: string, home: string, hooksPath?: string): void {
  hostGit(root, home, ["init", "-q", "."]);
  if (hooksPath) hostGit(root, home, ["config", "core.hooksPath", hooksPath]);
  hostGit(root, home, ["add", "-A"]);
  expect(hostGit(root, home, ["commit", "-qm", "init", "--no-verify"])).toBe(0);
}
