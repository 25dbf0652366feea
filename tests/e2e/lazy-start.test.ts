// Nothing before the first request that the turn may not need: a headless
// turn that runs no command never probes the sandbox (no bwrap is spawned);
// the first command judged probes it, once. A `bwrap` on PATH that records
// each call stands in for the real one.
import { afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHeadless, workspace } from "../support/cli.ts";
import { tempDir } from "../support/context.ts";
import { reply, startFakeAnthropic, toolUse, type FakeAnthropic } from "../support/fake-anthropic.ts";

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

/** A bin directory whose `bwrap` appends its arguments to `log` and fails (so no sandbox is found). */
function recordingBwrap(): { bin: string; log: string } {
  const bin = tempDir("bunker-fake-bwrap-");
  const log = join(bin, "calls.log");
  writeFileSync(join(bin, "bwrap"), `#!/bin/sh\necho "$*" >> '${log}'\nexit 1\n`);
  chmodSync(join(bin, "bwrap"), 0o755);
  return { bin, log };
}

test("a headless turn without commands never spawns bwrap; the first command judged probes it once and says there is no sandbox", async () => {
  const { bin, log } = recordingBwrap();
  fake = startFakeAnthropic([reply([toolUse("read_file", { path: "a.txt" })]), reply("done")]);
  const { root, env } = workspace("bunker-lazy-", fake.url, { "a.txt": "alpha\n" });
  const path = `${bin}:${process.env.PATH}`;
  const quiet = await runHeadless(root, { ...env, PATH: path }, ["-p", "read a.txt"]);
  expect(quiet.stdout).toBe("done\n");
  expect(existsSync(log)).toBe(false);
  expect(quiet.stderr).not.toContain("No sandbox for commands");

  fake.push(reply([toolUse("run_bash", { command: "ls" }), toolUse("run_bash", { command: "pwd" })]), reply("ran"));
  const ran = await runHeadless(root, { ...env, PATH: path }, ["-p", "list files"]);
  expect(ran.stdout).toBe("ran\n");
  expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(1);
  expect(ran.stderr.split("No sandbox for commands: bwrap cannot create a sandbox here").length - 1).toBe(1);
});
