// Walks a command can push past their bound say so, and their callers take the safe side (bounded.ts; the reviewer's
// R12-08, 11, 13, 21, 26, 29 pattern). Each case pads a real walk past its bound, as a command would.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants, emptyPathRules } from "../../../src/perms/policy.ts";
import { incompleteLine, onWalk, upTo } from "../../../src/sandbox/bounded.ts";
import { heldByGit, hiddenHistory, repositoriesSeen } from "../../../src/sandbox/denied-history.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { grantedGit, grantedGitAfter, MAX_GIT_DIRS } from "../../../src/sandbox/git-grant.ts";
import { linkedWorktrees, MAX_LINKED } from "../../../src/sandbox/git-history.ts";
import { forgetDoubt, wallBefore } from "../../../src/sandbox/git-wall.ts";
import { createRunBashTool } from "../../../src/tools/run-bash.ts";
import type { ToolOutput } from "../../../src/tools/tool.ts";
import { makeContext, tempDir, unseenDir } from "../../support/context.ts";

const git = (cwd: string, ...args: string[]) => Bun.spawnSync(["git", "-c", "user.email=a@b", "-c", "user.name=A", ...args], { cwd, stdout: "pipe", stderr: "pipe" });

test("upTo: whole when the source ends within the bound, else the first items and the bound", () => {
  expect(upTo([1, 2, 3], 3)).toEqual({ complete: true, items: [1, 2, 3] });
  expect(upTo([1, 2, 3, 4], 3)).toEqual({ complete: false, items: [1, 2, 3], bound: 3 });
  expect(onWalk(upTo([1, 2], 1), () => "whole", (items, bound) => `cut at ${bound} after ${items.join()}`)).toBe("cut at 1 after 1");
  expect(incompleteLine("linked worktrees", 100, "not run")).toBe("there are more linked worktrees than bunker looks through (100), so it cannot check them all: not run");
});

/** A repository with `n` linked worktrees beside it (real ones: git worktree add). */
function withWorktrees(n: number): { root: string; gitDir: string } {
  const base = tempDir("bunker-bounded-");
  const root = join(base, "ws");
  mkdirSync(root);
  git(root, "init", "-q", "-b", "main");
  writeFileSync(join(root, "a.txt"), "a\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "one");
  for (let i = 0; i < n; i++) git(root, "worktree", "add", "-q", "--detach", "--no-checkout", join(base, `wt${String(i).padStart(3, "0")}`));
  return { root, gitDir: join(root, ".git") };
}

describe("linked worktrees (reviewer's R12-11: checked up to 100 sorted names, the rest skipped without a word)", () => {
  test("folders a command made in .git/worktrees that git would not use (a gitdir of /usr/.git, a set-aside copy) are not counted, so they cannot push a real one past the bound", () => {
    const { gitDir } = withWorktrees(1);
    for (let i = 0; i < 150; i++) {
      const pad = join(gitDir, "worktrees", `0${String(i).padStart(3, "0")}`);
      mkdirSync(pad);
      writeFileSync(join(pad, "gitdir"), "/usr/.git\n");
    }
    mkdirSync(join(gitDir, "worktrees", "00.bunker-set-aside"));
    writeFileSync(join(gitDir, "worktrees", "00.bunker-set-aside", "gitdir"), "/usr/.git\n");
    const walk = linkedWorktrees(gitDir);
    expect(walk.complete).toBe(true);
    expect(walk.items.map((w) => w.gitDir)).toEqual([join(gitDir, "worktrees", "wt000")]);
  });

  test("more real worktrees than the bound: the walk says it is incomplete", () => {
    const { gitDir } = withWorktrees(3);
    expect(linkedWorktrees(gitDir, 3).complete).toBe(true);
    const cut = linkedWorktrees(gitDir, 2);
    expect(cut).toMatchObject({ complete: false, bound: 2 });
    expect(cut.items).toHaveLength(2);
  });

  test.skipIf(detectSandbox().kind !== "bubblewrap")("past the bound under --allow-write=.git, the command is not run, and the person is told why and what to do (real bubblewrap)", async () => {
    const { root } = withWorktrees(MAX_LINKED + 1);
    const grants = emptyGrants();
    grants.allow.run.all = true;
    grants.allow.write.workspace = true;
    grants.allow.write.paths.push(join(root, ".git"));
    const ctx = makeContext(root, { grants });
    const tool = createRunBashTool({ sandbox: "on", allowNet: false, allowEnv: [], gitWritable: true, grants, env: { PATH: "/usr/bin:/bin" }, home: unseenDir("bunker-bounded-home-"), killGraceMs: 300 });
    const r = (await tool.run({ command: "echo ran > ran.txt" }, ctx).catch((e: Error) => ({ content: e.message, isError: true }))) as Exclude<ToolOutput, string>;
    expect(r.content).toContain("not run: there are more linked worktrees of .git than bunker looks through (100), so it cannot check them all");
    expect(r.content).toContain("git worktree prune");
    expect(Bun.file(join(root, "ran.txt")).size).toBe(0);
  }, 60_000);
});

describe("git directories under a granted one (worktrees', submodules'): checked up to 500, the rest had been dropped without a word", () => {
  afterEach(() => forgetDoubt());

  test("past the bound before a command: not run, and said", () => {
    const { root, gitDir } = withWorktrees(0);
    for (let i = 0; i <= MAX_GIT_DIRS; i++) mkdirSync(join(gitDir, "worktrees", `w${i}`), { recursive: true });
    const g = grantedGit([gitDir], [root]);
    expect("refusal" in g && g.refusal).toStartWith("there are more git directories (worktrees' and submodules') in the git directory granted with --allow-write=.git than bunker looks through (500)");
  });

  test("a command that makes more than the bound again: what it made past it is unchecked, so bunker runs no further command, and says so", () => {
    const { root, gitDir } = withWorktrees(0);
    const g = grantedGit([gitDir], [root]);
    if ("refusal" in g) throw new Error(g.refusal);
    // The command: many submodule git directories; the one that matters sorts last.
    for (let i = 0; i <= MAX_GIT_DIRS + 1; i++) {
      mkdirSync(join(gitDir, "modules", `m${String(i).padStart(4, "0")}`), { recursive: true });
      writeFileSync(join(gitDir, "modules", `m${String(i).padStart(4, "0")}`, "HEAD"), "ref: refs/heads/main\n");
    }
    const lines = grantedGitAfter(root, g);
    expect(lines.some((l) => l.includes("there are more git directories in the granted git directory after the command than bunker looks through") && l.includes("bunker refuses further commands in this session"))).toBe(true);
    const next = wallBefore([root], { key: "", match: () => null }, [], tempDir("bunker-bounded-home-"));
    expect("refusal" in next && next.refusal).toContain("bunker runs no more commands in this session");
  });
});

describe("deny-read: the files hashed to find a denied file's bytes in the object store, and the submodules walked", () => {
  const home = "/nonexistent-home";

  /** A repository whose object store holds secrets/z.env's bytes with nothing holding them (a `git add` undone). */
  function dangling(): string {
    const { root } = withWorktrees(0);
    mkdirSync(join(root, "secrets"));
    writeFileSync(join(root, "secrets/z.env"), "DB_PASSWORD=hunter2\n");
    git(root, "add", "secrets/z.env");
    git(root, "reset", "-q");
    return root;
  }
  const deny = (root: string) => ({ ...emptyPathRules(), globs: [`${root}/secrets/*.env`] });

  test("files a command made that a rule covers, sorted before the person's and past the bound: hidden, not taken for nothing there", async () => {
    const root = dangling();
    expect((await hiddenHistory(root, deny(root), home)).objects).toEqual([join(root, ".git/objects")]);
    for (let i = 0; i < 2_001; i++) writeFileSync(join(root, "secrets", `a${String(i).padStart(4, "0")}.env`), `${i}\n`);
    const h = await hiddenHistory(root, deny(root), home);
    expect(h.objects).toEqual([join(root, ".git/objects")]);
    expect(h.lines[0]).toContain("bunker could not ask git whether this repository holds a file your deny-read rules cover");
  }, 60_000);

  test("submodules past the bound are hidden unwalked and said; .gitmodules lines naming no repository do not count", async () => {
    const { root } = withWorktrees(0);
    const subs = ["s1", "s2", "s3"];
    for (const s of subs) {
      mkdirSync(join(root, s));
      git(join(root, s), "init", "-q", "-b", "main");
    }
    const padding = Array.from({ length: 3_000 }, (_, i) => `[submodule "p${i}"]\n\tpath = a/p${i}\n`).join("");
    writeFileSync(join(root, ".gitmodules"), padding + subs.map((s) => `[submodule "${s}"]\n\tpath = ${s}\n`).join(""));
    const seen = repositoriesSeen(root, home, { ...emptyPathRules(), globs: [`${root}/**/.env`] }, 2);
    expect(seen.filter((r) => subs.some((s) => r.top === join(root, s))).map((r) => [r.top, r.unwalked ?? false])).toEqual([[join(root, "s1"), false], [join(root, "s2"), false], [join(root, "s3"), true]]);
    // The one past the bound: hidden ("unknown"), never walked nor shown unchecked.
    expect(await heldByGit(seen.find((r) => r.top === join(root, "s3"))!, { ...emptyPathRules(), globs: [`${root}/**/.env`] })).toBe("unknown");
    const h = await hiddenHistory(root, { ...emptyPathRules(), globs: [`${root}/**/.env`] }, home);
    // Under the real bound (1,000) all three are walked, and nothing is held: nothing hidden.
    expect(h.objects).toEqual([]);
  });
});

describe("deny-read: the blob ids of a denied path remembered across looks", () => {
  test("past the bound, a later look that finds none of those remembered in the store does not open it: padded history, re-pointed refs and the padding's objects removed leave the old secret's blob hidden", async () => {
    const { root } = withWorktrees(0);
    const gitDir = join(root, ".git");
    const deny = { ...emptyPathRules(), paths: [join(root, ".env")] };
    // The person's secret, committed once; then a command's padding: three more versions of .env, newer.
    let when = 1_600_000_000;
    const dated = (...args: string[]) => Bun.spawnSync(["git", "-c", "user.email=a@b", "-c", "user.name=A", ...args], { cwd: root, stdout: "pipe", env: { ...process.env, GIT_AUTHOR_DATE: `${when} +0000`, GIT_COMMITTER_DATE: `${when++} +0000` } });
    writeFileSync(join(root, ".env"), "API_KEY=sk-OLD\n");
    git(root, "add", ".env");
    dated("commit", "-qm", "secret");
    const pads: string[] = [];
    for (let i = 0; i < 3; i++) {
      writeFileSync(join(root, ".env"), `pad ${i}\n`);
      dated("commit", "-qam", `pad ${i}`);
      pads.push(git(root, "rev-parse", "HEAD:.env").stdout.toString().trim());
    }
    git(root, "rm", "-q", "--cached", ".env");
    dated("commit", "-qm", "untrack");
    writeFileSync(join(root, ".env"), "API_KEY=sk-NEW\n");
    const blobs = new Map<string, string>();
    // Two remembered (the newest first), the old secret's left out.
    expect(await heldByGit({ gitDir, top: root, objects: [join(gitDir, "objects")] }, deny, { blobs, maxBlobs: 2 })).toEqual({ path: ".env", where: "history" });
    expect(blobs.size).toBe(2);
    // The command: main re-pointed at a new root, the reflogs gone, its own padding objects removed.
    const tree = git(root, "mktree").stdout.toString().trim();
    const commit = Bun.spawnSync(["git", "-c", "user.email=a@b", "-c", "user.name=A", "commit-tree", tree, "-m", "root"], { cwd: root, stdout: "pipe" }).stdout.toString().trim();
    git(root, "update-ref", "refs/heads/main", commit);
    rmSync(join(gitDir, "logs"), { recursive: true, force: true });
    for (const id of pads) rmSync(join(gitDir, "objects", id.slice(0, 2), id.slice(2)), { force: true });
    expect(git(root, "cat-file", "-p", git(root, "rev-parse", "main").stdout.toString().trim()).stdout.toString()).toContain("root");
    expect(await heldByGit({ gitDir, top: root, objects: [join(gitDir, "objects")] }, deny, { blobs, maxBlobs: 2 })).toBe("unknown");
  }, 60_000);
});

describe.skipIf(detectSandbox().kind !== "bubblewrap")("what hooks run, looked for up to a bound (real bubblewrap)", () => {
  test("a hook's script importing more files than bunker follows: the first are read-only, and the bound is said once, not kept silent", async () => {
    const { root } = withWorktrees(0);
    mkdirSync(join(root, "scripts"));
    mkdirSync(join(root, "lib"));
    const n = 402;
    for (let i = 0; i < n; i++) writeFileSync(join(root, "lib", `m${String(i).padStart(3, "0")}.js`), `module.exports = ${i};\n`);
    writeFileSync(join(root, "scripts/check.js"), Array.from({ length: n }, (_, i) => `require('../lib/m${String(i).padStart(3, "0")}.js');`).join("\n") + "\n");
    writeFileSync(join(root, ".git/hooks/pre-commit"), "#!/bin/sh\nnode scripts/check.js\n", { mode: 0o755 });
    const grants = emptyGrants();
    grants.allow.run.all = true;
    grants.allow.write.workspace = true;
    const ctx = makeContext(root, { grants });
    const tool = createRunBashTool({ sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false, grants, env: { PATH: "/usr/bin:/bin" }, home: unseenDir("bunker-bounded-home-"), killGraceMs: 300 });
    const first = ((await tool.run({ command: "echo x >> lib/m000.js; echo done" }, ctx)) as Exclude<ToolOutput, string>).content;
    expect(first).toContain("lib/m000.js: Read-only file system");
    expect(first).toContain("note: bunker keeps what the person's git hooks and configs run read-only to commands, but its look stopped at its bounds here: the files hooks' scripts import (400 followed): what the rest import");
    expect(first).toContain("stays writable to commands like other project code, so a hook would run a command's change there at the next commit: review changes there (git diff) before committing.");
    const second = ((await tool.run({ command: "echo done" }, ctx)) as Exclude<ToolOutput, string>).content;
    expect(second).not.toContain("its look stopped at its bounds");
  }, 60_000);
});
