// A command's colours in a real terminal (tmux): the live tail, the lines kept
// after it and /expand show the text without `\x1b[31m` noise; any other escape
// is still shown escaped; the model's result keeps the bytes as they were.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, press, quitWithCtrlD, toolResults, waitForCount } from "../support/cli.ts";
import { tmuxAvailable } from "../support/tmux.ts";

const e2e = endToEnd("bunker-colours-");

describe.skipIf(!tmuxAvailable)("coloured command output", () => {
  test("SGR is dropped from the live tail, the kept lines and /expand; a cursor move stays escaped; the model's result is unchanged", async () => {
    const command = "printf '\\033[31mred\\033[0m plain\\n'; sleep 2; printf 'move\\033[2Aup\\n'";
    const fake = e2e.serve([reply([toolUse("run_bash", { command })]), reply("Ran it.")]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "--allow-run", "go"], { cwd: root, env, cols: 120, rows: 40 });
    const live = await waitForCount(tmux, "│ red plain", 1);
    expect(live).not.toContain("\\x1b[31m");
    const done = await waitForCount(tmux, "Ran it.", 1);
    expect(done).toContain("    red plain");
    expect(done).toContain("move\\x1b[2Aup");
    expect(done).not.toContain("\\x1b[31m");
    expect(done).not.toContain("\\x1b[0m");
    expect(toolResults(fake.requests[1])[0]?.content).toContain("\x1b[31mred\x1b[0m plain");

    tmux.keys(["/expand"], true);
    await press(tmux, "Enter");
    // The pager's screen (it waits for q however short the output: N12-16).
    const expanded = await waitForCount(tmux, "(END)", 1);
    expect(expanded).not.toContain("\\x1b[31m");
    expect(expanded).toContain("move\\x1b[2Aup");
    expect(expanded.slice(expanded.lastIndexOf("exit code 0"))).toContain("red plain");
    tmux.keys(["q"]);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  }, 30_000);

  test("a colour code in a file name is not colouring: ls lists it escaped, exactly as the file is named", async () => {
    e2e.serve([reply([toolUse("run_bash", { command: "ls" })]), reply("Listed.")]);
    const { root, env } = e2e.workspace();
    writeFileSync(join(root, "\x1b[31mred.txt"), "");
    writeFileSync(join(root, "plain.txt"), "");
    const tmux = await e2e.terminal([...BUNKER, "--allow-run", "go"], { cwd: root, env, cols: 120, rows: 40 });
    const done = await waitForCount(tmux, "Listed.", 1);
    expect(done).toContain("    \\x1b[31mred.txt");
    expect(done).toContain("    plain.txt");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  }, 30_000);
});
