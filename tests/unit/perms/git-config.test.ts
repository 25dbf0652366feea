// Unasked git reads every config it will obey: a repository embedded in the
// workspace (a gitlink) is looked into by `git status` under its own config.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitConfigRunsPrograms, gitHooksPath, gitlinks, globalGitConfigs, keepsConfigKey, riskyKey, runsProgram } from "../../../src/perms/git-config.ts";
import { GIT_PROGRAM_SETTINGS } from "../../../src/perms/run/git-settings.ts";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { evaluateRun } from "../../../src/perms/run/evaluate.ts";
import { tempDir } from "../../support/context.ts";
import { git, makeEmbeddedRepo } from "../../support/embedded-repo.ts";

const judge = (line: string, root: string) => evaluateRun(line, { root, grants: emptyGrants() });

describe("a repository embedded as a gitlink, whose own config runs a program", () => {
  test("control: plain git status in it really runs the embedded repository's filter", () => {
    const r = makeEmbeddedRepo();
    git(r.root, r.env, "status", "--porcelain");
    expect(existsSync(r.marker)).toBe(true);
  });

  test("git status, diff and log in the outer repository ask, naming the nested repository and the key", () => {
    const r = makeEmbeddedRepo();
    for (const line of ["git status", "git diff --stat", "git log --oneline -3", "cd vendor && git status"]) {
      expect({ line, d: judge(line, r.root) }).toMatchObject({
        line,
        d: { verdict: "ask", reason: "the nested repository vendor/lib (git looks inside it) has a git config that sets filter.clean, which runs a program" },
      });
    }
    expect(existsSync(r.marker)).toBe(false);
  });

  test.each([3, 4])("the gitlink is found in an index of version %i too", (v) => {
    const r = makeEmbeddedRepo({ indexVersion: v });
    expect(gitlinks(join(r.root, ".git"))).toEqual(["vendor/lib"]);
    expect(judge("git status", r.root).verdict).toBe("ask");
  });

  test("an embedded repository with a plain config: git status still runs unasked", () => {
    const r = makeEmbeddedRepo({ filter: false });
    expect(judge("git status", r.root)).toMatchObject({ verdict: "allow", commands: [{ granted_by: "read-only" }] });
  });

  test("an index bunker cannot read makes git ask rather than guess", () => {
    const r = makeEmbeddedRepo({ filter: false });
    writeFileSync(join(r.root, ".git", "index"), "DIRC\0\0\0\x09garbage");
    expect(judge("git status", r.root)).toMatchObject({ verdict: "ask", reason: "bunker cannot read this repository's index" });
  });

  test("a nested checkout the index does not list is not looked into by git, and is not read either", () => {
    const r = makeEmbeddedRepo({ filter: false });
    mkdirSync(join(r.root, "other", ".git"), { recursive: true });
    writeFileSync(join(r.root, "other", ".git", "config"), "[diff]\n\texternal = x\n");
    expect(judge("git status", r.root).verdict).toBe("allow");
  });
});

// The config keys that run programs, and where they are looked for.
describe("riskyKey", () => {
  const TABLE: [string, string | null][] = [
    ["[core]\n\tbare = false\n\tfilemode = true\n", null],
    ["[diff]\n\texternal = /tmp/x.sh\n", "diff.external"],
    ['[diff "png"]\n\ttextconv = exif\n', "diff.textconv"],
    ["[diff.png]\n\ttextconv = exif\n", "diff.textconv"],
    ['[filter "lfs"]\n\tsmudge = x\n', "filter.smudge"],
    ["[pager]\n\tlog = less\n", "pager.log"],
    ["[CORE]\n\tPAGER = less\n", "core.pager"],
    ["[core]\n\tfsmonitor = ./watch\n", "core.fsmonitor"],
    ["[core]\n\thooksPath = hooks\n", "core.hookspath"],
    ["[core]\n\tworktree = /elsewhere\n", "core.worktree"],
    ["[include]\n\tpath = other.cfg\n", "include.path"],
    ['[includeIf "gitdir:~/"]\n\tpath = x\n', "includeif.path"],
    ["[gpg]\n\tprogram = sh\n", "gpg.program"],
    ["[log]\n\tshowSignature = true\n", "log.showsignature"],
    ['[merge "x"]\n\tdriver = sh\n', "merge.driver"],
    ["[credential]\n\thelper = store\n", "credential.helper"],
    ["[diff] external = inline.sh\n", "diff.external"],
    ["# [diff]\n; external = x\n[user]\n\tname = a\n", null],
  ];
  for (const [config, key] of TABLE) {
    test(`${JSON.stringify(config)} → ${key}`, () => expect(riskyKey(config)).toBe(key));
  }
});

describe("gitConfigRunsPrograms", () => {
  test("no repository, a plain one, and a risky one found from a folder inside it", () => {
    const none = tempDir("bunker-gitcfg-");
    expect(gitConfigRunsPrograms(none)).toBeNull();
    const repo = tempDir("bunker-gitcfg-");
    mkdirSync(join(repo, ".git"));
    writeFileSync(join(repo, ".git", "config"), "[core]\n\tbare = false\n");
    mkdirSync(join(repo, "sub"));
    expect(gitConfigRunsPrograms(join(repo, "sub"))).toBeNull();
    writeFileSync(join(repo, ".git", "config.worktree"), "[diff]\n\texternal = x\n");
    expect(gitConfigRunsPrograms(join(repo, "sub"))).toMatchObject({ key: "diff.external", where: "" });
  });

  test("a linked worktree: the .git file's git directory, and the shared config through commondir", () => {
    const base = tempDir("bunker-gitcfg-");
    const common = join(base, "main.git");
    const wtGit = join(common, "worktrees", "wt");
    mkdirSync(wtGit, { recursive: true });
    writeFileSync(join(common, "config"), "[core]\n\tsshCommand = evil\n");
    writeFileSync(join(wtGit, "commondir"), "../..\n");
    const wt = join(base, "wt");
    mkdirSync(wt);
    writeFileSync(join(wt, ".git"), `gitdir: ${wtGit}\n`);
    expect(gitConfigRunsPrograms(wt)).toMatchObject({ key: "core.sshcommand", where: "" });
  });
});

describe("what a config a command wrote may keep: an allowlist, sharing the judge's table of keys that run programs", () => {
  test("no key the judge says runs a program is kept, whatever its value", () => {
    for (const row of GIT_PROGRAM_SETTINGS) {
      for (const name of row.names) {
        const parts = name.split(".");
        const [section, key] = [parts[0]!, parts.at(-1)!];
        for (const k of key === "*" ? ["x", "pager", "helper"] : [key]) expect({ name, kept: keepsConfigKey(section, k, "touch /tmp/p") }).toEqual({ name, kept: false });
        // And the judge's read-only check sees it too (aliases only run when named).
        if (row.runs !== "git") expect(runsProgram(section, key === "*" ? "x" : key)).toBe(true);
      }
    }
  });

  test.each([
    ["remote", "url", "ext::sh -c touch% /tmp/p", false],
    ["remote", "url", "fd::3", false],
    ["remote", "url", "foo::bar", false],
    ["remote", "uploadpack", "touch /tmp/p", false],
    ["remote", "receivepack", "touch /tmp/p", false],
    ["protocol", "allow", "always", false],
    ["gpg", "defaultkeycommand", "touch /tmp/p", false],
    ["commit", "gpgsign", "true", false],
    ["interactive", "difffilter", "touch /tmp/p", false],
    ["include", "path", "x", false],
    ["includeif", "path", "x", false],
    ["alias", "st", "status", false],
    ["credential", "helper", "store", false],
    ["remote", "url", "https://example.com/r.git", true],
    ["remote", "url", "git@example.com:r.git", true],
    ["remote", "url", "../src", true],
    ["remote", "fetch", "+refs/heads/*:refs/remotes/origin/*", true],
    ["core", "repositoryformatversion", "0", true],
    ["core", "bare", "false", true],
    ["branch", "merge", "refs/heads/main", true],
    ["user", "email", "a@b", true],
  ] as const)("%s.%s = %s kept: %p", (section, key, value, kept) => {
    expect(keepsConfigKey(section, key, value)).toBe(kept);
  });
});

describe("a FIFO where git keeps a file never stops the judge (a command made it: a read would wait for ever)", () => {
  for (const [name, says] of [
    ["index", "bunker cannot read this repository's index"],
    ["config", "bunker cannot read this repository's config"],
  ] as const) {
    test(`a FIFO named .git/${name}: git status asks, saying why, at once`, () => {
      const root = tempDir("bunker-gitconfig-fifo-");
      git(root, {}, "init", "-q", ".");
      rmSync(join(root, ".git", name), { force: true });
      expect(Bun.spawnSync(["mkfifo", join(root, ".git", name)]).exitCode).toBe(0);
      expect(judge("git status", root)).toMatchObject({ verdict: "ask", reason: says });
    });
  }

  test("a config over 1 MB is not taken as harmless: git status asks", () => {
    const root = tempDir("bunker-gitconfig-big-");
    git(root, {}, "init", "-q", ".");
    writeFileSync(join(root, ".git/config"), `${"# padding\n".repeat(120_000)}[core]\n\tfsmonitor = x\n`);
    expect(judge("git status", root)).toMatchObject({ verdict: "ask", reason: "bunker cannot read this repository's config" });
  });
});

describe("the config files git reads before a repository's own (reviewer's R10-12)", () => {
  test("GIT_CONFIG_NOSYSTEM=0 or false still reads the system's; GIT_CONFIG_SYSTEM names it; a git under another prefix reads that prefix's", () => {
    const home = "/home/a";
    const base = { PATH: "/usr/bin:/bin" };
    expect(globalGitConfigs({ ...base }, home)).toEqual(["/etc/gitconfig", "/home/a/.config/git/config", "/home/a/.gitconfig"]);
    for (const off of ["0", "false", "no", "off", ""]) expect(globalGitConfigs({ ...base, GIT_CONFIG_NOSYSTEM: off }, home)[0]).toBe("/etc/gitconfig");
    for (const on of ["1", "true", "yes"]) expect(globalGitConfigs({ ...base, GIT_CONFIG_NOSYSTEM: on }, home)[0]).toBe("/home/a/.config/git/config");
    expect(globalGitConfigs({ ...base, GIT_CONFIG_SYSTEM: "/srv/gitconfig", XDG_CONFIG_HOME: "/cfg" }, home)).toEqual(["/srv/gitconfig", "/cfg/git/config", "/home/a/.gitconfig"]);
    const brew = tempDir("bunker-brew-");
    mkdirSync(join(brew, "bin"));
    writeFileSync(join(brew, "bin/git"), "");
    expect(globalGitConfigs({ PATH: `${join(brew, "bin")}:/usr/bin` }, home).slice(0, 2)).toEqual(["/etc/gitconfig", join(brew, "etc/gitconfig")]);
  });

  test("a relative core.hooksPath in the file GIT_CONFIG_SYSTEM names is the repository's hooks folder", () => {
    const root = tempDir("bunker-syscfg-");
    Bun.spawnSync(["git", "init", "-q", root]);
    const system = join(tempDir("bunker-syscfg-etc-"), "gitconfig");
    writeFileSync(system, "[core]\n\thooksPath = tools/hooks\n");
    expect(gitHooksPath(root, { PATH: "/usr/bin", HOME: "/nonexistent", GIT_CONFIG_SYSTEM: system, GIT_CONFIG_NOSYSTEM: "0" }, "/nonexistent")).toBe("tools/hooks");
    expect(gitHooksPath(root, { PATH: "/usr/bin", HOME: "/nonexistent", GIT_CONFIG_SYSTEM: system, GIT_CONFIG_NOSYSTEM: "1" }, "/nonexistent")).toBeNull();
  });
});
