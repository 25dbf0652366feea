// A repository's own config that would make a read-only git command run a
// program is found, in .git/config, a worktree's config and the shared one.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitConfigRunsPrograms, riskyKey } from "../../../src/perms/git-config.ts";
import { tempDir } from "../../support/context.ts";

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
    expect(gitConfigRunsPrograms(join(repo, "sub"))).toBe("diff.external");
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
    expect(gitConfigRunsPrograms(wt)).toBe("core.sshcommand");
  });
});
