// SIGTERM ends bunker within a second wherever it is: in a sandboxed command
// (the command dies with it) and at an approval prompt in a real terminal
// (the terminal is given back).
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { BUNKER, endToEnd } from "../support/cli.ts";
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

/**
 * Runs bunker in the pane under a parent that reaps it and prints exactly how
 * it ended (its exit status, or the signal that killed it) and whether the
 * terminal was left raw. tmux's own pane status is no witness: its server
 * sometimes misses the SIGCHLD (it is in a blocking wait for another child of
 * its own), and the pane then reads as dead with no status for seconds.
 */
const REAPER = [
  'const p = Bun.spawn(process.argv.slice(1), { stdio: ["inherit", "inherit", "inherit"] });',
  "await p.exited;",
  'const tty = Bun.spawnSync(["stty", "-a"], { stdin: "inherit" }).stdout.toString();',
  'console.log("bunker ended: exit " + p.exitCode + ", signal " + p.signalCode + ", terminal " + (/(^|\\s)-(icanon|echo)(\\s|$)/m.test(tty) ? "raw" : "cooked"));',
  "await Bun.sleep(1e9)",
].join(" "); // no ";" at the end: tmux would take it for the end of its own command

/** Starts bunker with `prompt` under REAPER, waits for `shown`, sends SIGTERM; what the person is left with. */
async function sigtermWhen(shown: string, prompt: string): Promise<{ ms: number; ended: string; cursorShown: boolean }> {
  const { root, env } = e2e.workspace();
  const tmux = await e2e.terminal(["bun", "-e", REAPER, ...BUNKER, prompt], { cwd: root, env, cols: 100, rows: 30 });
  await tmux.waitFor(shown);
  const reaper = Number(tmux.command(["display-message", "-p", "-t", tmux.name, "#{pane_pid}"]).trim());
  const pid = Number(readdirSync(`/proc/${reaper}/task`).map((t) => readFileSync(`/proc/${reaper}/task/${t}/children`, "utf8")).join(" ").trim().split(/\s+/)[0]);
  expect(alive(pid)).toBe(true);
  const t = Date.now();
  process.kill(pid, "SIGTERM");
  while (alive(pid) && Date.now() - t < 3000) await Bun.sleep(10);
  const ms = Date.now() - t;
  const ended = (await tmux.waitFor(/bunker ended: .*/, 5000)).match(/bunker ended: .*/)![0];
  const cursorShown = tmux.command(["display-message", "-p", "-t", tmux.name, "#{cursor_flag}"]).trim() === "1";
  return { ms, ended, cursorShown };
}

test.skipIf(!tmuxAvailable)("SIGTERM at an approval prompt: bunker exits 143 through its handler within a second, the terminal given back (cooked, cursor shown)", async () => {
  e2e.serve([reply([toolUse("write_file", { path: "a.txt", content: "new\n" })]), reply("never")]);
  const { ms, ended, cursorShown } = await sigtermWhen("a.txt?", "write a.txt");
  expect(ms).toBeLessThan(1000);
  expect(ended).toBe("bunker ended: exit 143, signal null, terminal cooked");
  // The prompt hides the cursor while it asks.
  expect(cursorShown).toBe(true);
}, 30_000);

test.skipIf(!tmuxAvailable)("SIGTERM while an answer streams: the same (the live region hides the cursor while it draws)", async () => {
  e2e.serve([reply("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen", "end_turn", { eventDelayMs: 150, chunkSize: 4 })]);
  const { ms, ended, cursorShown } = await sigtermWhen("three", "count");
  expect(ms).toBeLessThan(1000);
  expect(ended).toBe("bunker ended: exit 143, signal null, terminal cooked");
  expect(cursorShown).toBe(true);
}, 30_000);
