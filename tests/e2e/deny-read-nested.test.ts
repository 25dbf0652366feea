// Red team 12's F12, what was left: a deny-read file's bytes in a repository inside the workspace that no rule's fixed
// folder leads to. A `**/.env` rule has no fixed folder (its base is the workspace), and a nested clone of the
// workspace's own repository holds the denied file under a path no rule names (mirror/config/.env for config/.env).
// Each control shows the channel: the same command reads the secret without the rule.
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

/** A repository at `dir` whose history holds `file` with `secret` (committed, then untracked). */
function secretRepo(dir: string, home: string, file: string, secret: string) {
  const g = (...args: string[]) => git(dir, isolatedGitEnv(home), ...args);
  mkdirSync(join(dir, file, ".."), { recursive: true });
  g("init", "-q", "-b", "main");
  writeFileSync(join(dir, file), `${secret}\n`);
  writeFileSync(join(dir, "a"), "a\n");
  g("add", ".");
  g("commit", "-qm", "one");
  g("rm", "-q", "--cached", file);
  writeFileSync(join(dir, ".gitignore"), `${file}\n`);
  g("add", ".gitignore");
  g("commit", "-qm", "untrack");
  return g;
}

async function readsWith(command: string, setup: (root: string, home: string) => void, flags: string[]) {
  const fake = runs.start([reply([toolUse("run_bash", { command })]), reply("Done.")]);
  const { root, home, env } = runs.workspace("bunker-deny-nested2-", fake.url);
  setup(root, home);
  const r = await runHeadless(root, env, ["-p", "go", "--allow-run", "--no-prompt", ...flags]);
  expect(r.code).toBe(0);
  const [got] = toolResults(fake.requests[1]);
  expect(got!.content).toContain("read");
  return { out: got!.content, stderr: r.stderr };
}

describe.skipIf(!usable)("a deny-read file in a nested repository no rule's folder leads to (red team 12's F12)", () => {
  const GLOB = "git -C vendor/app log --all -p 2>&1 | grep TOPSECRET; echo read";
  const nested = (root: string, home: string) => {
    git(root, isolatedGitEnv(home), "init", "-q", "-b", "main");
    secretRepo(join(root, "vendor/app"), home, ".env", "STRIPE_KEY=sk_live_TOPSECRET");
  };

  test("the control: a rule on another file, and the nested clone's history prints the secret", async () => {
    const { out } = await readsWith(GLOB, nested, ["--deny-read=**/.secret"]);
    expect(out).toContain("TOPSECRET");
  }, 60_000);

  test("a ** rule: a nested clone's history is hidden, and the person is told which repository", async () => {
    const { out, stderr } = await readsWith(GLOB, nested, ["--deny-read=**/.env"]);
    expect(out).not.toContain("TOPSECRET");
    expect(stderr).toContain("of the repository at vendor/app");
  }, 60_000);

  const MIRROR = "git -C mirror log --all -p 2>&1 | grep hunter2; echo read";
  const cloned = (root: string, home: string) => {
    const g = secretRepo(root, home, "config/.env", "DB_PASSWORD=hunter2_TOPSECRET");
    g("clone", "-q", ".", "mirror");
  };

  test("the control: without the rule, the nested clone of the workspace's repository prints it", async () => {
    const { out } = await readsWith(MIRROR, cloned, []);
    expect(out).toContain("hunter2_TOPSECRET");
  }, 60_000);

  test("a nested clone of the workspace's repository: the denied file's bytes are found there by content, and hidden", async () => {
    const { out, stderr } = await readsWith(MIRROR, cloned, ["--deny-read=config/.env"]);
    expect(out).not.toContain("hunter2");
    expect(stderr).toContain("is still in the git object store of the repository at mirror");
  }, 60_000);
});
