// A deny-read rule over a file git holds (red team 11's F04): with `read:config/**` in the workspace's settings and
// config/secrets.env committed once and then untracked, the lines a model would run to read it from the object store
// (judged read-only and run unasked, or under --allow-run=git) find nothing; the person is told at start why git fails in commands.
// The control shows the channel: the same lines in the same repository without the rule print the secret.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
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

  test("with it, no line finds the secret, the person is told at start, and the model is told why git fails", async () => {
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
