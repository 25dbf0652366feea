// Links a command leaves in a git directory under --allow-write=.git (red team 12's F10, F10b, F21-F24): set aside
// before anything after the command reads or writes there, so neither the person's git nor bunker's own look
// follows them. Run in the real sandbox; the folders they led to, outside the workspace, stay as they were.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { linksIn } from "../../../src/sandbox/git-links.ts";
import { createRunBashTool } from "../../../src/tools/run-bash.ts";
import type { ToolOutput } from "../../../src/tools/tool.ts";
import { makeContext, unseenDir } from "../../support/context.ts";
import { newRepository } from "../../support/embedded-repo.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function repo(): { root: string; g: (...args: string[]) => string } {
  const { base, root, g } = newRepository("bunker-git-links-", { "app.py": "app\n" });
  made.push(base);
  return { root, g };
}

async function command(root: string, line: string): Promise<string> {
  const grants = emptyGrants();
  grants.allow.run.all = true;
  grants.allow.write.paths.push(join(root, ".git"));
  const ctx = makeContext(root, { grants });
  const tool = createRunBashTool({ sandbox: "on", allowNet: false, allowEnv: [], gitWritable: true, grants, env: { PATH: "/usr/bin:/bin" }, home: unseenDir("bunker-git-links-home-"), killGraceMs: 300 });
  return ((await tool.run({ command: line }, ctx)) as Exclude<ToolOutput, string>).content;
}

/** A folder outside the workspace with files bunker's look after a command would touch if it followed a link there. */
function outsideFolder(): string {
  const dir = unseenDir("bunker-git-links-outside-");
  for (const f of ["a.idx", "a.pack", "a.rev", "todo", "HEAD"]) writeFileSync(join(dir, f), `the person's ${f}\n`);
  mkdirSync(join(dir, "project", ".git"), { recursive: true });
  writeFileSync(join(dir, "project", ".git", "HEAD"), "ref: refs/heads/main\n");
  symlinkSync("/etc/hostname", join(dir, "dotfile-link"));
  return dir;
}

const usable = detectSandbox().kind === "bubblewrap";

describe.skipIf(!usable)("links a command makes in a granted git directory, in the real sandbox", () => {
  test("a branch's ref file made a link to a work-tree file: set aside, and a later write to that file moves no branch (F10)", async () => {
    const { root, g } = repo();
    g("branch", "feature");
    const r = await command(root, "git rev-parse feature > .feature-tip && rm .git/refs/heads/feature && ln -s ../../../.feature-tip .git/refs/heads/feature && echo linked");
    expect(r).toContain("linked");
    expect(r).toContain("bunker set aside .git/refs/heads/feature, a link the command made in the git directory");
    expect(lstatSync(join(root, ".git/refs/heads/feature.bunker-set-aside")).isSymbolicLink()).toBe(true);
    writeFileSync(join(root, ".feature-tip"), "0000000000000000000000000000000000000001\n");
    expect(g("for-each-ref", "--format=%(refname)")).not.toContain("refs/heads/feature\n");
  });

  test("objects/pack, logs, modules, worktrees and sequencer made links to a folder outside: each set aside, nothing there touched (F21-F24)", async () => {
    const { root } = repo();
    const outside = outsideFolder();
    const before = readdirSync(outside).sort();
    const r = await command(root, [
      "mv .git/objects/pack .git/objects/pack.old && ln -s " + outside + " .git/objects/pack",
      "mv .git/logs .git/logs.old && ln -s " + outside + " .git/logs",
      "ln -s " + outside + " .git/modules",
      "ln -s " + outside + " .git/worktrees",
      "ln -s " + outside + " .git/sequencer",
      "echo linked",
    ].join(" && "));
    expect(r).toContain("linked");
    for (const name of ["objects/pack", "logs", "modules", "worktrees", "sequencer"]) expect(r).toContain(`bunker set aside .git/${name}, a link the command made in the git directory`);
    expect(readdirSync(outside).sort()).toEqual(before);
    for (const f of ["a.idx", "a.pack", "a.rev", "todo", "HEAD"]) expect(readFileSync(join(outside, f), "utf8")).toBe(`the person's ${f}\n`);
    expect(existsSync(join(outside, "project", ".git", "HEAD"))).toBe(true);
    expect(lstatSync(join(outside, "dotfile-link")).isSymbolicLink()).toBe(true);
    expect(r).not.toContain(outside + "/");
  });

  test("the person's other linked worktree's state is read-only to commands: its ORIG_HEAD cannot be re-aimed; a new worktree can still be added (F15)", async () => {
    const { root, g } = repo();
    const other = `${root}-wt`;
    made.push(other, `${root}-new`);
    g("worktree", "add", "-q", other, "-b", "feature");
    const name = other.split("/").pop()!;
    const orig = join(root, ".git/worktrees", name, "ORIG_HEAD");
    const was = readFileSync(orig, "utf8");
    const r = await command(root, `git -c user.email=p@x -c user.name=P commit -q --allow-empty -m two && git rev-parse HEAD > .git/worktrees/${name}/ORIG_HEAD 2>&1 || echo refused; git worktree add -q inside -b fresh && echo added`);
    expect(r).toContain("refused");
    expect(readFileSync(orig, "utf8")).toBe(was);
    expect(r).toContain("added");
  });

  test("a link the person had in the git directory before the command stays; a command that makes none is told nothing", async () => {
    const { root } = repo();
    symlinkSync("../info/exclude", join(root, ".git/hooks/person-link"));
    const r = await command(root, "git -c user.email=p@x -c user.name=P commit -q --allow-empty -m two && echo committed");
    expect(r).toContain("committed");
    expect(r).not.toContain("a link the command made");
    expect(lstatSync(join(root, ".git/hooks/person-link")).isSymbolicLink()).toBe(true);
  });
});

test("the look for links goes through the whole git directory, however many files a command adds, but not into loose-object folders (reviewer's R12-08)", () => {
  const { root } = repo();
  const git = join(root, ".git");
  mkdirSync(join(git, "aaa-padding"));
  for (let i = 0; i < 30_000; i++) writeFileSync(join(git, "aaa-padding", String(i)), "");
  symlinkSync("../../../ref.txt", join(git, "refs/heads/zz"));
  mkdirSync(join(git, "objects/ab"), { recursive: true });
  symlinkSync("/etc/hostname", join(git, "objects/ab/cdef"));
  mkdirSync(join(git, "lfs/objects/ab/cd"), { recursive: true });
  symlinkSync("/etc/hostname", join(git, "lfs/objects/ab/cd/abcdef"));
  symlinkSync("/etc", join(git, "lfs/elsewhere"));
  const links = linksIn([git]);
  expect(links.get(join(git, "refs/heads/zz"))).toBe("../../../ref.txt");
  expect(links.has(join(git, "objects/ab/cdef"))).toBe(false);
  // Git LFS's object store is not walked (one file an object: reviewer's R12-22); the rest of lfs/ is.
  expect(links.has(join(git, "lfs/objects/ab/cd/abcdef"))).toBe(false);
  expect(links.get(join(git, "lfs/elsewhere"))).toBe("/etc");
});
