// Repositories at any depth: found, kept read-only, and disarmed when a
// command creates one. (The real sandbox runs these in escape.test.ts.)
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { disarmNewRepositories, findGitSites, gitGuard, gitReadsConfig, gitWriteReason, scanRoots, scanWorkspace } from "../../../src/sandbox/git-guard.ts";
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

  test("a file git's global config includes from the workspace (absolute, or ~/ from the person's home) is read-only, or checked after when missing", () => {
    const home = tempDir("bunker-gitguard-home-");
    const root = join(home, "dotfiles");
    mkdirSync(root);
    writeFileSync(join(root, "team.gitconfig"), "[alias]\n\tst = status\n");
    const global = join(home, ".gitconfig");
    writeFileSync(global, `[include]\n\tpath = ${root}/team.gitconfig\n[includeIf "gitdir:~/"]\n\tpath = ~/dotfiles/later.gitconfig\n`);
    const guard = gitGuard(root, findGitSites(root), [global], home);
    expect(guard.readOnly).toEqual([join(root, "team.gitconfig")]);
    expect(guard.missingIncludes).toEqual([join(root, "later.gitconfig")]);
    expect(guard.why.get(join(root, "team.gitconfig"))).toBe("is a file your git config includes: git obeys it in every repository (core.fsmonitor, hooks, aliases run programs)");
    // The write tools ask for it too.
    expect(gitWriteReason(root, join(root, "later.gitconfig"), [global], undefined, home)).toContain("is a file your git config includes");
    // Without the home, a ~/ include is not followed (~user/ never is).
    expect(gitGuard(root, findGitSites(root), [global]).missingIncludes).toEqual([]);
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

  test("the person's repositories are left alone; a new .git file pointing into them (a work tree of theirs the command chose) is set aside", () => {
    const root = repoTree();
    writeFileSync(join(root, ".git/hooks/pre-commit"), "theirs");
    const before = findGitSites(root);
    mkdirSync(join(root, "wt2"));
    writeFileSync(join(root, "wt2/.git"), "gitdir: ../.git\n");
    expect(disarmNewRepositories(root, before, findGitSites(root))).toEqual([
      "bunker set aside the .git file the command created at wt2/.git (it makes wt2 a work tree of your own repository, where git runs what the command put there): it is now wt2/.git.bunker-set-aside; to restore it after checking it: mv wt2/.git.bunker-set-aside wt2/.git",
    ]);
    expect(existsSync(join(root, "wt2/.git"))).toBe(false);
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
      "bunker disarmed shared.gitconfig, which the command created and a git config includes: core.fsmonitor commented out in shared.gitconfig.",
    ]);
  });
});

describe("what else git takes for a repository", () => {
  test("a bare repository (HEAD, objects, refs), one inside it, and a .git link are sites; an object store is entered too (red team 5: a repository planted in objects/)", () => {
    const root = tempDir("bunker-gitguard-bare-");
    for (const d of ["b1/objects/ab/.git", "b1/refs", "b1/x/objects", "b1/x/refs", "s3"]) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, "b1/HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(root, "b1/x/HEAD"), "ref: refs/heads/main\n");
    symlinkSync("../b1", join(root, "s3/.git"));
    expect(findGitSites(root).map((s) => `${s.path.slice(root.length + 1)}:${s.kind}`).sort()).toEqual(["b1/objects/ab/.git:dir", "b1/x:bare", "b1:bare", "s3/.git:link"]);
    // The bare ones are kept read-only, and the repository in the object store; the link is not mounted over (it is set aside when a command makes one).
    expect(gitGuard(root, findGitSites(root)).readOnly).toEqual([join(root, "b1"), join(root, "b1/objects/ab/.git"), join(root, "b1/x")]);
  });
});

describe("the workspace root, re-aimed gitdirs and included configs (red team 3)", () => {
  test("a workspace root shaped like a bare repository is a site: what git reads there is read-only, the root stays writable", () => {
    const root = tempDir("bunker-gitguard-rootbare-");
    for (const d of ["objects", "refs/heads", "src"]) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(root, "config"), "[core]\n\tfsmonitor = evil\n");
    expect(findGitSites(root).map((s) => `${s.path}:${s.kind}`)).toEqual([`${root}:bare`]);
    expect(gitGuard(root, findGitSites(root)).readOnly).toEqual(["HEAD", "config", "objects", "refs"].map((n) => join(root, n)));
  });

  test("a root made bare-shaped by a command is disarmed after it", () => {
    const root = tempDir("bunker-gitguard-rootbare2-");
    const before = findGitSites(root);
    for (const d of ["objects", "refs/heads"]) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(root, "config"), "[core]\n\tbare = false\n\tfsmonitor = evil\n");
    expect(disarmNewRepositories(root, before, findGitSites(root))[0]).toStartWith("bunker disarmed the git repository the command created at . (the workspace folder) (core.fsmonitor commented out in config)");
  });

  /** x/gd and q/.git/gd: folders git takes for repositories (HEAD, objects, refs). */
  const bareAt = (root: string, dir: string, config = "") => {
    for (const d of ["objects", "refs"]) mkdirSync(join(root, dir, d), { recursive: true });
    writeFileSync(join(root, dir, "HEAD"), "ref: refs/heads/main\n");
    if (config) writeFileSync(join(root, dir, "config"), config);
  };

  test("a .git file whose gitdir goes through a link: re-aiming the link makes it a new site, and its new target is disarmed", () => {
    const root = tempDir("bunker-gitguard-relink-");
    bareAt(root, "x/gd");
    mkdirSync(join(root, "sub"));
    symlinkSync("x", join(root, "lnk"));
    writeFileSync(join(root, "sub/.git"), "gitdir: ../lnk/gd\n");
    const before = findGitSites(root);
    expect(before.find((s) => s.kind === "file")?.gitDirs).toEqual([join(root, "x/gd")]);
    bareAt(root, "q/.git/gd", "[core]\n\tfsmonitor = evil\n");
    rmSync(join(root, "lnk"));
    symlinkSync("q/.git", join(root, "lnk"));
    const lines = disarmNewRepositories(root, before, findGitSites(root));
    expect(lines.join("\n")).toContain("core.fsmonitor commented out in config");
    expect(readFileSync(join(root, "q/.git/gd/config"), "utf8")).toContain("# disarmed by bunker: \tfsmonitor = evil");
  });

  test("a repository planted inside a .git folder is found and disarmed (the walk enters .git folders and their object stores)", () => {
    const root = tempDir("bunker-gitguard-inside-");
    const before = findGitSites(root);
    mkdirSync(join(root, "q/.git/objects/gd"), { recursive: true });
    bareAt(root, "q/.git/gd", "[core]\n\tfsmonitor = evil\n");
    bareAt(root, "q/.git/objects/gd");
    const after = findGitSites(root);
    expect(after.map((s) => `${s.path.slice(root.length + 1)}:${s.kind}`).sort()).toEqual(["q/.git/gd:bare", "q/.git/objects/gd:bare", "q/.git:dir"]);
    const lines = disarmNewRepositories(root, before, after).join("\n");
    expect(lines).toContain("created at q/.git/gd (core.fsmonitor commented out in config)");
    expect(lines).toContain("created at q/.git/objects/gd (nothing in it ran programs)");
    // Read-only as part of q/.git, not mounted again.
    expect(gitGuard(root, after).readOnly).toEqual([join(root, "q/.git")]);
  });

  test("included config files are followed at any depth (include and includeIf), and a hooksPath set in one counts", () => {
    const root = tempDir("bunker-gitguard-include-");
    mkdirSync(join(root, ".git"));
    mkdirSync(join(root, "conf"));
    writeFileSync(join(root, ".git/config"), '[includeIf "gitdir:/nowhere/"]\n\tpath = ../conf/a.gitconfig\n');
    writeFileSync(join(root, "conf/a.gitconfig"), "[include]\n\tpath = b.gitconfig\n");
    writeFileSync(join(root, "conf/b.gitconfig"), "[core]\n\thooksPath = .githooks\n");
    const guard = gitGuard(root, findGitSites(root));
    expect(guard.readOnly).toEqual([join(root, ".git"), join(root, "conf/a.gitconfig"), join(root, "conf/b.gitconfig")]);
    expect(guard.missingHooks).toEqual([join(root, ".githooks")]);
  });
});

describe("gitWriteReason: the write tools ask where the sandbox keeps commands out", () => {
  const root = tempDir("bunker-gitguard-writes-");
  for (const d of [".git", "y/gd2/objects", "y/gd2/refs", "sub2", "half/objects"]) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, "y/gd2/HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(root, "sub2/.git"), "gitdir: ../y/gd2\n");
  writeFileSync(join(root, ".git/config"), "[include]\n\tpath = ../.gitconfig\n[core]\n\thooksPath = .githooks\n");
  writeFileSync(join(root, ".gitconfig"), "[alias]\n\tst = status\n");
  writeFileSync(join(root, "half/HEAD"), "ref: refs/heads/main\n");
  test.each([
    ["y/gd2/config", "is in a git directory (y/gd2, a folder git takes for a repository): git obeys its config and runs its hooks"],
    [".gitconfig", "is a file a repository's git config includes: git obeys it as its own config (core.fsmonitor, hooks, aliases run programs)"],
    [".githooks/pre-commit", "is in a hooks folder: git runs the hooks in it (core.hooksPath is .githooks)"],
    ["half/refs/heads/keep", "may make half a folder git takes for a repository (HEAD with objects and refs), whose config and hooks git obeys"],
    ["half/commondir", "may make half a folder git takes for a repository (HEAD with objects and refs), whose config and hooks git obeys"],
    // HEAD asks wherever it is: one apply_patch may write HEAD, objects/ and refs/ into an empty folder at once.
    ["empty/HEAD", "may make empty a folder git takes for a repository (HEAD with objects and refs), whose config and hooks git obeys"],
    ["HEAD", "may make the workspace folder a folder git takes for a repository (HEAD with objects and refs), whose config and hooks git obeys"],
  ])("%s", (path, why) => {
    expect(gitWriteReason(root, join(root, path))).toBe(why);
  });
  test("ordinary files, and objects/ or refs/ where no HEAD is, are not git's", () => {
    for (const p of ["src/a.ts", "refs/x", "objects/y", "half/config", "src/head"]) expect(gitWriteReason(root, join(root, p))).toBeNull();
  });
});

describe("the gaps found attacking the fixes", () => {
  test("a bare-shaped root that was one before: a config or hooks the command creates there is disarmed", () => {
    const root = tempDir("bunker-gitguard-rootknown-");
    for (const d of ["objects", "refs"]) mkdirSync(join(root, d));
    writeFileSync(join(root, "HEAD"), "ref: refs/heads/main\n");
    const before = findGitSites(root);
    writeFileSync(join(root, "config"), "[core]\n\tbare = false\n\tfsmonitor = evil\n");
    expect(disarmNewRepositories(root, before, findGitSites(root))[0]).toContain("(core.fsmonitor commented out in config)");
    // Nothing changed since: nothing to say.
    const now = findGitSites(root);
    expect(disarmNewRepositories(root, now, findGitSites(root))).toEqual([]);
  });

  test("a config line bunker does not read as a setting is commented out too (git might read it)", () => {
    const root = tempDir("bunker-gitguard-oddline-");
    const before = findGitSites(root);
    mkdirSync(join(root, "n/.git"), { recursive: true });
    writeFileSync(join(root, "n/.git/config"), '[core]\n\tbare = false\n\tfs_monitor = x\n[remote "o"]\n\turl = ../a\n');
    expect(disarmNewRepositories(root, before, findGitSites(root))[0]).toContain("(1 line bunker could not read as a setting commented out in config)");
    expect(readFileSync(join(root, "n/.git/config"), "utf8")).toBe('[core]\n\tbare = false\n# disarmed by bunker: \tfs_monitor = x\n[remote "o"]\n\turl = ../a\n');
  });

  test("a link to a folder too big to look through counts as one that runs later", () => {
    const root = tempDir("bunker-gitguard-biglink-");
    mkdirSync(join(root, "big"));
    for (let i = 0; i < 5_001; i++) writeFileSync(join(root, `big/f${i}`), "");
    symlinkSync("big", join(root, ".vscode"));
    const later = { key: "t", match: (p: string) => (p.endsWith("/.vscode/tasks.json") ? "VS Code" : null) };
    expect([...scanWorkspace(root, later).later.keys()]).toEqual([join(root, ".vscode")]);
    rmSync(join(root, "big/f0"));
    rmSync(join(root, "big/f1"));
    expect([...scanWorkspace(root, later).later.keys()]).toEqual([]);
  });
});

test("a walk that stops at its bound names the root; after a command it takes the folders it read before first", () => {
  const root = tempDir("bunker-guard-cut-");
  for (let i = 0; i < 5; i++) mkdirSync(join(root, `d${i}`, "inner"), { recursive: true });
  const before = scanRoots([root]);
  expect(before.cut).toEqual([]);
  for (let i = 0; i < 5; i++) mkdirSync(join(root, `new${i}`, "inner"), { recursive: true });
  const after = scanRoots([root], undefined, 11, before.dirs);
  expect(after.cut).toEqual([root]);
  // Every folder there before was walked; what was not is new.
  for (const d of before.dirs!.keys()) expect(after.dirs!.has(d)).toBe(true);
  expect(after.unwalked.length).toBeGreaterThan(0);
  for (const d of after.unwalked) expect(before.dirs!.has(d)).toBe(false);
});

describe("red team 5: a disarmed config is checked with git's own parser", () => {
  test("gitReadsConfig lists what git reads (a continued value swallows a header) and reports what git refuses", () => {
    const read = gitReadsConfig('[core]\n\tfsync = none\\\n[advice]\n\tfsmonitor = "x; false"\n[remote "a.b"]\n\turl = u\n\tflag\n');
    expect(read).toEqual({ entries: [
      { section: "core", key: "fsync", value: "none[advice]" },
      { section: "core", key: "fsmonitor", value: "x; false" },
      { section: "remote", key: "url", value: "u" },
      { section: "remote", key: "flag", value: "" },
    ] });
    expect(gitReadsConfig("[advice] !!!\n")).toEqual({ error: "fatal: bad config line 1 in standard input" });
  });

  test("a config git reads otherwise is set aside whole; without git, one with a line bunker cannot read is too", () => {
    const root = repoTree();
    const before = findGitSites(root);
    const text = "[core]\n\tbare = false\n[advice] !!!\n\tfsmonitor = evil\n";
    mkdirSync(join(root, "new/.git"), { recursive: true });
    writeFileSync(join(root, "new/.git/config"), text);
    expect(disarmNewRepositories(root, before, findGitSites(root))).toEqual([
      "bunker disarmed the git repository the command created at new/.git (its config (git reads core.fsmonitor in it where bunker read otherwise) renamed to config.bunker-disarmed): the person's git there will not run what the command planted.",
    ]);
    expect(existsSync(join(root, "new/.git/config"))).toBe(false);
    expect(readFileSync(join(root, "new/.git/config.bunker-disarmed"), "utf8")).toBe(text);

    const path = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      const again = findGitSites(root);
      mkdirSync(join(root, "two/.git"), { recursive: true });
      writeFileSync(join(root, "two/.git/config"), "[core]\n\tfsync = none\\\n[advice]\n\tfsmonitor = evil\n");
      expect(disarmNewRepositories(root, again, findGitSites(root))[0]).toContain("(its config (bunker could not read every line of it as git does, and git is not installed to check) renamed to config.bunker-disarmed)");
    } finally {
      process.env.PATH = path;
    }
  });
});

test("red team 5: a .git file or commondir bunker cannot read exactly as git does sets the repository aside whole, saying why", () => {
  const root = repoTree();
  const before = findGitSites(root);
  mkdirSync(join(root, "n1"));
  writeFileSync(join(root, "n1/.git"), `gitdir: ../g${"\n".repeat(1_100_000)}`);
  mkdirSync(join(root, "n2/.git"), { recursive: true });
  writeFileSync(join(root, "n2/.git/HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(root, "ptr"), "../../g\n");
  symlinkSync("../../ptr", join(root, "n2/.git/commondir"));
  const lines = disarmNewRepositories(root, before, findGitSites(root)).join("\n");
  expect(lines).toContain("bunker set aside the .git the command created at n1/.git (bunker cannot read it exactly as git does (over 1 MB, not a regular file, or unreadable), so where git goes from it is not known): it is now n1/.git.bunker-set-aside");
  expect(lines).toContain("bunker set aside the git repository the command created at n2/.git, which bunker could not check or disarm (its commondir is a link, so where git goes from it is not known): it is now n2/.git.bunker-set-aside");
  expect(existsSync(join(root, "n2/.git"))).toBe(false);
});

test("red team 6 F12j: while another process keeps swapping tools/ for a link to a decoy, a walk finds tools/.git or says it could not settle, never neither", async () => {
  const root = tempDir("bunker-guard-race-");
  mkdirSync(join(root, "tools/.git"), { recursive: true });
  mkdirSync(join(root, "decoy/empty"), { recursive: true });
  for (let i = 0; i < 30; i++) mkdirSync(join(root, `pad${i}/x`), { recursive: true });
  // f12j2-race-two-sessions.sh's toggle, as another session's command runs it.
  const toggle = Bun.spawn(["python3", "-c", `import os,time
os.chdir(${JSON.stringify(root)})
end=time.time()+4
while time.time()<end and not os.path.exists("stop"):
    os.rename("tools","tools2"); os.symlink("decoy","tools"); time.sleep(0.001)
    os.unlink("tools"); os.rename("tools2","tools"); time.sleep(0.001)`]);
  let missed = 0;
  let unsettled = 0;
  try {
    await Bun.sleep(200);
    for (let i = 0; i < 60; i++) {
      const scan = scanRoots([root]);
      const found = scan.sites.some((s) => s.path === join(root, "tools/.git") || s.path === join(root, "tools2/.git"));
      if (scan.unsettled!.length > 0) unsettled++;
      else if (!found) missed++;
      await Bun.sleep(1);
    }
  } finally {
    writeFileSync(join(root, "stop"), "");
    await toggle.exited;
  }
  expect(missed).toBe(0);
});

test("a git directory moved by the command: left alone where mounts hold to their folders, else disarmed and named as the person's, not the command's", () => {
  const root = tempDir("bunker-guard-moved-");
  mkdirSync(join(root, "tools/.git/hooks"), { recursive: true });
  writeFileSync(join(root, "tools/.git/config"), "[core]\n\tbare = false\n");
  const before = scanRoots([root]).sites;
  renameSync(join(root, "tools"), join(root, "t2"));
  writeFileSync(join(root, "t2/.git/config"), '[core]\n\tfsmonitor = "touch x; false"\n');
  const after = scanRoots([root]).sites;
  expect(disarmNewRepositories([root], before, after, {}, true)).toEqual([]);
  const [line] = disarmNewRepositories([root], before, after, {}, false);
  expect(line).toBe("bunker disarmed your git repository tools/.git, which the command moved to t2/.git (where it could write it) (core.fsmonitor commented out in config): the person's git there will not run what the command planted.");
  expect(readFileSync(join(root, "t2/.git/config"), "utf8")).toContain("# disarmed by bunker: \tfsmonitor");
});
