// MCP in a real terminal (tmux): a tool call asks, showing the server, the
// tool and the escaped arguments; a project's .mcp.json server asks once per
// workspace and again when its definition changes; /mcp lists and restarts
// servers, and a server's prompt is a slash command.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { defaultSessionsPath } from "../../src/session/paths.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { BUNKER, count, endToEnd, press, quitWithCtrlD, toolResults, waitForCount } from "../support/cli.ts";
import { SERVER_PACKAGE, serverPackageGrant, testServer, writeProjectServers, writeUserSettings } from "../support/mcp.ts";
import { tmuxAvailable, type TmuxSession } from "../support/tmux.ts";

const e2e = endToEnd("bunker-mcp-tty-");
const start = (root: string, env: Record<string, string>, args: string[] = []) => e2e.terminal([...BUNKER, ...args], { cwd: root, env, cols: 140, rows: 50 });

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
    const fake = e2e.serve([reply([toolUse("mcp__alpha__echo", { text: "hi\u202eexe" })]), reply("Echoed.")]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, { mcpServers: { alpha: testServer(["--name", "alpha"]) } });
    await start(root, env, ["say hi"]);
    const screen = await waitForCount(e2e.tmux, "Call alpha/echo?", 1);
    expect(screen).toContain("mcp__alpha__echo wants to call the MCP tool echo of alpha");
    expect(screen).toContain("server: alpha   tool: echo");
    expect(screen).toContain("the server says this tool only reads (its word, not checked)");
    expect(screen).toContain('"text": "hi\\u202eexe"');
    expect(screen).not.toContain("\u202e");
    expect(screen).toContain("2. Yes, and allow alpha/echo for this session");
    await press(e2e.tmux, "Enter");
    const after = await waitForCount(e2e.tmux, "Echoed.", 1);
    expect(toolResults(fake.requests[1])).toEqual([{ content: "alpha says: hi\u202eexe", is_error: false }]);
    // The person sees the result too, as they see a command's, escaped (the new user saw nothing of it).
    expect(after.slice(after.lastIndexOf("Call alpha/echo?"))).toMatch(/\n {4}alpha says: hi\\u202eexe\n/);
    expect(await quitWithCtrlD(e2e.tmux)).not.toBeNull();
  });

  test("Escape at the start question: one line saying it is not started and how to ask again", async () => {
    e2e.serve([]);
    const { root, env } = e2e.workspace();
    writeProjectServers(root, { proj: testServer(["--name", "proj"]) });
    writeUserSettings(env, { mcpServers: serverPackageGrant("proj") });
    const tmux = await start(root, env);
    await waitForCount(tmux, "Start proj?", 1);
    await press(tmux, "Escape");
    const screen = await waitForCount(tmux, "Not started; /mcp start proj asks again.", 1);
    expect(screen).not.toContain("(no option chosen)");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("a project's server asks once with its full command, is remembered, and asks again after its definition changes", async () => {
    const fake = e2e.serve([]);
    const { root, env } = e2e.workspace();
    const def = testServer(["--name", "proj"], { env: { PROJ_KEY: "${PROJ_TOKEN:-none}" } });
    writeProjectServers(root, { proj: def });
    writeUserSettings(env, { mcpServers: serverPackageGrant("proj") });

    // 1: asked, with what runs and what of ours it gets; yes
    await start(root, env);
    let screen = await waitForCount(e2e.tmux, "Start proj?", 1);
    expect(screen).toContain("This project's");
    expect(screen).toContain("wants to start an MCP server proj");
    expect(screen).toContain(`$ ${process.execPath} `);
    expect(screen).toContain("mcp-server.ts --name proj");
    expect(screen).toContain("sets: PROJ_KEY=${PROJ_TOKEN:-none}");
    expect(screen).toContain("gets your variables: PROJ_TOKEN");
    // Exactly the paths it sees beyond the workspace: the one the person granted.
    expect(screen).toContain(`also sees, read-only: ${SERVER_PACKAGE}`);
    await press(e2e.tmux, "1", "Enter");
    await waitForCount(e2e.tmux, "/help for commands", 1);
    expect(await mcpListing(e2e.tmux, /proj\s+project\s+ready/)).toMatch(/proj\s+project\s+ready\s+8 tools/);
    expect(await quitWithCtrlD(e2e.tmux)).not.toBeNull();
    e2e.tmux.close();

    // 2: remembered: not asked, started
    await start(root, env);
    await waitForCount(e2e.tmux, "/help for commands", 1);
    expect(await mcpListing(e2e.tmux, /proj\s+project\s+ready/)).toMatch(/proj\s+project\s+ready/);
    expect(count(e2e.tmux.screen(), "Start proj?")).toBe(0);
    expect(await quitWithCtrlD(e2e.tmux)).not.toBeNull();
    e2e.tmux.close();

    // 3: the definition changed: asked again, saying so; no means not started
    writeProjectServers(root, { proj: { ...def, args: [...(def.args as string[]), "--tools", "1"] } });
    await start(root, env);
    screen = await waitForCount(e2e.tmux, "Start proj?", 1);
    expect(screen).toContain("changed its MCP server proj");
    // Enter alone: no, for this session.
    await press(e2e.tmux, "Enter");
    await waitForCount(e2e.tmux, "/help for commands", 1);
    expect(await mcpListing(e2e.tmux, /not started/)).toContain("not started: you declined it for this session");
    expect(await quitWithCtrlD(e2e.tmux)).not.toBeNull();
  });

  test("keys typed before a project's server question never answer it; they, and keys typed on after a number, wait in the input line", async () => {
    const fake = e2e.serve([]);
    const { root, env } = e2e.workspace();
    writeProjectServers(root, { proj: testServer(["--name", "proj"]) });
    writeUserSettings(env, { mcpServers: serverPackageGrant("proj") });
    const t = await start(root, env);
    // Typed at once, while bunker starts: before the question is drawn ("y" would be a yes).
    t.keys(["yes please"], true);
    await waitForCount(t, "Start proj?", 1);
    // Longer than the pause after which a question drawn while the person typed takes keys: still open.
    await Bun.sleep(800);
    expect(t.screen()).toContain("Enter: confirm");
    // A 1 and, in the same read, more of the person's message: the 1 is the message's start ("1 more thing" must not
    // move toward remembering a server), so it waits in the input line with the rest, the cursor stays on "No", and
    // the question stays open (new user: the 1 moved to "Yes", and their next Enter remembered the server).
    t.keys(["1 now"], true);
    await Bun.sleep(800);
    expect(t.screen()).toContain("Enter: confirm");
    expect(t.screen()).toMatch(/●\s+2\. No, not in this session/);
    // Enter after a pause picks what the cursor is on: no.
    await press(t, "Enter");
    await waitForCount(t, "/help for commands", 1);
    const screen = await waitForCount(t, "› yes please1 now", 1);
    expect(screen).not.toContain("Enter: confirm");
    expect(screen).toContain("No, not in this session");
    expect(screen).not.toContain("1. Yes, and remember it for this workspace");
    expect(fake.requests).toHaveLength(0);
    await press(t, "C-c");
    expect(await quitWithCtrlD(t)).not.toBeNull();
  });

  test("typing a first message at the start-up question (drawn under the banner) never answers it; the keys stay in the input line; Enter alone is no", async () => {
    const fake = e2e.serve([]);
    const { root, env } = e2e.workspace();
    writeProjectServers(root, { proj: testServer(["--name", "proj"]) });
    writeUserSettings(env, { mcpServers: serverPackageGrant("proj") });
    const t = await start(root, env);
    let screen = await waitForCount(t, "Start proj?", 1);
    // The banner first: the question is not start-up output to type through.
    expect(screen.indexOf("/help for commands")).toBeGreaterThanOrEqual(0);
    expect(screen.indexOf("/help for commands")).toBeLessThan(screen.indexOf("Start proj?"));
    expect(screen).toMatch(/●\s+2\. No, not in this session/);
    // The person did not read it: a message with an `n` (once the "no" key), then Enter.
    await Bun.sleep(1500);
    t.keys(["improve the module docstring"], true);
    await press(t, "Enter");
    await Bun.sleep(300);
    t.keys(["make it so"], true);
    await press(t, "Enter");
    await Bun.sleep(800);
    screen = t.screen();
    expect(screen).toContain("Enter: confirm");
    // Still open, the cursor where it started: nothing typed moved or answered it.
    expect(screen).toMatch(/●\s+2\. No, not in this session/);
    // A pause, then Enter alone: the default, no for this session.
    await press(t, "Enter");
    screen = await waitForCount(t, "make it so", 1);
    expect(screen).toContain("› improve the module docstring");
    expect(screen).toContain("  make it so");
    expect(fake.requests).toHaveLength(0);
    // Answered by that Enter alone: no, for this session, nothing remembered.
    expect(screen).toMatch(/Start proj\?\n│\s+2\. No, not in this session\n› improve/);
    await press(t, "C-c");
    expect(existsSync(join(dirname(defaultSessionsPath(env)), "mcp-consent.json"))).toBe(false);
    expect(await quitWithCtrlD(t)).not.toBeNull();
  });

  test("never is remembered: the next start does not ask; /mcp start asks again and a yes starts it", async () => {
    e2e.serve([]);
    const { root, env } = e2e.workspace();
    writeProjectServers(root, { proj: testServer(["--name", "proj"]) });
    writeUserSettings(env, { mcpServers: serverPackageGrant("proj") });

    await start(root, env);
    const screen = await waitForCount(e2e.tmux, "Start proj?", 1);
    expect(screen).toContain("3. No, and do not ask again in this workspace");
    // The number picks it at once, as in every approval.
    await press(e2e.tmux, "3", "Enter");
    await waitForCount(e2e.tmux, "/help for commands", 1);
    expect(await mcpListing(e2e.tmux, /not started/)).toContain("not started: you declined it in this workspace; /mcp start proj asks again");
    expect(await quitWithCtrlD(e2e.tmux)).not.toBeNull();
    e2e.tmux.close();

    await start(root, env);
    await waitForCount(e2e.tmux, "/help for commands", 1);
    expect(await mcpListing(e2e.tmux, /not started/)).toContain("you declined it in this workspace");
    expect(count(e2e.tmux.screen(), "Start proj?")).toBe(0);
    e2e.tmux.keys(["/mcp start proj"], true);
    await press(e2e.tmux, "Enter");
    await waitForCount(e2e.tmux, "Start proj?", 1);
    await press(e2e.tmux, "1", "Enter");
    await waitForCount(e2e.tmux, "MCP server proj started (8 tools).", 1);
    expect(await mcpListing(e2e.tmux, /proj\s+project\s+ready/)).toMatch(/proj\s+project\s+ready\s+8 tools/);
    expect(await quitWithCtrlD(e2e.tmux)).not.toBeNull();
  });

  test("/mcp lists and restarts a server; its prompt is a slash command whose text is sent", async () => {
    const fake = e2e.serve([reply("Hello, Ann!")]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, { mcpServers: { alpha: testServer(["--name", "alpha"]) } });
    await start(root, env);
    await waitForCount(e2e.tmux, "/help for commands", 1);
    const screen = await mcpListing(e2e.tmux, /alpha\s+user\s+ready/);
    expect(screen).toMatch(/alpha\s+user\s+ready\s+8 tools, [\d.]+ KB of schemas\s+sandboxed, no network|alpha\s+user\s+ready\s+8 tools, [\d.]+ KB of schemas\s+NOT sandboxed/);
    expect(screen).toContain("Prompts: /mcp__alpha__greet");
    e2e.tmux.keys(["/mcp restart alpha"], true);
    await press(e2e.tmux, "Enter");
    await waitForCount(e2e.tmux, "MCP server alpha restarted (8 tools).", 1);
    e2e.tmux.keys(["/mcp__alpha__greet Ann"], true);
    await press(e2e.tmux, "Enter");
    await waitForCount(e2e.tmux, "Hello, Ann!", 1);
    const sent = fake.requests[0]!.body.messages[0]!;
    expect(JSON.stringify(sent.content)).toContain("Please greet Ann warmly.");
    expect(await quitWithCtrlD(e2e.tmux)).not.toBeNull();
  });
  test("a server that never ran: its whole message once (path normalised, typo named), no restart advice, /mcp says it never ran; /mcp restart says it once", async () => {
    e2e.serve([]);
    const { root, env } = e2e.workspace();
    const bin = join(root, "..", "bin");
    for (const [dir, name] of [[join(root, "node_modules", ".bin"), "proj-mcp"], [bin, "notes-mcp"]] as const) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, name), "#!/bin/sh\n");
      chmodSync(join(dir, name), 0o755);
    }
    writeUserSettings(env, { mcpServers: { proj: { command: "proj-mcp" }, notes: { command: "notes-mpc" } } });
    // tmux's -e does not set PATH: env(1) does.
    const t = await e2e.terminal(["env", `PATH=./node_modules/.bin:${bin}:${process.env.PATH}`, ...BUNKER], { cwd: root, env, cols: 140, rows: 50 });
    await waitForCount(t, "/help for commands", 1);
    const flat = () => t.screen().replace(/\s+/g, " ");
    const whole = `MCP server proj did not start: the program "proj-mcp" is on PATH only at ${root}/node_modules/.bin/proj-mcp, where commands can write, so bunker does not start it from there; name it by its path in the server's definition if it is the one you mean.`;
    const typo = `MCP server notes did not start: the program "notes-mpc" was not found on PATH; did you mean "notes-mcp"? (its "command" in`;
    for (let n = 0; n < 100 && !(flat().includes(whole) && flat().includes(typo)); n++) await Bun.sleep(100);
    expect(flat()).toContain(whole);
    expect(flat()).toContain(typo);
    expect(flat()).not.toContain("/./");
    expect(flat()).not.toContain("/mcp restart notes starts it again");
    const listing = (await mcpListing(t, /notes/)).replace(/\s+/g, " ");
    expect(listing).toContain("if it is the one you mean never ran");
    expect(listing).toContain('did you mean "notes-mcp"?');
    expect(listing).not.toContain("NOT sandboxed");
    const before = count(flat(), 'did you mean "notes-mcp"');
    t.keys(["/mcp restart notes"], true);
    await press(t, "Enter");
    await waitForCount(t, "/mcp restart notes", 1);
    await Bun.sleep(1000);
    expect(count(flat(), 'did you mean "notes-mcp"')).toBe(before + 1);
    expect(await quitWithCtrlD(t)).not.toBeNull();
  });
});
