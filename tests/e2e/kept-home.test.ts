// The sandbox's home is kept between the commands of one workspace (caches
// such as ~/.cache/pip and ~/.npm are not fetched again), in bunker's own
// state folder: never the person's home, never another workspace's, never
// shown to a command at its real path, and not kept under
// --no-session-persistence. Real bubblewrap, the binary, the scripted server.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { KEPT_HOMES } from "../../src/sandbox/kept-home.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";

const usable = detectSandbox().kind === "bubblewrap";
const runs = sandboxRuns();

describe.skipIf(!usable)("the sandbox's home, kept for the workspace (real bubblewrap)", () => {
  test("what one command caches in ~ the next command of the workspace with the same grants finds, and no configuration it wrote there; wider grants, another workspace, the person's home and a run that keeps nothing do not", async () => {
    const fake = runs.start([]);
    const ws = runs.workspace("bunker-kept-home-", fake.url);
    const run = async (root: string, command: string, flags: string[] = ["--allow-run"]) => {
      fake.push(reply([toolUse("run_bash", { command })]), reply("Done."));
      const r = await runHeadless(root, ws.env, ["-p", "go", ...flags, "--no-prompt"]);
      expect(r.code).toBe(0);
      return toolResults(fake.requests.at(-1))[0]!.content;
    };
    expect(await run(ws.root, "mkdir -p ~/.cache/pip ~/.npm/_cacache && echo wheel > ~/.cache/pip/marker && echo tarball > ~/.npm/_cacache/marker && echo made")).toContain("made");
    // The next command (a new bunker, as after a restart) finds both.
    expect(await run(ws.root, "cat ~/.cache/pip/marker ~/.npm/_cacache/marker")).toBe("exit code 0\n\nwheel\ntarball");
    // Not in the person's home: in bunker's state folder, one folder per workspace.
    expect(existsSync(join(ws.home, ".cache/pip/marker"))).toBe(false);
    expect(existsSync(join(ws.home, ".npm"))).toBe(false);
    const kept = join(ws.home, ".local/state/bunker", KEPT_HOMES);
    const homes = readdirSync(kept);
    expect(homes).toHaveLength(1);
    expect(readFileSync(join(kept, homes[0]!, ".cache/pip/marker"), "utf8")).toBe("wheel\n");
    // Inside, bunker's real state folder (the sessions) stays out of reach: ~/.local/state/bunker there is the kept home's own.
    expect(await run(ws.root, "ls ~/.local/state/bunker/sessions.db 2>&1; ls -a ~/.local/state 2>&1 | head -3")).not.toContain("sessions.db\n");

    // Only the caches: what configures the tools (a ~/.npmrc, a ~/.gitconfig a command wrote) is gone for the next
    // command, which may belong to a session with wider grants (red team 9).
    // Nor programs a later command would run from the cache folders around them (corepack's yarn in ~/.cache/node, npx's packages).
    expect(await run(ws.root, "echo 'registry=http://evil.example/' > ~/.npmrc && git config --global core.pager evil && mkdir -p ~/.cache/node/corepack ~/.npm/_npx && echo evil > ~/.cache/node/corepack/yarn && echo evil > ~/.npm/_npx/x && echo planted")).toContain("planted");
    expect(await run(ws.root, "cat ~/.npmrc ~/.cache/node/corepack/yarn ~/.npm/_npx/x 2>&1; git config --global core.pager; cat ~/.cache/pip/marker")).toMatch(/No such file or directory[^]*No such file or directory[^]*No such file or directory[^]*\nwheel$/);
    expect(toolResults(fake.requests.at(-1))[0]!.content).not.toContain("evil");

    // Wider grants (a token passed on, the network) get caches of their own: a crate's build.rs a narrower session
    // planted in ~/.cargo/registry never runs with them (red team 10's F04). The same grants again find theirs.
    expect(await run(ws.root, "cat ~/.cache/pip/marker 2>&1; true", ["--allow-run", "--allow-env=DEPLOY_TOKEN"])).toContain("No such file or directory");
    expect(await run(ws.root, "cat ~/.cache/pip/marker 2>&1; true", ["--allow-run", "--allow-net"])).toContain("No such file or directory");
    expect(await run(ws.root, "cat ~/.cache/pip/marker")).toBe("exit code 0\n\nwheel");

    // Another workspace has a home of its own.
    const other = join(ws.base, "other");
    mkdirSync(other);
    expect(await run(other, "cat ~/.cache/pip/marker 2>&1; true")).toContain("No such file or directory");
    // --no-session-persistence keeps nothing: an empty home, gone after the command.
    expect(await run(ws.root, "cat ~/.cache/pip/marker 2>&1; echo left > ~/left; true", ["--allow-run", "--no-session-persistence"])).toContain("No such file or directory");
    expect(await run(ws.root, "ls ~/left 2>&1; true")).toContain("No such file or directory");
  });
});
