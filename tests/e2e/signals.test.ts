// SIGTERM ends bunker within a second wherever it is: in a sandboxed command
// (the command dies with it) and at an approval prompt in a real terminal
// (the terminal is given back).
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { BUNKER, endToEnd, waitForCount } from "../support/cli.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { alive } from "../support/process.ts";
import { tmuxAvailable } from "../support/tmux.ts";
import { until } from "../support/wait.ts";

const e2e = endToEnd("bunker-signal-");

/** Pids of live processes whose command line contains `arg`. */
function withArg(arg: string): number[] {
  return readdirSync("/proc").filter((e) => /^\d+$/.test(e)).map(Number).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(arg) && alive(pid);
    } catch {
      return false;
    }
  });
}

test.skipIf(detectSandbox().kind !== "bubblewrap")("SIGTERM during a sandboxed command: bunker exits 143 within a second, the command with it", async () => {
  const marker = `4242.${process.pid}`;
  e2e.serve([reply([toolUse("run_bash", { command: `sleep ${marker}` })]), reply("never")]);
  const { root, env } = e2e.workspace();
  const proc = Bun.spawn([...BUNKER, "-p", "go", "--allow-run"], { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  await until(() => withArg(`sleep ${marker}`).length > 0, "the sandboxed command to start", 20_000);
  const t = Date.now();
  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(143);
  expect(Date.now() - t).toBeLessThan(1000);
  // bunker's exit is the promise timed above; the sandbox's reaping of the command may lag on a loaded machine.
  await until(() => withArg(`sleep ${marker}`).length === 0, "the sandboxed command to be gone", 10_000);
  expect(withArg(`sleep ${marker}`)).toEqual([]);
}, 30_000);

test.skipIf(!tmuxAvailable)("SIGTERM at an approval prompt: bunker exits 143 within a second", async () => {
  e2e.serve([reply([toolUse("write_file", { path: "a.txt", content: "new\n" })]), reply("never")]);
  const { root, env } = e2e.workspace();
  // Run under a shell that prints the status as a person's shell sees it (143 whether bunker exits with it or dies of the signal).
  const tmux = await e2e.terminal(["sh", "-c", '"$@"; echo "shell saw status $?"', "sh", ...BUNKER, "write a.txt"], { cwd: root, env, cols: 100, rows: 30 });
  await waitForCount(tmux, "a.txt?", 1);
  const shell = Number(tmux.command(["display-message", "-p", "-t", tmux.name, "#{pane_pid}"]).trim());
  const pid = Number(readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim().split(/\s+/)[0]);
  expect(alive(pid)).toBe(true);
  const t = Date.now();
  process.kill(pid, "SIGTERM");
  while (alive(pid) && Date.now() - t < 3000) await Bun.sleep(10);
  expect(Date.now() - t).toBeLessThan(1000);
  expect(await tmux.waitFor(/shell saw status \d+/, 5000)).toContain("shell saw status 143");
}, 30_000);
