// Reflog lines a command forges under --allow-write=.git (red team 11's F01): a line appended to logs/refs/stash,
// logs/HEAD or a checkout line's "moving from" names a commit that brings a hook, while no ref moves. Run in the real
// sandbox as the red team did; the person's own `git stash pop`, `git reset --hard HEAD@{1}` and `git checkout -`
// afterwards must not bring the hook. A command's own stashes and commits keep their reflog.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { reflogsAfter, reflogsBefore } from "../../../src/sandbox/git-reflogs.ts";
import { refsOf } from "../../../src/sandbox/git-history.ts";
import { createRunBashTool } from "../../../src/tools/run-bash.ts";
import type { ToolOutput } from "../../../src/tools/tool.ts";
import { makeContext, unseenDir } from "../../support/context.ts";
import { isolatedGitEnv, newRepository } from "../../support/embedded-repo.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** The person's repository: husky's hook folder, one commit, and a stash of their own work in progress. */
function personRepo(): { root: string; g: (...args: string[]) => string } {
  const { base, root, g } = newRepository("bunker-reflogs-", { ".husky/pre-commit": "#!/bin/sh\ntrue\n", "app.py": "app\n" });
  made.push(base);
  g("config", "core.hooksPath", ".husky");
  chmodSync(join(root, ".husky/pre-commit"), 0o755);
  g("add", ".husky/pre-commit");
  g("commit", "-qm", "hook executable");
  writeFileSync(join(root, "app.py"), "app\nwip\n");
  g("stash", "-q");
  return { root, g };
}

/** Shell that makes a commit whose tree adds a line to .husky/pre-commit, in no ref: $W (a stash-shaped one), $S the stash now, $H HEAD. */
const EVIL = [
  "G='git -c user.email=p@x -c user.name=P'",
  "cp .husky/pre-commit /tmp/p && echo 'echo PWNED' >> /tmp/p",
  "B=$(git hash-object -w /tmp/p)",
  "T=$(GIT_INDEX_FILE=/tmp/i sh -c \"git read-tree HEAD && git update-index --cacheinfo 100755,$B,.husky/pre-commit && git write-tree\")",
  "I=$($G commit-tree HEAD^{tree} -p HEAD -m 'index on main')",
  "W=$($G commit-tree $T -p HEAD -p $I -m 'WIP on main: tests')",
  "S=$(git rev-parse refs/stash); H=$(git rev-parse HEAD)",
].join("; ");

const usable = detectSandbox().kind === "bubblewrap";

async function command(root: string, line: string): Promise<string> {
  const grants = emptyGrants();
  grants.allow.run.all = true;
  grants.allow.write.paths.push(join(root, ".git"));
  const ctx = makeContext(root, { grants });
  const tool = createRunBashTool({ sandbox: "on", allowNet: false, allowEnv: [], gitWritable: true, grants, env: { PATH: "/usr/bin:/bin" }, home: unseenDir("bunker-reflogs-home-"), killGraceMs: 300 });
  return ((await tool.run({ command: line }, ctx)) as Exclude<ToolOutput, string>).content;
}

describe.skipIf(!usable)("reflog lines a command adds, in the real sandbox under --allow-write=.git", () => {
  test("a forged stash@{0}: removed, said, and the person's git stash pop brings their own work back, not the hook", async () => {
    const { root, g } = personRepo();
    const r = await command(root, `${EVIL}; printf '%s %s P <p@x> 1764170000 +0000\\tWIP on main: tests\\n' $S $W >> .git/logs/refs/stash && echo appended`);
    expect(r).toContain("appended");
    g("stash", "pop", "-q");
    expect(readFileSync(join(root, ".husky/pre-commit"), "utf8")).toBe("#!/bin/sh\ntrue\n");
    expect(readFileSync(join(root, "app.py"), "utf8")).toBe("app\nwip\n");
    expect(r).toMatch(/note: bunker removed a line the command added to \.git\/logs\/refs\/stash naming commit [0-9a-f]{12}, which no ref holds and which brings \.husky\/pre-commit \(runs on git commit \(husky hooks\)\): git stash pop or git stash apply would have written it/);
  });

  test("a forged line in the person's linked worktree's own reflog (.git/worktrees/NAME/logs/HEAD): refused, that worktree's state is read-only to commands; git checkout - there brings no hook (red team 11's F01c, red team 12's F15)", async () => {
    const { root, g } = personRepo();
    const other = `${root}-feature`;
    made.push(other);
    g("worktree", "add", "-q", other, "-b", "feature");
    const log = ".git/worktrees/" + basename(other) + "/logs/HEAD";
    const r = await command(root, `${EVIL}; printf '%s %s P <p@x> 1764170000 +0000\\tcheckout: moving from %s to feature\\n' $H $H $W >> ${log} && echo appended`);
    expect(r).not.toContain("appended");
    expect(r).toContain("Read-only file system");
    expect(readFileSync(join(root, log), "utf8")).not.toContain("moving from");
  });

  test("a forged HEAD@{1} and a checkout line going back to the commit: both removed; git reset --hard HEAD@{1} and git checkout - bring no hook", async () => {
    const { root } = personRepo();
    // HEAD@{1} is the older line's new id; `git checkout -` goes back to the newest checkout line's "moving from".
    const r = await command(
      root,
      `${EVIL}; printf '%s %s P <p@x> 1764170000 +0000\\treset: moving to %s\\n%s %s P <p@x> 1764170001 +0000\\tcheckout: moving from %s to main\\n' $H $W $W $W $H $W >> .git/logs/HEAD && echo appended`,
    );
    expect(r).toContain("appended");
    const person = isolatedGitEnv(root);
    Bun.spawnSync(["git", "checkout", "-q", "-"], { cwd: root, env: person });
    expect(readFileSync(join(root, ".husky/pre-commit"), "utf8")).toBe("#!/bin/sh\ntrue\n");
    Bun.spawnSync(["git", "reset", "-q", "--hard", "HEAD@{1}"], { cwd: root, env: person });
    expect(readFileSync(join(root, ".husky/pre-commit"), "utf8")).toBe("#!/bin/sh\ntrue\n");
    expect(r.match(/bunker removed a line the command added to \.git\/logs\/HEAD/g)?.length).toBe(2);
  });

  test("the same forged HEAD@{1} with its ids in upper case, which git reads as well: removed and said; git reset --hard HEAD@{1} brings no hook (red team 12's F02)", async () => {
    const { root } = personRepo();
    const r = await command(
      root,
      `${EVIL}; U=$(echo $W | tr a-f A-F); HU=$(echo $H | tr a-f A-F); printf '%s %s P <p@x> 1764170000 +0000\\tcommit: wip\\n%s %s P <p@x> 1764170001 +0000\\treset: moving to HEAD\\n' $HU $U $U $HU >> .git/logs/HEAD && echo appended`,
    );
    expect(r).toContain("appended");
    expect(r.match(/bunker removed a line the command added to \.git\/logs\/HEAD/g)?.length).toBe(2);
    Bun.spawnSync(["git", "reset", "-q", "--hard", "HEAD@{1}"], { cwd: root, env: isolatedGitEnv(root) });
    expect(readFileSync(join(root, ".husky/pre-commit"), "utf8")).toBe("#!/bin/sh\ntrue\n");
  });

  test("links the command left where bunker rewrites a reflog (beside each branch's reflog) lead nowhere: files outside the workspace stay as they were (red team 12's F19)", async () => {
    const { root } = personRepo();
    const outside = unseenDir("bunker-reflogs-outside-");
    const names = ["wip", "fix", "tmp", "dev", "exp", "try", "old", "new", "bak", "alt", "zz", "aa"];
    for (const n of names) writeFileSync(join(outside, n), "the person's file\n");
    // Each branch's reflog names the command's commit (so bunker rewrites it), with a link beside it to a file outside.
    const plant = names.map((n) => `printf '%s %s P <p@x> 1764170000 +0000\\tcommit: wip\\n' $H $W > .git/logs/refs/heads/${n}; ln -s ${join(outside, n)} .git/logs/refs/heads/${n}.bunker-new`).join("; ");
    const r = await command(root, `${EVIL}; mkdir -p .git/logs/refs/heads; ${plant}; echo planted`);
    expect(r).toContain("planted");
    for (const n of names) expect(readFileSync(join(outside, n), "utf8")).toBe("the person's file\n");
    expect(r).toContain("bunker removed a line the command added to .git/logs/refs/heads/");
  });

  test("a checkout line read as git reads it, up to the first \" to \": 'moving from W to x to main' is W's, removed; git checkout - brings no hook (red team 12's F11)", async () => {
    const { root } = personRepo();
    const r = await command(root, `${EVIL}; printf '%s %s P <p@x> 1764170001 +0000\\tcheckout: moving from %s to x to main\\n' $H $H $W >> .git/logs/HEAD && echo appended`);
    expect(r).toContain("appended");
    expect(r).toContain("bunker removed a line the command added to .git/logs/HEAD");
    Bun.spawnSync(["git", "checkout", "-q", "-"], { cwd: root, env: isolatedGitEnv(root) });
    expect(readFileSync(join(root, ".husky/pre-commit"), "utf8")).toBe("#!/bin/sh\ntrue\n");
  });

  test("the forged line's commit on a branch the command made (and may delete in its next command) is still the command's: removed, and git checkout - brings no hook (reviewer's R11-19)", async () => {
    const { root, g } = personRepo();
    const r = await command(root, `${EVIL}; git branch keep $W && printf '%s %s P <p@x> 1764170001 +0000\\tcheckout: moving from %s to main\\n' $W $H $W >> .git/logs/HEAD && echo appended`);
    expect(r).toContain("appended");
    expect(r).toContain("bunker removed a line the command added to .git/logs/HEAD");
    await command(root, "git branch -D keep >/dev/null && echo deleted");
    const person = isolatedGitEnv(root);
    Bun.spawnSync(["git", "checkout", "-q", "-"], { cwd: root, env: person });
    expect(readFileSync(join(root, ".husky/pre-commit"), "utf8")).toBe("#!/bin/sh\ntrue\n");
    expect(g("log", "-g", "--format=%gs", "HEAD")).not.toContain("moving from");
  });

  test("the command's own stash and commits keep their reflog lines, and nothing is said", async () => {
    const { root, g } = personRepo();
    const r = await command(root, "echo x >> app.py && git stash -q && echo y >> app.py && git -c user.email=p@x -c user.name=P commit -qam one && echo z >> app.py && git -c user.email=p@x -c user.name=P commit -qam two && echo done");
    expect(r).toContain("done");
    expect(r).not.toContain("reflog");
    expect(r).not.toContain("bunker removed");
    expect(g("stash", "list").trim().split("\n")).toHaveLength(2);
    expect(g("log", "-g", "--format=%gs", "HEAD").trim().split("\n").slice(0, 2)).toEqual(["commit: two", "commit: one"]);
  });

  test("two commits in one command, the second changing a hook: the first's reflog line stays (a ref tip holds it), and no reflog line is said to be removed (reviewer's R11-09)", async () => {
    const { root, g } = personRepo();
    // The person's own edit of the hook, which the model is asked to commit after its code.
    writeFileSync(join(root, ".husky/pre-commit"), "#!/bin/sh\ntrue\necho checked\n");
    const G = "git -c user.email=p@x -c user.name=P";
    const r = await command(root, `echo b >> app.py && ${G} commit -qm code app.py && ${G} commit -qam 'hook: run tests' && echo done`);
    expect(r).toContain("done");
    expect(r).not.toContain("bunker removed a line");
    expect(g("log", "-g", "--format=%gs", "HEAD").trim().split("\n").slice(0, 2)).toEqual(["commit: hook: run tests", "commit: code"]);
  });
});

test("before and after, without a sandbox: an added line naming a commit no ref holds and that brings nothing is kept", () => {
  const { root, g } = personRepo();
  const gitDir = join(root, ".git");
  const before = refsOf(gitDir)!;
  const logs = reflogsBefore([gitDir]);
  expect([...logs.keys()].map((k) => k.slice(gitDir.length)).sort()).toEqual(["/logs/HEAD", "/logs/refs/heads/main", "/logs/refs/stash"]);
  // A commit that changes only app.py, its line appended to HEAD's reflog: named, but it brings no runs-later file.
  const tree = g("write-tree").trim();
  const id = g("commit-tree", tree, "-p", "HEAD", "-m", "plain").trim();
  const head = g("rev-parse", "HEAD").trim();
  writeFileSync(join(gitDir, "logs/HEAD"), `${readFileSync(join(gitDir, "logs/HEAD"), "utf8")}${head} ${id} P <p@x> 1764170000 +0000\tplain\n`);
  expect(reflogsAfter(root, before, logs, (p) => (p.includes("/.husky/") ? "runs on git commit" : null))).toEqual([]);
  expect(readFileSync(join(gitDir, "logs/HEAD"), "utf8")).toContain(`${id} P <p@x>`);
});

test("a command that changes no reflog costs no git after it", () => {
  const { root } = personRepo();
  const gitDir = join(root, ".git");
  const before = refsOf(gitDir)!;
  const logs = reflogsBefore([gitDir]);
  const real = Bun.spawnSync;
  let spawned = 0;
  Bun.spawnSync = ((...args: Parameters<typeof Bun.spawnSync>) => {
    spawned++;
    return real(...args);
  }) as typeof Bun.spawnSync;
  try {
    expect(reflogsAfter(root, before, logs, () => null)).toEqual([]);
  } finally {
    Bun.spawnSync = real;
  }
  expect(spawned).toBe(0);
});
