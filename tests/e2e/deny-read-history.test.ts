// A deny-read rule over a file git holds (red team 11's F04): with `read:config/**` in the workspace's settings and
// config/secrets.env committed once and then untracked, the lines a model would run to read it from the object store
// (judged read-only and run unasked, or under --allow-run=git) find nothing; the person is told at start why git fails in commands.
// The control shows the channel: the same lines in the same repository without the rule print the secret.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { BUNKER, runHeadless, toolResults } from "../support/cli.ts";
import { TmuxSession, tmuxAvailable } from "../support/tmux.ts";
import { git, isolatedGitEnv } from "../support/embedded-repo.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";

const usable = detectSandbox().kind === "bubblewrap";
const runs = sandboxRuns();

/** What a model would run to read the denied file's bytes out of git. */
const READS = [
  "git show HEAD~1:config/secrets.env",
  "git log -p --all -- config/",
  "git cat-file -p HEAD~1:config/secrets.env",
  "git grep PASSWORD $(git rev-list --all)",
];

function setup(url: string, rule: boolean) {
  const { root, home, env } = runs.workspace("bunker-deny-history-", url);
  const g = (...args: string[]) => git(root, isolatedGitEnv(home), ...args);
  mkdirSync(join(root, "config"));
  writeFileSync(join(root, "config/secrets.env"), "DB_PASSWORD=hunter2-prod\n");
  writeFileSync(join(root, "a.txt"), "a\n");
  g("init", "-q", "-b", "main");
  g("add", ".");
  g("commit", "-qm", "init");
  g("rm", "-q", "--cached", "config/secrets.env");
  writeFileSync(join(root, ".gitignore"), "config/secrets.env\n");
  g("add", ".gitignore");
  g("commit", "-qm", "stop tracking secrets");
  if (rule) {
    mkdirSync(join(root, ".bunker"));
    writeFileSync(join(root, ".bunker/settings.json"), JSON.stringify({ deny: ["read:config/**"] }));
  }
  return { root, env };
}

describe.skipIf(!usable)("a deny-read rule over a file in git history", () => {
  test("the control: without the rule, each line reads the secret from git", async () => {
    const fake = runs.start([reply(READS.map((command) => toolUse("run_bash", { command }))), reply("Done.")]);
    const { root, env } = setup(fake.url, false);
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run=git", "--no-prompt"]);
    expect(r.code).toBe(0);
    const results = toolResults(fake.requests[1]);
    expect(results).toHaveLength(READS.length);
    for (const x of results) expect(x.content).toContain("hunter2-prod");
  });

  test("with it, no line finds the secret, the person is told at the first command, and the model is told why git fails", async () => {
    const fake = runs.start([reply(READS.map((command) => toolUse("run_bash", { command }))), reply("Done.")]);
    const { root, env } = setup(fake.url, true);
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run=git", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("config/secrets.env is in git history (a commit, a stash or a reflog entry) of this repository, and a deny-read rule covers it");
    const results = toolResults(fake.requests[1]);
    expect(results).toHaveLength(READS.length);
    for (const x of results) {
      expect(x.content).not.toContain("hunter2");
      expect(x.content).toContain("this repository's git objects are hidden from commands this session");
    }
  });
});

describe.skipIf(!usable)("a denied file's bytes in the object store with no commit holding them", () => {
  // `git add .` then `git reset` on noticing the .env (or a `git stash -u` dropped): a dangling blob that
  // `git fsck --unreachable` names and `git cat-file` prints.
  const DANGLING = "for b in $(git fsck --unreachable --no-reflogs 2>/dev/null | awk '/blob/{print $3}'); do git cat-file -p $b; done; echo listed";

  test("staged once and unstaged: hidden, and the person is told how to drop it", async () => {
    const fake = runs.start([reply([toolUse("run_bash", { command: DANGLING })]), reply("Done.")]);
    const { root, home, env } = runs.workspace("bunker-deny-dangling-", fake.url);
    const g = (...args: string[]) => git(root, isolatedGitEnv(home), ...args);
    mkdirSync(join(root, "config"));
    writeFileSync(join(root, "a.txt"), "a\n");
    g("init", "-q", "-b", "main");
    g("add", "a.txt");
    g("commit", "-qm", "init");
    writeFileSync(join(root, "config/secrets.env"), "DB_PASSWORD=hunter2-prod\n");
    g("add", "config/secrets.env");
    g("reset", "-q");
    mkdirSync(join(root, ".bunker"));
    writeFileSync(join(root, ".bunker/settings.json"), JSON.stringify({ deny: ["read:config/**"] }));
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("config/secrets.env as it is now is in the git object store of this repository");
    const [result] = toolResults(fake.requests[1]);
    expect(result!.content).toContain("listed");
    expect(result!.content).not.toContain("hunter2");
  });
});

/**
 * A long history for git fast-import: `commits` commits on main, each changing one of 100 files; with `secret`, commit 10
 * adds config/secrets.env and commit 11 removes it. 20,000 commits take git about a second to import.
 */
function fastImport(commits: number, secret: boolean): string {
  const secretText = "DB_PASSWORD=hunter2-prod\n";
  const parts = secret ? [`blob\nmark :1\ndata ${secretText.length}\n${secretText}\n`] : [];
  for (let i = 1; i <= commits; i++) {
    const c = `${i}\n`;
    parts.push(`commit refs/heads/main\nmark :${i + 1}\ncommitter a <a@b> ${1_000_000_000 + i} +0000\ndata 2\nc\n${i > 1 ? `from :${i}\n` : ""}M 100644 inline src/f${i % 100}.txt\ndata ${c.length}\n${c}`);
    if (secret && i === 10) parts.push("M 100644 :1 config/secrets.env\n");
    if (secret && i === 11) parts.push("D config/secrets.env\n");
    parts.push("\n");
  }
  return parts.join("");
}

function longHistory(url: string, opts: { secret: boolean; commits?: number }) {
  const { root, env, home } = runs.workspace("bunker-deny-long-", url);
  const genv = isolatedGitEnv(home);
  git(root, genv, "init", "-q", "-b", "main");
  const r = Bun.spawnSync(["git", "fast-import", "--quiet"], { cwd: root, env: { PATH: process.env.PATH ?? "", ...genv }, stdin: Buffer.from(fastImport(opts.commits ?? 20_000, opts.secret)) });
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
  git(root, genv, "reset", "-q", "--hard", "main");
  mkdirSync(join(root, "config"));
  writeFileSync(join(root, "config/secrets.env"), "DB_PASSWORD=hunter2-prod\n");
  writeFileSync(join(root, ".git/info/exclude"), "config/\n");
  mkdirSync(join(root, ".bunker"));
  // A glob with braces: git cannot be given it as a pathspec, so bunker reads every path history holds (the slow walk).
  writeFileSync(join(root, ".bunker/settings.json"), JSON.stringify({ deny: ["read:config/{secrets,other}.env"] }));
  return { root, env, home };
}

const cacheFiles = (home: string) => {
  const d = join(home, ".local/state/bunker/git-history");
  return existsSync(d) ? readdirSync(d) : [];
};

describe.skipIf(!usable)("a deny-read rule and a long git history (reviewer's R11-10)", () => {
  test("a turn that runs no command does not walk the history, and says nothing of it", async () => {
    const fake = runs.start([reply("Nothing to run.")]);
    const { root, env, home } = longHistory(fake.url, { secret: true, commits: 2_000 });
    const r = await runHeadless(root, env, ["-p", "go", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("git history");
    expect(cacheFiles(home)).toEqual([]);
  });

  test("a walk that has not finished: the command runs with the objects hidden, and the person is told; once it has, git works, and the answer is kept", async () => {
    const LOG = "git log -1 --format=subject:%s";
    const fake = runs.start([
      reply([toolUse("run_bash", { command: LOG })]),
      reply([toolUse("run_bash", { command: "sleep 4" })]),
      reply([toolUse("run_bash", { command: LOG })]),
      reply("Done."),
    ]);
    const { root, env, home } = longHistory(fake.url, { secret: false });
    const r = await runHeadless(root, { ...env, BUNKER_GIT_HISTORY_WAIT_MS: "0" }, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("bunker is checking the git history of this repository for files your deny-read rules cover");
    const first = toolResults(fake.requests[1]);
    expect(first[0]!.content).not.toContain("subject:c");
    expect(first[0]!.content).toContain("bunker is still checking this repository's git history");
    expect(r.stderr).toContain("bunker has checked the git history of this repository: no file your deny-read rules cover is in it");
    expect(toolResults(fake.requests[3])[0]!.content).toContain("subject:c");
    expect(cacheFiles(home)).toHaveLength(1);

    // The next session: the answer kept stands for the same refs, so no walk is needed (one would not finish in 1 ms).
    const again = runs.start([reply([toolUse("run_bash", { command: LOG })]), reply("Done.")]);
    const r2 = await runHeadless(root, { ...env, ANTHROPIC_BASE_URL: again.url, BUNKER_GIT_HISTORY_LIMIT_MS: "1" }, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r2.code).toBe(0);
    expect(toolResults(again.requests[1])[0]!.content).toContain("subject:c");
    expect(r2.stderr).not.toContain("git history");
  }, 60_000);

  test("a headless run that ends while the walk runs: the walk outlives it and keeps its answer, so the next run starts with git (reviewer's R12-15)", async () => {
    const LOG = "git log -1 --format=subject:%s";
    const fake = runs.start([reply([toolUse("run_bash", { command: LOG })]), reply("Done.")]);
    const { root, env, home } = longHistory(fake.url, { secret: false });
    const r = await runHeadless(root, { ...env, BUNKER_GIT_HISTORY_WAIT_MS: "0" }, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(toolResults(fake.requests[1])[0]!.content).toContain("bunker is still checking this repository's git history");
    // The session is over; its walk is not.
    const until = Date.now() + 30_000;
    while (cacheFiles(home).length === 0 && Date.now() < until) await Bun.sleep(100);
    expect(cacheFiles(home)).toHaveLength(1);
    // The next run: the answer kept stands for the same refs (no walk: one would not finish in 1 ms).
    const again = runs.start([reply([toolUse("run_bash", { command: LOG })]), reply("Done.")]);
    const r2 = await runHeadless(root, { ...env, ANTHROPIC_BASE_URL: again.url, BUNKER_GIT_HISTORY_LIMIT_MS: "1" }, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r2.code).toBe(0);
    expect(toolResults(again.requests[1])[0]!.content).toContain("subject:c");
  }, 90_000);

  test("headless runs in a row that each end while the walk runs start one walk that outlives them, not one each (reviewer's R12-27)", async () => {
    const { root, env, home } = longHistory("http://127.0.0.1:9", { secret: false, commits: 200 });
    // A git whose history walk takes 6 s (a long history), on PATH before the system's; each walk says who started it.
    const bin = join(home, "..", "bin");
    const walks = join(home, "..", "walks.txt");
    mkdirSync(bin);
    writeFileSync(join(bin, "git"), `#!/bin/sh\ncase " $* " in *" log "*--all*) tr '\\0' ' ' < /proc/$PPID/cmdline >> ${walks}; echo >> ${walks}; sleep 6;; esac\nexec ${Bun.which("git")} "$@"\n`, { mode: 0o755 });
    for (let i = 0; i < 3; i++) {
      const fake = runs.start([reply([toolUse("run_bash", { command: "true" })]), reply("Done.")]);
      const r = await runHeadless(root, { ...env, ANTHROPIC_BASE_URL: fake.url, PATH: `${bin}:${process.env.PATH}`, BUNKER_GIT_HISTORY_WAIT_MS: "0" }, ["-p", "go", "--allow-run", "--no-prompt"]);
      expect(r.code).toBe(0);
    }
    // The first run's walk keeps the answer; the next two found it running and started none.
    const until = Date.now() + 30_000;
    while (cacheFiles(home).length === 0 && Date.now() < until) await Bun.sleep(100);
    expect(cacheFiles(home)).toHaveLength(1);
    const detached = readFileSync(walks, "utf8").split("\n").filter((l) => l.includes("__history-walk"));
    expect(detached).toHaveLength(1);
    // And it let go of its lock: a later run that ends mid-walk may start one again.
    while (readdirSync(join(home, ".local/state/bunker/git-history-walks")).length > 0 && Date.now() < until) await Bun.sleep(100);
    expect(readdirSync(join(home, ".local/state/bunker/git-history-walks"))).toEqual([]);
  }, 90_000);

  test("a first command that waits for the walk is said while it waits, then runs with git", async () => {
    const fake = runs.start([reply([toolUse("run_bash", { command: "git log -1 --format=subject:%s" })]), reply("Done.")]);
    const { root, env, home } = longHistory(fake.url, { secret: false, commits: 200 });
    // A git whose history walk takes 3 s (a long history), on PATH before the system's.
    const bin = join(home, "..", "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "git"), `#!/bin/sh\ncase " $* " in *" log "*--all*) sleep 3;; esac\nexec ${Bun.which("git")} "$@"\n`, { mode: 0o755 });
    const r = await runHeadless(root, { ...env, PATH: `${bin}:${process.env.PATH}` }, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("bunker is looking through the git history of this repository for files your deny-read rules cover (once: the answer is kept), for up to 10 s…");
    expect(r.stderr).not.toContain("Until it has");
    expect(toolResults(fake.requests[1])[0]!.content).toContain("subject:c");
  }, 60_000);

  test("a walk past its limit: the objects stay hidden for the session (closed), and the person is told why and what to do", async () => {
    const fake = runs.start([reply([toolUse("run_bash", { command: "git log -1 --format=subject:%s" })]), reply("Done.")]);
    const { root, env } = longHistory(fake.url, { secret: false });
    const r = await runHeadless(root, { ...env, BUNKER_GIT_HISTORY_LIMIT_MS: "1" }, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("bunker could not finish checking the git history of this repository");
    expect(toolResults(fake.requests[1])[0]!.content).not.toContain("subject:c");
  }, 60_000);

  test("found in history: hidden, and the answer is kept for the next session too", async () => {
    const fake = runs.start([reply([toolUse("run_bash", { command: "git show main~19990:config/secrets.env" })]), reply("Done.")]);
    const { root, env } = longHistory(fake.url, { secret: true });
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("config/secrets.env is in git history");
    expect(toolResults(fake.requests[1])[0]!.content).not.toContain("hunter2");
    const again = runs.start([reply([toolUse("run_bash", { command: "git show main~19990:config/secrets.env" })]), reply("Done.")]);
    const r2 = await runHeadless(root, { ...env, ANTHROPIC_BASE_URL: again.url, BUNKER_GIT_HISTORY_LIMIT_MS: "1" }, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r2.stderr).toContain("config/secrets.env is in git history");
    expect(toolResults(again.requests[1])[0]!.content).not.toContain("hunter2");
  }, 60_000);
});

describe.skipIf(!usable || !tmuxAvailable)("a deny-read rule in the REPL (reviewer's R11-10)", () => {
  test("the prompt does not wait for the walk: it runs while the person types, and the first command finds it done", async () => {
    const fake = runs.start([reply([toolUse("run_bash", { command: "git log -1 --format=subject:%s" })]), reply("Done.")]);
    const { root, env, home } = longHistory(fake.url, { secret: false, commits: 200 });
    // A git whose history walk takes 5 s (a long history), on PATH before the system's.
    const bin = join(home, "..", "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "git"), `#!/bin/sh\ncase " $* " in *" log "*--all*) echo walked >> ${bin}/calls; sleep 5;; esac\nexec ${Bun.which("git")} "$@"\n`, { mode: 0o755 });
    const started = Date.now();
    // (tmux gives a command its own PATH, whatever -e says: env sets this one.)
    const t = await TmuxSession.start(["env", `PATH=${bin}:${process.env.PATH}`, ...BUNKER, "--allow-run", "--no-prompt"], { cwd: root, env: { ...env, BUNKER_GIT_HISTORY_WAIT_MS: "0" }, cols: 120, rows: 40 });
    try {
      await t.waitFor("/help for commands");
      // Before the walk could have ended (a bunker that walks at start shows its prompt after 5 s).
      expect(Date.now() - started).toBeLessThan(4_000);
      await Bun.sleep(6_000);
      t.keys(["show the last commit"], true);
      t.keys(["Enter"]);
      const screen = await t.waitFor("Done.");
      expect(screen).not.toContain("bunker is checking the git history");
      expect(toolResults(fake.requests[1])[0]!.content).toContain("subject:c");
      // The walk was the slow git's.
      expect(readFileSync(join(bin, "calls"), "utf8")).toBe("walked\n");
    } finally {
      t.close();
    }
  }, 60_000);
});

describe.skipIf(!usable)("a command that makes the history look clean mid-session (reviewer's R12-10)", () => {
  // .env committed once, untracked, then edited (a rotated key): the store check of its bytes as they are finds nothing.
  // Command 1 writes .git/shallow over every commit the reflogs name (git walks no parent of them), trims the reflogs
  // and copies a ref so the next look walks again; command 2 reads the old .env from the first commit.
  const CUT = [
    "cat .git/logs/HEAD .git/logs/refs/heads/main | awk '{print $1; print $2}' | grep -v '^0*$' | sort -u > .git/shallow",
    "head -1 .git/logs/HEAD | awk '{print $2}' > first-id",
    "for f in .git/logs/HEAD .git/logs/refs/heads/main; do tail -1 $f > l.tmp && cat l.tmp > $f; done",
    "cp .git/refs/heads/main .git/refs/heads/x",
  ].join("; ");

  test("a shallow file written by a command does not turn the walk's answer clean: the old .env stays hidden", async () => {
    const fake = runs.start([reply([toolUse("run_bash", { command: CUT })]), reply([toolUse("run_bash", { command: "git show $(cat first-id):.env; git log --format=%H | tail -1" })]), reply("Done.")]);
    const { root, home, env } = runs.workspace("bunker-deny-shallow-", fake.url);
    const g = (...args: string[]) => git(root, isolatedGitEnv(home), ...args);
    writeFileSync(join(root, ".env"), "API_KEY=sk-OLD\nDB_PASSWORD=hunter2-UNCHANGED\n");
    writeFileSync(join(root, "a"), "1\n");
    g("init", "-q", "-b", "main");
    g("add", ".");
    g("commit", "-qm", "one");
    g("rm", "-q", "--cached", ".env");
    writeFileSync(join(root, ".env"), "API_KEY=sk-NEW-ROTATED\nDB_PASSWORD=hunter2-UNCHANGED\n");
    writeFileSync(join(root, ".gitignore"), ".env\n");
    g("add", ".gitignore");
    g("commit", "-qm", "stop tracking .env");
    writeFileSync(join(root, "a"), "2\n");
    g("commit", "-qam", "three");
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run", "--allow-write=.git", "--deny-read=.env", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(root, ".git/shallow"))).toBe(true);
    const second = toolResults(fake.requests[2]);
    expect(second[0]!.content).not.toContain("hunter2");
    expect(second[0]!.content).not.toContain("sk-OLD");
    expect(r.stderr).not.toContain("no file your deny-read rules cover is in it");
  }, 60_000);
});

describe.skipIf(!usable)("a denied file tracked by Git LFS (red team 12's F16)", () => {
  test("its bytes in .git/lfs/objects are hidden with the repository's objects", async () => {
    const READ = "cat .git/lfs/objects/*/*/* 2>&1; echo read";
    const fake = runs.start([reply([toolUse("run_bash", { command: READ })]), reply("Done.")]);
    const { root, home, env } = runs.workspace("bunker-deny-lfs-", fake.url);
    const g = (...args: string[]) => git(root, isolatedGitEnv(home), ...args);
    const secret = "DB_PASSWORD=hunter2-lfs\n";
    const oid = new Bun.CryptoHasher("sha256").update(secret).digest("hex");
    g("init", "-q", "-b", "main");
    // What `git lfs track .env && git add .env` leaves: a pointer committed, the bytes in .git/lfs/objects/OID[0:2]/OID[2:4]/OID.
    mkdirSync(join(root, ".git/lfs/objects", oid.slice(0, 2), oid.slice(2, 4)), { recursive: true });
    writeFileSync(join(root, ".git/lfs/objects", oid.slice(0, 2), oid.slice(2, 4), oid), secret);
    writeFileSync(join(root, ".gitattributes"), ".env filter=lfs diff=lfs merge=lfs -text\n");
    writeFileSync(join(root, ".env"), `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize ${secret.length}\n`);
    g("add", ".");
    g("commit", "-qm", "lfs");
    writeFileSync(join(root, ".env"), secret);
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run", "--deny-read=.env", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [got] = toolResults(fake.requests[1]);
    expect(got!.content).toContain("read");
    expect(got!.content).not.toContain("hunter2");
  }, 60_000);
});

describe.skipIf(!usable)("a denied file in the history of a repository inside the workspace (red team 12's F12)", () => {
  /** A repository at `dir` whose history holds .env (committed, then untracked). */
  function secretRepo(dir: string, home: string) {
    const g = (...args: string[]) => git(dir, isolatedGitEnv(home), ...args);
    mkdirSync(dir, { recursive: true });
    g("init", "-q", "-b", "main");
    writeFileSync(join(dir, ".env"), "STRIPE_KEY=sk_live_TOPSECRET\n");
    writeFileSync(join(dir, "a"), "a\n");
    g("add", ".");
    g("commit", "-qm", "one");
    g("rm", "-q", "--cached", ".env");
    g("commit", "-qm", "untrack");
    return g;
  }

  test("a nested clone's and a submodule's objects are hidden", async () => {
    const READ = "git -C sub log --all -p 2>&1 | grep TOPSECRET; git -C mod log --all -p 2>&1 | grep TOPSECRET; echo read";
    const fake = runs.start([reply([toolUse("run_bash", { command: READ })]), reply("Done.")]);
    const { root, home, env } = runs.workspace("bunker-deny-nested-", fake.url);
    secretRepo(join(root, "sub"), home);
    // A submodule whose git directory is .git/modules/mod, its history holding mod/.env.
    const upstream = join(root, "..", "upstream");
    secretRepo(upstream, home);
    const g = (...args: string[]) => git(root, isolatedGitEnv(home), ...args);
    g("init", "-q", "-b", "main");
    g("-c", "protocol.file.allow=always", "submodule", "add", "-q", upstream, "mod");
    g("commit", "-qm", "mod");
    writeFileSync(join(root, "mod/.env"), "STRIPE_KEY=sk_live_NEW\n");
    expect(existsSync(join(root, ".git/modules/mod/objects"))).toBe(true);
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run", "--deny-read=sub/.env", "--deny-read=mod/.env", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [got] = toolResults(fake.requests[1]);
    expect(got!.content).toContain("read");
    expect(got!.content).not.toContain("TOPSECRET");
    expect(r.stderr).toContain("of the repository at sub");
    expect(r.stderr).toContain("of the repository at mod");
  }, 60_000);
});
