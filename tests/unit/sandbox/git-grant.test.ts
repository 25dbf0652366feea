// What --allow-write=.git keeps read-only (git-grant.ts), and what the walk after sets aside. The real sandbox
// runs it in tests/e2e/git-grant.test.ts.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { grantedGit, grantedGitAfter, type GrantedGit } from "../../../src/sandbox/git-grant.ts";
import { sandboxMounts, shownAs } from "../../../src/sandbox/spec.ts";
import { tempDir } from "../../support/context.ts";

/** grantedGit's answer where it is not refused (few git directories). */
function granted(gitDirs: string[], within: string[]): GrantedGit {
  const g = grantedGit(gitDirs, within);
  if ("refusal" in g) throw new Error(g.refusal);
  return g;
}

function repo(): { root: string; git: string } {
  const root = tempDir("bunker-git-grant-");
  const git = join(root, ".git");
  for (const d of ["objects", "refs", "info", "worktrees/w", "modules/libs/a/hooks"]) mkdirSync(join(git, d), { recursive: true });
  for (const f of ["HEAD", "config", "worktrees/w/HEAD", "worktrees/w/commondir", "modules/libs/a/HEAD", "modules/libs/a/config"]) writeFileSync(join(git, f), "x\n");
  mkdirSync(join(root, "githooks"));
  symlinkSync("../githooks", join(git, "hooks"));
  return { root, git };
}

test("config, info, commondir and hooks stay read-only, in submodules' git directories too, and a linked worktree's git directory whole (red team 12's F15); history is writable", () => {
  const { root, git } = repo();
  const g = granted([git], [root]);
  expect(g.gitDirs).toEqual([git]);
  expect(g.readOnly.sort()).toEqual(
    [join(git, "config"), join(git, "info"), join(root, "githooks"), join(git, "worktrees/w"), join(git, "modules/libs/a/config"), join(git, "modules/libs/a/hooks")].sort(),
  );
  // Folders not there get a read-only stand-in; files not there are watched.
  expect(g.standIns).not.toContain(join(git, "worktrees/w/hooks"));
  expect(g.standIns).toContain(join(git, "modules/libs/a/info"));
  expect(g.absent).toContain(join(git, "commondir"));
  expect(g.absent).toContain(join(git, "config.worktree"));
  expect(g.links).toEqual({ [join(git, "hooks")]: join(root, "githooks") });

  const mounts = sandboxMounts({ root, allowNet: false, gitWritable: true, writable: [], grantedGit: g, system: [] }, "linux");
  expect(mounts).toContainEqual({ kind: "rw", path: git });
  for (const p of ["config", "info/exclude", "modules/libs/a/hooks/pre-commit"]) expect(shownAs(mounts, join(git, p))).toBe("ro");
  expect(shownAs(mounts, join(root, "githooks/pre-commit"))).toBe("ro");
  expect(shownAs(mounts, join(git, "worktrees/w/hooks/pre-commit"))).toBe("ro");
  expect(shownAs(mounts, join(git, "worktrees/w/HEAD"))).toBe("ro");
  for (const p of ["objects/ab", "refs/heads/main", "index", "HEAD", "COMMIT_EDITMSG", "worktrees/new/HEAD"]) expect(shownAs(mounts, join(git, p))).toBe("rw");
});

test("after: a commondir or config.worktree the command created, and a hooks link it re-aimed, are set aside", () => {
  const { root, git } = repo();
  const g = granted([git], [root]);
  expect(grantedGitAfter(root, g)).toEqual([]);
  writeFileSync(join(git, "commondir"), "../../evil\n");
  unlinkSync(join(git, "hooks"));
  mkdirSync(join(root, "evil"));
  symlinkSync("../evil", join(git, "hooks"));
  // A submodule's git directory the command made (hooks and config its own), set aside whole.
  mkdirSync(join(git, "modules/lib/hooks"), { recursive: true });
  writeFileSync(join(git, "modules/lib/HEAD"), "ref: refs/heads/main\n");
  const lines = grantedGitAfter(root, g);
  expect(lines).toHaveLength(3);
  expect(lines[2]).toStartWith("bunker set aside .git/modules/lib, a git directory the command created under --allow-write=.git");
  expect(existsSync(join(git, "modules/lib"))).toBe(false);
  expect(lines[0]).toStartWith("bunker set aside .git/commondir, which the command created under --allow-write=.git");
  expect(lines[1]).toStartWith("bunker set aside .git/hooks, which the command changed under --allow-write=.git");
  expect(existsSync(join(git, "commondir"))).toBe(false);
  expect(existsSync(join(git, "commondir.bunker-set-aside"))).toBe(true);
  expect(existsSync(join(git, "hooks"))).toBe(false);
});

