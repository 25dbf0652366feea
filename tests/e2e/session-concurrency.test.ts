// Two bunkers continuing one session at once (`bunker -c` twice), 20 times:
// a turn still running in one is never taken up by the other, so each
// task's commands run exactly once. Each bunker talks to its own scripted
// server, so what each one sent is known.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { endToEnd, runHeadless, workspace } from "../support/cli.ts";
import { until } from "../support/wait.ts";

const e2e = endToEnd("bunker-concurrent-");
const serve = e2e.serve;

const allText = (messages: MessageParam[]) => JSON.stringify(messages);

/** One round in its own workspace and HOME, so rounds can run side by side. */
async function round(n: number): Promise<void> {
  const first = serve([reply("Ready.")]);
  const { root, env } = workspace("bunker-concurrent-", first.url);
  expect((await runHeadless(root, env, ["-p", "get ready"])).code).toBe(0);
  // Even rounds: both start at the same moment. Odd rounds: B starts once A's prompt is saved and its request
  // is out, and A's reply is held until B's first request has arrived (so A is surely mid-turn while B loads):
  // the window in which a second bunker used to take A's prompt up as its own.
  const inFlight = n % 2 === 1;
  const callA = reply([toolUse("run_bash", { command: "echo A >> ran.txt" })]);
  const a = serve([inFlight ? async () => (await until(() => b.requests.length > 0, "B's first request", 20_000), callA) : { ...callA, delayMs: 300 }, reply("Done A.")]);
  const b = serve([reply([toolUse("run_bash", { command: "echo B >> ran.txt" })]), reply("Done B.")]);
  const args = (task: string) => ["-c", "-p", task, "--allow-run", "--sandbox", "off"];
  const runA = runHeadless(root, { ...env, ANTHROPIC_BASE_URL: a.url }, args("task A"));
  if (inFlight) await until(() => a.requests.length > 0, "A's first request");
  const [ra, rb] = await Promise.all([runA, runHeadless(root, { ...env, ANTHROPIC_BASE_URL: b.url }, args("task B"))]);
  expect([ra.code, rb.code, ra.stdout, rb.stdout]).toEqual([0, 0, "Done A.\n", "Done B.\n"]);
  expect(readFileSync(join(root, "ran.txt"), "utf8").split("\n").filter(Boolean).sort()).toEqual(["A", "B"]);
  // B never saw A's task without its answer, and A never saw B's.
  for (const req of b.requests) if (allText(req.body.messages).includes("task A")) expect(allText(req.body.messages)).toContain("Done A.");
  for (const req of a.requests) if (allText(req.body.messages).includes("task B")) expect(allText(req.body.messages)).toContain("Done B.");
  if (inFlight) expect(rb.stderr).toContain('("task A") is still running in another bunker');
}

test("two `bunker -c` started together, 20 times: each task's command runs exactly once", async () => {
  // Two lanes of ten rounds each: every round has its own session, and the waiting overlaps.
  const lane = async (start: number) => {
    for (let n = start; n < 20; n += 2) await round(n);
  };
  await Promise.all([lane(0), lane(1)]);
  // 60 starts of bunker: 4 s from the binary, 40 s from the sources (BUNKER_BIN=source) beside three other
  // test files; 180 s was too little for that on a machine five times as loaded. Only a hang comes near this.
}, 400_000);
