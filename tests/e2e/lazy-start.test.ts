// Nothing before the first request that the turn may not need: a headless
// turn that runs no command never probes the sandbox (no bwrap is spawned);
// the first command judged probes it, once. A `bwrap` on PATH that records
// each call stands in for the real one.
import { afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUNKER, runBunker, runHeadless, workspace } from "../support/cli.ts";
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

const strace = Bun.which("strace");

test.skipIf(!strace)("the other projects' keys under \"workspaces\" in the user's settings cost nothing before a read-only turn's first request; without a key for this one, one stat each (reviewer's R12-20)", async () => {
  fake = startFakeAnthropic([reply("one"), reply("two")]);
  const { root, env } = workspace("bunker-lazy-keys-", fake.url);
  const [home, config] = [env.HOME!, env.XDG_CONFIG_HOME!];
  const projects = join(home, "code");
  mkdirSync(join(projects, "p0", "app"), { recursive: true });
  const others = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [join(projects, `p${i}`, "app"), { allow: ["run:make test *"] }]));
  const settings = join(config, "bunker", "settings.json");
  mkdirSync(join(settings, ".."), { recursive: true });
  const log = join(home, "strace.log");
  /** The file-system calls that named one of the other projects' keys before the first connect(). */
  const callsOnOtherKeys = async (workspaces: Record<string, unknown>) => {
    writeFileSync(settings, JSON.stringify({ workspaces }));
    const r = await runBunker(["-p", "hi"], { cwd: root, env, argv: [strace!, "-f", "-qq", "-e", "trace=%file,connect", "-o", log, ...BUNKER] });
    expect(r.stdout).toMatch(/one|two/);
    const lines = readFileSync(log, "utf8").split("\n");
    const first = lines.findIndex((l) => /connect\(/.test(l));
    return lines.slice(0, first).filter((l) => l.includes(`"${projects}/`)).length;
  };
  expect(await callsOnOtherKeys({ ...others, [realpathSync(root)]: { allow: ["run:make *"] } })).toBe(0);
  expect(await callsOnOtherKeys(others)).toBeLessThanOrEqual(200);
});
