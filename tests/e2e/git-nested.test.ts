// Unasked git reads every config it will obey: a `git status` in a workspace
// holding an embedded repository whose own config runs a filter is asked
// about, so headless with --no-prompt it is refused and nothing runs.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { endToEnd, runHeadless, toolResults } from "../support/cli.ts";
import { makeEmbeddedRepo } from "../support/embedded-repo.ts";
import { tempDir } from "../support/context.ts";

const e2e = endToEnd();

test("the embedded-repository filter case asks: with --no-prompt it is refused naming why, and the filter never runs", async () => {
  const fake = e2e.serve([reply([toolUse("run_bash", { command: "git status --porcelain" })]), reply("Checked.")]);
  const base = tempDir("bunker-e2e-nested-");
  const r = makeEmbeddedRepo({ root: join(base, "ws") });
  const home = join(base, "home-bunker");
  mkdirSync(home, { recursive: true });
  const env = { ...r.env, HOME: home, XDG_CONFIG_HOME: join(base, "config"), ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url };
  const out = await runHeadless(r.root, env, ["-p", "what changed?", "--no-prompt", "--output-format", "json"]);
  expect(out.code).toBe(0);
  const [result] = toolResults(fake.requests[1]);
  expect(result?.is_error).toBe(true);
  expect(result?.content).toContain("needs approval, and bunker is not asking");
  const denials = (JSON.parse(out.stdout) as { permission_denials: { commands: { reason?: string }[] }[] }).permission_denials;
  expect(denials[0]!.commands[0]!.reason).toBe("the nested repository vendor/lib (git looks inside it) has a git config that sets filter.clean, which runs a program");
  expect(existsSync(r.marker)).toBe(false);
});
