// A key the person pressed for a question that closed never answers the next
// one. The scenario that deleted someone's code: a granted command's
// background child asks for the network and the command ends, withdrawing
// the question, as the person reaches for `y`; the model's next command asks
// at once, and the `y` landed on "Run this command?".
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, press, quitWithCtrlD, toolResults, waitForCount } from "../support/cli.ts";
import { startTestServer, type TestServer } from "../support/net-servers.ts";
import { tmuxAvailable } from "../support/tmux.ts";

const canRun = detectSandbox().kind === "bubblewrap" && tmuxAvailable && Bun.which("curl") !== null;
const e2e = endToEnd("bunker-withdrawn-keys-");
let B: TestServer;
beforeAll(() => {
  if (canRun) B = startTestServer("B", "127.0.0.3");
});
afterAll(() => B?.stop());

describe.skipIf(!canRun)("a key meant for a withdrawn question (tmux)", () => {
  test("y pressed as the network question is withdrawn does not run the next command; it waits in the input line, and a fresh answer runs it", async () => {
    const fake = e2e.serve([
      reply([toolUse("run_bash", { command: `(curl -s -m 8 ${B.url}/late >/dev/null &) ; sleep 1; echo done` })]),
      reply([toolUse("run_bash", { command: "touch second-ran" })]),
      reply("All done."),
    ]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "--allow-run=curl,sleep,echo", "--sandbox", "on", "go"], { cwd: root, env, cols: 140, rows: 50 });
    await waitForCount(tmux, `Allow net access to "127.0.0.3:${B.port}"?`, 1);
    await waitForCount(tmux, "Withdrawn: the command ended before it was answered.", 1);
    // The next question is drawn within moments; the y meant for the first one arrives now.
    await waitForCount(tmux, "Run this command?", 1);
    tmux.keys(["y"], true);
    await Bun.sleep(1500);
    expect(existsSync(join(root, "second-ran"))).toBe(false);
    expect(fake.requests.length).toBe(2);
    // After a pause, a fresh answer is taken.
    await press(tmux, "1");
    const screen = await waitForCount(tmux, "All done.", 1);
    expect(existsSync(join(root, "second-ran"))).toBe(true);
    expect(toolResults(fake.requests[2])).toEqual([{ is_error: false, content: "exit code 0\n\n(no output)" }]);
    // The stray y was kept as typed text, unsent, in the input line.
    expect(screen.split("\n").some((l) => /^› y\s*$/.test(l.trimEnd()))).toBe(true);
    tmux.keys(["C-u"]);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  }, 60_000);
});
