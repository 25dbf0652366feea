// Repositories at any depth: found, kept read-only, and disarmed when a
// command creates one. (The real sandbox runs these in escape.test.ts.)
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { disarmNewRepositories, findGitSites, gitGuard } from "../../../src/sandbox/git-guard.ts";
import { tempDir } from "../../support/context.ts";

function repoTree(): string {
  const root = tempDir("bunker-gitguard-");
  for (const d of [".git/hooks", "sub/.git/hooks", "a/b/c/deep/.git", "node_modules/dep/.git", ".bare/hooks", "wt", "hooks-here"]) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, ".git/config"), "[core]\n\thooksPath = hooks-here\n[include]\n\tpath = ../shared.gitconfig\n");
  writeFileSync(join(root, "sub/.git/config"), "[core]\n\thooksPath = missing-hooks\n");
  writeFileSync(join(root, "wt/.git"), "gitdir: ../.bare\n");
  symlinkSync("/", join(root, "slash")); // never followed
  return root;
}

describe("finding repositories", () => {
  test("every .git at any depth (directories and gitdir files), not through links, not inside a .git", () => {
    const root = repoTree();
    const sites = findGitSites(root).map((s) => `${s.path.slice(root.length + 1)}:${s.kind}`).sort();
    expect(sites).toEqual([".git:dir", "a/b/c/deep/.git:dir", "node_modules/dep/.git:dir", "sub/.git:dir", "wt/.git:file"]);
  });

  test("a repository made since the last look is found (directories re-read when their ctime changes)", () => {
    const root = repoTree();
    findGitSites(root);
    mkdirSync(join(root, "a/b/later/.git"), { recursive: true });
    expect(findGitSites(root).map((s) => s.path)).toContain(join(root, "a/b/later/.git"));
  });

  test("read-only: each .git, a gitdir file's target, hooksPath folders and included files inside the workspace", () => {
    const root = repoTree();
    const guard = gitGuard(root, findGitSites(root));
    expect(guard.readOnly).toEqual(
      [".bare", ".git", "a/b/c/deep/.git", "hooks-here", "node_modules/dep/.git", "sub/.git", "wt/.git"].map((p) => join(root, p)),
    );
    // Named but missing: a command that creates them is undone after it.
    expect(guard.missingHooks).toEqual([join(root, "sub/missing-hooks")]);
    expect(guard.missingIncludes).toEqual([join(root, "shared.gitconfig")]);
  });

  test("a relative core.hooksPath in git's global config counts in every repository", () => {
    const root = repoTree();
    const global = join(tempDir(), "gitconfig");
    writeFileSync(global, "[core]\n\thooksPath = .githooks\n");
    mkdirSync(join(root, "sub/.githooks"));
    const guard = gitGuard(root, findGitSites(root), [global]);
    expect(guard.readOnly).toContain(join(root, "sub/.githooks"));
    expect(guard.missingHooks).toContain(join(root, ".githooks"));
  });
});

describe("disarming what a command created", () => {
  test("a new repository: hooks renamed, program-running keys commented out, and one line says so", () => {
    const root = repoTree();
    const before = findGitSites(root);
    mkdirSync(join(root, "new/.git/hooks"), { recursive: true });
    writeFileSync(join(root, "new/.git/hooks/pre-commit"), "#!/bin/sh\nevil\n");
    writeFileSync(join(root, "new/.git/hooks/pre-commit.sample"), "sample\n");
    writeFileSync(join(root, "new/.git/config"), "[core]\n\tbare = false\n\tfsmonitor = evil\n[remote \"origin\"]\n\turl = x\n[core] hooksPath = elsewhere\n");
    const lines = disarmNewRepositories(root, before, findGitSites(root));
    expect(lines).toEqual([
      "bunker disarmed the git repository the command created at new/.git (hooks renamed to NAME.bunker-disarmed: pre-commit; core.fsmonitor, core.hookspath commented out in config): the person's git there will not run what the command planted.",
    ]);
    expect(existsSync(join(root, "new/.git/hooks/pre-commit"))).toBe(false);
    expect(existsSync(join(root, "new/.git/hooks/pre-commit.bunker-disarmed"))).toBe(true);
    expect(existsSync(join(root, "new/.git/hooks/pre-commit.sample"))).toBe(true);
    expect(readFileSync(join(root, "new/.git/config"), "utf8")).toBe(
      "[core]\n\tbare = false\n# disarmed by bunker: \tfsmonitor = evil\n[remote \"origin\"]\n\turl = x\n# disarmed by bunker: [core] hooksPath = elsewhere\n",
    );
  });

  test("a .git file pointing at a folder the command filled: that folder is disarmed", () => {
    const root = repoTree();
    const before = findGitSites(root);
    mkdirSync(join(root, "x"));
    mkdirSync(join(root, "evil/hooks"), { recursive: true });
    writeFileSync(join(root, "x/.git"), "gitdir: ../evil\n");
    writeFileSync(join(root, "evil/hooks/post-checkout"), "boom");
    expect(disarmNewRepositories(root, before, findGitSites(root))[0]).toContain("created at x/.git (hooks renamed to NAME.bunker-disarmed: post-checkout of evil)");
  });

  test("the person's repositories are left alone, and a worktree's .git file pointing into them too", () => {
    const root = repoTree();
    writeFileSync(join(root, ".git/hooks/pre-commit"), "theirs");
    const before = findGitSites(root);
    mkdirSync(join(root, "wt2"));
    writeFileSync(join(root, "wt2/.git"), "gitdir: ../.git\n");
    // Nothing was checked there (it is their own repository), so nothing is said to be disarmed.
    expect(disarmNewRepositories(root, before, findGitSites(root))).toEqual([]);
    expect(readFileSync(join(root, ".git/hooks/pre-commit"), "utf8")).toBe("theirs");
    expect(disarmNewRepositories(root, before, before)).toEqual([]);
  });

  test("a hooks folder or an included file a config names, created by the command, is disarmed", () => {
    const root = repoTree();
    const before = findGitSites(root);
    const guard = gitGuard(root, before);
    mkdirSync(join(root, "sub/missing-hooks"));
    writeFileSync(join(root, "sub/missing-hooks/pre-push"), "evil");
    writeFileSync(join(root, "shared.gitconfig"), "[core]\n\tfsmonitor = evil\n");
    expect(disarmNewRepositories(root, before, findGitSites(root), guard)).toEqual([
      "bunker disarmed the hooks folder sub/missing-hooks the command created (a git config names it core.hooksPath): hooks renamed to NAME.bunker-disarmed: pre-push.",
      "bunker disarmed shared.gitconfig, which the command created and a git config includes: core.fsmonitor commented out in config.",
    ]);
  });
});

describe("what else git takes for a repository", () => {
  test("a bare repository (HEAD, objects, refs), one inside it, and a .git link are sites; an object store is not entered", () => {
    const root = tempDir("bunker-gitguard-bare-");
    for (const d of ["b1/objects/ab/.git", "b1/refs", "b1/x/objects", "b1/x/refs", "s3"]) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, "b1/HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(root, "b1/x/HEAD"), "ref: refs/heads/main\n");
    symlinkSync("../b1", join(root, "s3/.git"));
    expect(findGitSites(root).map((s) => `${s.path.slice(root.length + 1)}:${s.kind}`).sort()).toEqual(["b1/x:bare", "b1:bare", "s3/.git:link"]);
    // The bare ones are kept read-only; the link is not mounted over (it is set aside when a command makes one).
    expect(gitGuard(root, findGitSites(root)).readOnly).toEqual([join(root, "b1"), join(root, "b1/x")]);
  });
});
