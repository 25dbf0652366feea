// Red team 7 F8, run for real: a command (sandboxed, allowed to write the
// workspace) turns files bunker's own process reads into a FIFO, a link to
// /dev/zero or a 2 GB sparse file. The next bunker still starts and says what
// it passed over; --undo takes back what it can, names the rest, keeps it.
// And a headless run waiting on the model honours SIGINT and SIGTERM at once,
// saying so.
import { expect, test } from "bun:test";
import { lstatSync, readFileSync, readlinkSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { BUNKER, endToEnd, runHeadless } from "../support/cli.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { until } from "../support/wait.ts";

const e2e = endToEnd("bunker-hostile-");
const sandboxed = detectSandbox().kind === "bubblewrap";

test.skipIf(!sandboxed)("a .mcp.json a command made a FIFO: the next bunker starts at once and says it did not read it", async () => {
  const { root, env, run } = await e2e.headless([reply([toolUse("run_bash", { command: "mkfifo .mcp.json" })]), reply("made")], ["-p", "go", "--allow-run"]);
  expect(run.code).toBe(0);
  // Other agents start what .mcp.json names, so a command's is set aside (red team 8 F15); the person puts it back unread.
  expect(run.stdout + run.stderr).toContain("bunker set aside .mcp.json, which the command created");
  renameSync(join(root, ".mcp.json.bunker-set-aside"), join(root, ".mcp.json"));
  expect(lstatSync(join(root, ".mcp.json")).isFIFO()).toBe(true);
  e2e.serve([reply("hello")]);
  const t0 = Date.now();
  const next = await runHeadless(root, { ...env, ANTHROPIC_BASE_URL: e2e.fake.url }, ["-p", "hi"]);
  expect(Date.now() - t0).toBeLessThan(10_000);
  expect([next.code, next.stdout]).toEqual([0, "hello\n"]);
  expect(next.stderr).toContain(`${join(root, ".mcp.json")} is a named pipe (FIFO), not a regular file; bunker did not read it; no MCP server from it was started`);
}, 60_000);

test.skipIf(!sandboxed)("the model's files made a FIFO, a link to /dev/zero and a 2 GB sparse file: --undo takes back the rest at once, names these and keeps them", async () => {
  const files = ["fifo.md", "zero.md", "sparse.md", "plain.md"];
  const swap = "rm fifo.md zero.md && mkfifo fifo.md && ln -s /dev/zero zero.md && truncate -s 2G sparse.md";
  const { root, env, run } = await e2e.headless(
    [
      reply(files.map((path) => toolUse("read_file", { path }))),
      reply(files.map((path) => toolUse("write_file", { path, content: "draft\n" }))),
      reply([toolUse("run_bash", { command: swap })]),
      reply("done"),
    ],
    ["-p", "write them", "--allow-write", "--allow-run"],
    Object.fromEntries(files.map((f) => [f, "mine\n"])),
  );
  expect(run.code).toBe(0);
  expect(readFileSync(join(root, "plain.md"), "utf8")).toBe("draft\n");
  const t0 = Date.now();
  // Nothing is asked (no terminal): the write grant covers the take-back.
  const undo = await runHeadless(root, env, ["-c", "--undo", "--allow-write"]);
  expect(Date.now() - t0).toBeLessThan(10_000);
  expect(undo.stdout).toBe(
    'Took back turn 1 ("write them"): restored plain.md. Not taken back (still kept for /undo): fifo.md is a named pipe (FIFO), not a regular file; bunker did not read it; ' +
      "zero.md is a symbolic link; bunker did not follow it or read it; sparse.md is 2.0 GB, more than the 64.0 MB bunker reads of it; bunker did not read it. Claude is told when the session is continued.\n",
  );
  expect(readFileSync(join(root, "plain.md"), "utf8")).toBe("mine\n");
  expect(lstatSync(join(root, "fifo.md")).isFIFO()).toBe(true);
  expect(readlinkSync(join(root, "zero.md"))).toBe("/dev/zero");
  expect(statSync(join(root, "sparse.md")).size).toBe(2 ** 31);
}, 60_000);

for (const [signal, code, said] of [
  ["SIGINT", 130, "bunker: interrupted (SIGINT): the turn was stopped before its end.\n"],
  ["SIGTERM", 143, "bunker: ended by SIGTERM\n"],
] as const) {
  test(`${signal} while a headless run waits on the model: it ends within a second (${code}) and says so`, async () => {
    e2e.serve([reply("never in time", "end_turn", { delayMs: 60_000 })]);
    const { root, env } = e2e.workspace();
    const proc = Bun.spawn([...BUNKER, "-p", "go"], { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    await until(() => e2e.fake.requests.length > 0, "the request to reach the server", 20_000);
    const t = Date.now();
    proc.kill(signal);
    expect(await proc.exited).toBe(code);
    expect(Date.now() - t).toBeLessThan(1000);
    expect(await new Response(proc.stderr).text()).toEndWith(said);
  }, 30_000);
}

test("SIGINT while a headless run still waits for its piped input: it ends within a second (130) and says nothing was sent", async () => {
  e2e.serve([reply("never asked")]);
  const { root, env } = e2e.workspace();
  // stdin is a pipe nobody closes: the run waits for the rest of its prompt.
  const proc = Bun.spawn([...BUNKER, "-p", "summarize"], { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  proc.stdin.write("part of it\n");
  proc.stdin.flush();
  // No sign shows when it is waiting on stdin (its handler is not in /proc's SigCgt: Bun takes signals its own way),
  // so give it a second to get there; a SIGINT before start-up would kill it by the signal (no exit code, no line).
  await Bun.sleep(1000);
  const t = Date.now();
  proc.kill("SIGINT");
  expect(await proc.exited).toBe(130);
  expect(Date.now() - t).toBeLessThan(1000);
  expect(await new Response(proc.stderr).text()).toEndWith("bunker: interrupted (SIGINT) before the turn started; nothing was sent.\n");
  expect(e2e.fake.requests).toEqual([]);
}, 30_000);
