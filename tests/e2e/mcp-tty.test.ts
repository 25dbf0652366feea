// MCP in a real terminal (tmux): a tool call asks, showing the server, the
// tool and the escaped arguments; a project's .mcp.json server asks once per
// workspace and again when its definition changes; /mcp lists and restarts
// servers, and a server's prompt is a slash command.
import { afterEach, describe, expect, test } from "bun:test";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { BUNKER, count, press, quitWithCtrlD, stopAll, toolResults, waitForCount, workspace as e2eWorkspace } from "../support/cli.ts";
import { SERVER_PACKAGE, serverPackageGrant, testServer, writeProjectServers, writeUserSettings } from "../support/mcp.ts";
import { TmuxSession, tmuxAvailable } from "../support/tmux.ts";

let fake: FakeAnthropic | undefined;
let tmux: TmuxSession | undefined;
afterEach(async () => {
  await stopAll(tmux, fake);
  tmux = undefined;
  fake = undefined;
});

const workspace = () => e2eWorkspace("bunker-mcp-tty-", fake!.url);
const start = async (root: string, env: Record<string, string>, args: string[] = []) =>
  (tmux = await TmuxSession.start([...BUNKER, ...args], { cwd: root, env, cols: 140, rows: 50 }));

/** Types /mcp until the listing shows `pattern` (a server may still be starting on a busy machine); returns that listing. */
async function mcpListing(t: TmuxSession, pattern: RegExp): Promise<string> {
  for (let n = 1; ; n++) {
    t.keys(["/mcp"], true);
    await press(t, "Enter");
    const screen = await waitForCount(t, "/mcp restart NAME", n);
    const listing = screen.slice(screen.lastIndexOf("MCP servers:"));
    if (pattern.test(listing) || n >= 40) return listing;
    await Bun.sleep(250);
  }
}

describe.skipIf(!tmuxAvailable)("MCP in a real terminal (tmux)", () => {
  test("a call asks, showing the server, the tool, the read-only hint and the arguments escaped; yes runs it", async () => {
    fake = startFakeAnthropic([reply([toolUse("mcp__alpha__echo", { text: "hi\u202eexe" })]), reply("Echoed.")]);
    const { root, env } = workspace();
    writeUserSettings(env, { mcpServers: { alpha: testServer(["--name", "alpha"]) } });
    await start(root, env, ["say hi"]);
    const screen = await waitForCount(tmux!, "Call alpha/echo?", 1);
    expect(screen).toContain("mcp__alpha__echo wants to call the MCP tool echo of alpha");
    expect(screen).toContain("server: alpha   tool: echo");
    expect(screen).toContain("the server says this tool only reads (its word, not checked)");
    expect(screen).toContain('"text": "hi\\u202eexe"');
    expect(screen).not.toContain("\u202e");
    expect(screen).toContain("Yes, and allow alpha/echo for the session");
    await press(tmux!, "Enter");
    await waitForCount(tmux!, "Echoed.", 1);
    expect(toolResults(fake.requests[1])).toEqual([{ content: "alpha says: hi\u202eexe", is_error: false }]);
    expect(await quitWithCtrlD(tmux!)).not.toBeNull();
  });

  test("a project's server asks once with its full command, is remembered, and asks again after its definition changes", async () => {
    fake = startFakeAnthropic([]);
    const { root, env } = workspace();
    const def = testServer(["--name", "proj"], { env: { PROJ_KEY: "${PROJ_TOKEN:-none}" } });
    writeProjectServers(root, { proj: def });
    writeUserSettings(env, { mcpServers: serverPackageGrant("proj") });

    // 1: asked, with what runs and what of ours it gets; yes
    await start(root, env);
    let screen = await waitForCount(tmux!, "Start proj?", 1);
    expect(screen).toContain("This project's");
    expect(screen).toContain("wants to start an MCP server proj");
    expect(screen).toContain(`$ ${process.execPath} `);
    expect(screen).toContain("mcp-server.ts --name proj");
    expect(screen).toContain("sets: PROJ_KEY");
    expect(screen).toContain("gets your variables: PROJ_TOKEN");
    // Exactly the paths it sees beyond the workspace: the one the person granted.
    expect(screen).toContain(`also sees, read-only: ${SERVER_PACKAGE}`);
    await press(tmux!, "Enter");
    await waitForCount(tmux!, "/help for commands", 1);
    expect(await mcpListing(tmux!, /proj\s+project\s+ready/)).toMatch(/proj\s+project\s+ready\s+8 tools/);
    expect(await quitWithCtrlD(tmux!)).not.toBeNull();
    tmux!.close();

    // 2: remembered: not asked, started
    await start(root, env);
    await waitForCount(tmux!, "/help for commands", 1);
    expect(await mcpListing(tmux!, /proj\s+project\s+ready/)).toMatch(/proj\s+project\s+ready/);
    expect(count(tmux!.screen(), "Start proj?")).toBe(0);
    expect(await quitWithCtrlD(tmux!)).not.toBeNull();
    tmux!.close();

    // 3: the definition changed: asked again, saying so; no means not started
    writeProjectServers(root, { proj: { ...def, args: [...(def.args as string[]), "--tools", "1"] } });
    await start(root, env);
    screen = await waitForCount(tmux!, "Start proj?", 1);
    expect(screen).toContain("changed its MCP server proj");
    await press(tmux!, "Down", "Enter");
    await waitForCount(tmux!, "/help for commands", 1);
    expect(await mcpListing(tmux!, /not started/)).toContain("not started: you declined it for this session");
    expect(await quitWithCtrlD(tmux!)).not.toBeNull();
  });

  test("/mcp lists and restarts a server; its prompt is a slash command whose text is sent", async () => {
    fake = startFakeAnthropic([reply("Hello, Ann!")]);
    const { root, env } = workspace();
    writeUserSettings(env, { mcpServers: { alpha: testServer(["--name", "alpha"]) } });
    await start(root, env);
    await waitForCount(tmux!, "/help for commands", 1);
    const screen = await mcpListing(tmux!, /alpha\s+user\s+ready/);
    expect(screen).toMatch(/alpha\s+user\s+ready\s+8 tools, [\d.]+ KB of schemas\s+sandboxed, no network|alpha\s+user\s+ready\s+8 tools, [\d.]+ KB of schemas\s+NOT sandboxed/);
    expect(screen).toContain("Prompts: /mcp__alpha__greet");
    tmux!.keys(["/mcp restart alpha"], true);
    await press(tmux!, "Enter");
    await waitForCount(tmux!, "MCP server alpha restarted (8 tools).", 1);
    tmux!.keys(["/mcp__alpha__greet Ann"], true);
    await press(tmux!, "Enter");
    await waitForCount(tmux!, "Hello, Ann!", 1);
    const sent = fake.requests[0]!.body.messages[0]!;
    expect(JSON.stringify(sent.content)).toContain("Please greet Ann warmly.");
    expect(await quitWithCtrlD(tmux!)).not.toBeNull();
  });
});
