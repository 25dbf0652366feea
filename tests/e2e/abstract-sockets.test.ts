// Red team 6's F11d: on a kernel whose Landlock cannot scope abstract Unix sockets (run here under a seccomp filter
// that makes Landlock fail ENOSYS, as before Linux 5.13), bare --allow-net shares the machine's abstract sockets
// with everything sandboxed. The person is told at start, whether the session runs commands or only MCP servers.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { canScopeAbstractSockets } from "../../src/sandbox/landlock.ts";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { BUNKER, endToEnd, runBunker, toolResults } from "../support/cli.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { testServer, writeUserSettings } from "../support/mcp.ts";

const python = Bun.which("python3");
const usable = detectSandbox().kind === "bubblewrap" && python !== null;
const e2e = endToEnd("bunker-e2e-abstract-");
/** bunker as on an older kernel. */
const oldKernel = [python ?? "python3", join(import.meta.dir, "../support/no-landlock.py"), ...BUNKER];
const NOTICE = "Bare --allow-net shares this machine's network with commands and MCP servers, and this kernel's Landlock (no Landlock;";

describe.skipIf(!usable)("bare --allow-net where Landlock cannot scope abstract sockets: the person is told", () => {
  test("a session that calls only an MCP server (no command ever judged) says it before the server starts", async () => {
    const fake = e2e.serve([reply([toolUse("mcp__alpha__echo", { text: "hi" })]), reply("Done.")]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, { mcpServers: { alpha: testServer(["--name", "alpha"]) } });
    const r = await runBunker(["-p", "echo", "--allow-net", "--allow-mcp=alpha", "--sandbox", "on"], { cwd: root, env, argv: oldKernel });
    expect(toolResults(fake.requests[1])[0]?.content).toBe("alpha says: hi");
    expect(r.stderr.split(NOTICE).length - 1).toBe(1);
  });

  test("a session that runs a command says it once", async () => {
    e2e.serve([reply([toolUse("run_bash", { command: "echo ran" })]), reply("Done.")]);
    const { root, env } = e2e.workspace();
    const r = await runBunker(["-p", "run", "--allow-net", "--allow-run", "--sandbox", "on"], { cwd: root, env, argv: oldKernel });
    expect(r.stderr.split(NOTICE).length - 1).toBe(1);
  });

  test.skipIf(!canScopeAbstractSockets())("control: where Landlock scopes them, nothing is said", async () => {
    e2e.serve([reply([toolUse("mcp__alpha__echo", { text: "hi" })]), reply("Done.")]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, { mcpServers: { alpha: testServer(["--name", "alpha"]) } });
    const r = await runBunker(["-p", "echo", "--allow-net", "--allow-mcp=alpha", "--sandbox", "on"], { cwd: root, env });
    expect(r.stderr).not.toContain("abstract Unix sockets");
  });
});
