// End to end: bunker starts a real MCP server (the SDK's server side, as the
// person configured it), the scripted model calls its tools, and what comes
// back reaches the model in the form the API accepts. Headless here; the
// prompts in a terminal are in mcp-tty.test.ts.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { tempDir } from "../support/context.ts";
import type { FakeAnthropic } from "../support/fake-anthropic.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { endToEnd, runHeadless, toolResults, workspace } from "../support/cli.ts";
import { PIXEL_PNG } from "../support/mcp-server.ts";
import { MCP_SERVER_SCRIPT } from "../support/mcp.ts";
import { BUN, brokenServer, serverPackageGrant, startHttpServer, testServer, writeProjectServers, writeUserSettings } from "../support/mcp.ts";
import { CREDENTIALS, ORDINARY } from "../support/token-values.ts";

const sandboxed = detectSandbox().kind !== null;
const e2e = endToEnd("bunker-mcp-e2e-");
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** The content blocks of the first tool_result of a request, as sent. */
function resultBlocks(req: FakeAnthropic["requests"][number] | undefined): unknown {
  const last = req?.body.messages.at(-1);
  if (!last || typeof last.content === "string") return undefined;
  return (last.content.find((b) => b.type === "tool_result") as { content?: unknown } | undefined)?.content;
}

describe("a stdio server from the user's settings", () => {
  test("--no-prompt: the call is denied, naming --allow-mcp, on stderr and to the model", async () => {
    const fake = e2e.serve([reply([toolUse("mcp__alpha__echo", { text: "hi" })]), reply("Denied.")]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, { mcpServers: { alpha: testServer(["--name", "alpha"]) } });
    const r = await runHeadless(root, env, ["-p", "echo", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [result] = toolResults(fake.requests[1]);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain("--allow-mcp=alpha");
    expect(r.stderr).toContain("--allow-mcp=alpha");
    // The server's tools are offered under Claude Code's names (once it is ready: a slow start joins later).
    const names = (fake.requests[1]!.body.tools ?? []).map((t) => (t as { name: string }).name);
    expect(names).toContain("mcp__alpha__echo");
    expect(names).toContain("mcp__alpha__picture");
  });

  test("allowed by a rule in the user's settings: text and an image reach the model as API blocks", async () => {
    const fake = e2e.serve([reply([toolUse("mcp__alpha__echo", { text: "hi" }), toolUse("mcp__alpha__picture", {}), toolUse("mcp__alpha__link", {})]), reply("Seen.")]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, { allow: ["mcp:alpha/*"], mcpServers: { alpha: testServer(["--name", "alpha"]) } });
    const r = await runHeadless(root, env, ["-p", "use it", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("denied");
    const results = toolResults(fake.requests[1]);
    expect(results.map((x) => x.is_error)).toEqual([false, false, false]);
    expect(results[0]?.content).toBe("alpha says: hi");
    expect(results[2]?.content).toBe("[resource link: guide.md file:///docs/guide.md (text/markdown; the guide)]");
    const last = fake.requests[1]!.body.messages.at(-1)!;
    const picture = (last.content as { type: string; content?: unknown }[])[1];
    expect(picture?.content).toEqual([
      { type: "text", text: "a one-pixel picture" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL_PNG } },
    ]);
  });

  test("--allow-mcp=alpha/echo allows that tool only", async () => {
    const fake = e2e.serve([reply([toolUse("mcp__alpha__echo", { text: "hi" }), toolUse("mcp__alpha__picture", {})]), reply("Half.")]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, { mcpServers: { alpha: testServer(["--name", "alpha"]) } });
    await runHeadless(root, env, ["-p", "use it", "--no-prompt", "--allow-mcp=alpha/echo"]);
    const results = toolResults(fake.requests[1]);
    expect(results[0]).toEqual({ content: "alpha says: hi", is_error: false });
    expect(results[1]?.is_error).toBe(true);
  });
});

/**
 * A web server on the host's loopback at 127.0.0.2, not 127.0.0.1: the sandbox's own loopback
 * (127.0.0.1, localhost) is always direct, so a host address must go through bunker's proxy.
 */
function localWeb(): { url: string; host: string } {
  const web = Bun.serve({ port: 0, hostname: "127.0.0.2", fetch: () => new Response("reached") });
  cleanups.push(() => web.stop(true));
  return { url: `http://127.0.0.2:${web.port}/`, host: `127.0.0.2:${web.port}` };
}

describe.skipIf(!sandboxed)("the stdio server's sandbox", () => {
  const probe = (input: Record<string, string>) => toolUse("mcp__box__probe", input);

  test("it cannot read ~/.ssh, cannot write the workspace, cannot reach an ungranted local server; its state directory is writable", async () => {
    const web = localWeb();
    const { root, env } = workspace("bunker-mcp-e2e-", "", { "readme.md": "hello\n" });
    mkdirSync(join(env.HOME!, ".ssh"), { recursive: true });
    writeFileSync(join(env.HOME!, ".ssh", "id_marker"), "SECRET-MARKER");
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"]) } });
    const fake = e2e.serve([
      reply([probe({ read: join(env.HOME!, ".ssh", "id_marker") }), probe({ read: join(root, "readme.md") }), probe({ write: join(root, "planted.txt") }), probe({ fetch: web.url }), toolUse("mcp__box__state", {})]),
      reply("Done."),
    ]);
    env.ANTHROPIC_BASE_URL = fake.url;
    const r = await runHeadless(root, env, ["-p", "probe", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [ssh, readme, write, net, state] = toolResults(fake.requests[1]).map((x) => x.content);
    expect(ssh).not.toContain("SECRET-MARKER");
    expect(ssh).toContain("FAILED");
    expect(readme).toContain("hello");
    expect(write).toContain("FAILED");
    expect(existsSync(join(root, "planted.txt"))).toBe(false);
    expect(net).not.toContain("reached");
    expect(state).toContain(": kept");
  });

  test.skipIf(!existsSync("/usr/bin/python3"))("the person's own server starts in its state directory: a module of its name planted in the workspace is not what `python -m` runs (red team 8 F18)", async () => {
    const fake = e2e.serve([reply([toolUse("mcp__fetch__whoami", {})]), reply("Done.")]);
    const { root, env } = e2e.workspace();
    const mini = readFileSync(join(import.meta.dir, "../support/mcp-mini.py"), "utf8");
    // Installed outside the workspace, as pip would; a command's copy of the same name in the workspace.
    const site = tempDir("bunker-mcp-site-");
    for (const [dir, who] of [[site, "installed"], [root, "planted"]] as const) {
      mkdirSync(join(dir, "mcp_server_mini"));
      writeFileSync(join(dir, "mcp_server_mini/__init__.py"), "");
      writeFileSync(join(dir, "mcp_server_mini/__main__.py"), mini.replace('WHO = "installed"', `WHO = "${who}"`));
    }
    writeUserSettings(env, { allow: ["mcp:fetch/*"], mcpServers: { fetch: { command: "/usr/bin/python3", args: ["-m", "mcp_server_mini"], env: { PYTHONPATH: site }, read: [site] } } });
    const r = await runHeadless(root, env, ["-p", "who", "--no-prompt"]);
    expect(r.stderr).not.toContain("did not start");
    expect(toolResults(fake.requests[1])).toEqual([{ content: "the installed server answers", is_error: false }]);
  });

  test("the person's own server named by a path relative to the workspace fails saying where it runs and the full path to name (new user)", async () => {
    e2e.serve([reply("No tools.")]);
    const { root, env } = e2e.workspace();
    writeFileSync(join(root, "mcp-local.ts"), readFileSync(MCP_SERVER_SCRIPT, "utf8"));
    writeUserSettings(env, { allow: ["mcp:local/*"], mcpServers: { local: { command: BUN, args: ["mcp-local.ts"] } } });
    const r = await runHeadless(root, env, ["-p", "hi", "--no-prompt"]);
    expect(r.stderr).toContain(`it runs in its own state folder, not the workspace, so name mcp-local.ts by its full path (${join(root, "mcp-local.ts")})`);
  });

  test.skipIf(!sandboxed)("started by a link under /tmp to its interpreter (the sandbox has its own /tmp): it starts, and its tools answer", async () => {
    const fake = e2e.serve([reply([toolUse("mcp__alpha__echo", { text: "x" })]), reply("Done.")]);
    const { root, env } = e2e.workspace();
    const link = join(dirname(root), "bin", "bun");
    mkdirSync(dirname(link));
    symlinkSync(BUN, link);
    writeUserSettings(env, { allow: ["mcp:alpha/*"], mcpServers: { alpha: { ...testServer(["--name", "alpha"]), command: link } } });
    const r = await runHeadless(root, env, ["-p", "echo"]);
    expect(r.stderr).not.toContain("did not start");
    expect(toolResults(fake.requests[1])).toEqual([{ content: "alpha says: x", is_error: false }]);
  });

  test("its environment is the person's without credentials (by name and by shape); what its definition sets reaches it", async () => {
    const fake = e2e.serve([reply([probe({ read: "/proc/self/environ" })]), reply("Done.")]);
    const { root, env } = e2e.workspace();
    // The control: a value the definition passes on purpose arrives.
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"], { env: { GIVEN_TOKEN: CREDENTIALS.FOO! } }) } });
    const r = await runHeadless(root, { ...env, ...CREDENTIALS, ...ORDINARY }, ["-p", "probe", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [environ] = toolResults(fake.requests[1]).map((x) => x.content);
    for (const [name, value] of Object.entries(ORDINARY)) expect(environ).toContain(`${name}=${value}`);
    expect(environ).toContain(`GIVEN_TOKEN=${CREDENTIALS.FOO}`);
    for (const [name, value] of Object.entries(CREDENTIALS)) {
      expect(environ).not.toContain(`${name}=`);
      if (name !== "FOO") expect(environ).not.toContain(value);
    }
  });

  test("with that host granted to the server in the user's settings, it reaches it through bunker's proxy, and nothing else", async () => {
    const web = localWeb();
    const other = localWeb();
    const fake = e2e.serve([reply([probe({ fetch: web.url }), probe({ fetch: other.url })]), reply("Done.")]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"], { net: [web.host] }) } });
    const r = await runHeadless(root, env, ["-p", "probe", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [granted, ungranted] = toolResults(fake.requests[1]).map((x) => x.content);
    expect(granted).toContain("200 reached");
    expect(ungranted).not.toContain("reached");
  });
});

describe.skipIf(!sandboxed)("bunker's state folder inside the workspace: a server reads none of it but its own folder", () => {
  // XDG_STATE_HOME inside the project; the state folder under a folder the person let every sandboxed process read.
  for (const where of ["project", "granted"] as const) {
    test(`${where === "project" ? "XDG_STATE_HOME inside the project" : "--allow-read of a folder above it (~/.local)"}: sessions, a journal and another server's folder unreadable, its own folder works`, async () => {
      const probe = (input: Record<string, string>) => toolUse("mcp__box__probe", input);
      const { root, env } = workspace("bunker-mcp-e2e-", "");
      if (where === "project") env.XDG_STATE_HOME = join(root, ".state");
      const state = where === "project" ? join(root, ".state", "bunker") : join(env.HOME!, ".local", "state", "bunker");
      // A first session, saved in the state folder (a headless one waits as a journal in sessions.db.pending).
      env.ANTHROPIC_BASE_URL = e2e.serve([reply("Noted.")]).url;
      expect((await runHeadless(root, env, ["-p", "SESSION-PROMPT-MARKER", "--no-prompt"])).code).toBe(0);
      const pending = join(state, "sessions.db.pending");
      const saved = join(pending, readdirSync(pending)[0]!);
      expect(readFileSync(saved, "utf8")).toContain("SESSION-PROMPT-MARKER");
      mkdirSync(join(state, "mcp", "other"), { recursive: true });
      writeFileSync(join(state, "mcp", "other", "token"), "OTHER-SERVER-MARKER");
      writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"]) } });
      const fake = e2e.serve([
        reply([
          probe({ list: state }), probe({ read: saved }), probe({ read: join(state, "mcp", "other", "token") }),
          probe({ write: join(pending, "forged.1-2.jsonl") }), toolUse("mcp__box__state", {}),
        ]),
        reply("Done."),
      ]);
      env.ANTHROPIC_BASE_URL = fake.url;
      const grant = where === "granted" ? [`--allow-read=${join(env.HOME!, ".local")}`] : [];
      const r = await runHeadless(root, env, ["-p", "probe", "--no-prompt", ...grant]);
      expect(r.code).toBe(0);
      const [listing, session, other, forged, own] = toolResults(fake.requests[1]).map((x) => x.content);
      // Its own folder's way down is all it sees of the state folder.
      expect(listing).toBe(`list ${state}: [mcp]`);
      expect(session).toContain("FAILED");
      expect(session).not.toContain("SESSION-PROMPT-MARKER");
      expect(other).toContain("FAILED");
      expect(other).not.toContain("OTHER-SERVER-MARKER");
      expect(forged).toContain("FAILED");
      expect(existsSync(join(pending, "forged.1-2.jsonl"))).toBe(false);
      expect(own).toContain(": kept");
      expect(readFileSync(join(state, "mcp", "box", "note"), "utf8")).toBe("kept");
    });
  }

  test.skipIf(detectSandbox().kind !== "bubblewrap")("its write folder holds the state folder (~/.local): it writes there, but cannot read the sessions nor move a folder above them away", async () => {
    const probe = (input: Record<string, unknown>) => toolUse("mcp__box__probe", input);
    const { root, env } = workspace("bunker-mcp-e2e-", "");
    const local = join(env.HOME!, ".local");
    const state = join(local, "state", "bunker");
    mkdirSync(join(state, "journal"), { recursive: true });
    writeFileSync(join(state, "journal", "x.json"), "JOURNAL-MARKER");
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"], { write: [local] }) } });
    const fake = e2e.serve([
      reply([
        probe({ write: join(local, "notes.txt") }), probe({ read: join(state, "journal", "x.json") }), probe({ list: state }),
        probe({ rename: [join(local, "state"), join(local, "moved")] }), probe({ rename: [state, join(local, "state", "b2")] }),
      ]),
      reply("Done."),
    ]);
    env.ANTHROPIC_BASE_URL = fake.url;
    const r = await runHeadless(root, env, ["-p", "probe", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [written, journal, listing, moveUp, moveState] = toolResults(fake.requests[1]).map((x) => x.content);
    expect(written).toContain(": ok");
    expect(readFileSync(join(local, "notes.txt"), "utf8")).toBe("written by the MCP server\n");
    expect(journal).toContain("FAILED");
    expect(journal).not.toContain("JOURNAL-MARKER");
    expect(listing).toBe(`list ${state}: [mcp]`);
    expect(moveUp).toContain("FAILED EBUSY");
    expect(moveState).toContain("FAILED EBUSY");
    expect(existsSync(join(state, "journal", "x.json"))).toBe(true);
  });
});

describe.skipIf(detectSandbox().kind !== "bubblewrap")("a server's write folder: the folders above what stays read-only in it are pinned, as a command's are", () => {
  test("a deny-write file's folder and a runs-later file's folder cannot be renamed away (EBUSY), so the file never becomes an ordinary one at a new path; writing beside them works", async () => {
    const probe = (input: Record<string, unknown>) => toolUse("mcp__box__probe", input);
    const { root, env } = workspace("bunker-mcp-e2e-", "");
    const notes = join(env.HOME!, "notes");
    mkdirSync(join(notes, "cfg"), { recursive: true });
    mkdirSync(join(notes, "proj", "sub"), { recursive: true });
    writeFileSync(join(notes, "cfg", "prod.yml"), "db_password: the-only-copy\n");
    writeFileSync(join(notes, "proj", "sub", ".envrc"), "export A=1\n");
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"], { write: [notes] }) } });
    const fake = e2e.serve([
      reply([
        probe({ rename: [join(notes, "cfg"), join(notes, "cfg2")] }), probe({ rename: [join(notes, "proj"), join(notes, "proj2")] }),
        probe({ rename: [join(notes, "proj", "sub"), join(notes, "proj", "sub2")] }), probe({ write: join(notes, "cfg", "other.yml") }),
      ]),
      reply("Done."),
    ]);
    env.ANTHROPIC_BASE_URL = fake.url;
    const r = await runHeadless(root, env, ["-p", "probe", "--no-prompt", `--deny-write=${join(notes, "cfg", "prod.yml")}`]);
    expect(r.code).toBe(0);
    const [moveCfg, moveProj, moveSub, written] = toolResults(fake.requests[1]).map((x) => x.content);
    expect(moveCfg).toContain("FAILED EBUSY");
    expect(moveProj).toContain("FAILED EBUSY");
    expect(moveSub).toContain("FAILED EBUSY");
    expect(written).toContain(": ok");
    expect(readFileSync(join(notes, "cfg", "prod.yml"), "utf8")).toBe("db_password: the-only-copy\n");
    expect(existsSync(join(notes, "proj", "sub", ".envrc"))).toBe(true);
  });
});

describe.skipIf(!sandboxed)("what a server's definition names: the person decides what it sees", () => {
  const peek = (path: string, server = "box") => toolUse(`mcp__${server}__probe`, { read: path });

  /** A workspace, a file outside it, and a marker in the fake home's ~/.ssh. */
  function attackScene() {
    const { root, env } = workspace("bunker-mcp-e2e-", "", { "readme.md": "hello\n" });
    const outside = join(root, "..", "outproj");
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, ".env"), "OUTSIDE-SECRET");
    mkdirSync(join(env.HOME!, ".ssh"), { recursive: true });
    writeFileSync(join(env.HOME!, ".ssh", "x"), "SSH-SECRET");
    return { root, env, outsideFile: join(outside, ".env"), sshFile: join(env.HOME!, ".ssh", "x") };
  }

  async function run(root: string, env: Record<string, string>, calls: ReturnType<typeof toolUse>[], flags: string[]) {
    const fake = e2e.serve([reply(calls), reply("Done.")]);
    env.ANTHROPIC_BASE_URL = fake.url;
    const r = await runHeadless(root, env, ["-p", "read them", "--no-prompt", ...flags]);
    expect(r.code).toBe(0);
    return toolResults(fake.requests[1]).map((x) => String(x.content));
  }

  test("a project's server naming a file outside the workspace, or a link in the workspace to it: neither is readable", async () => {
    const { root, env, outsideFile } = attackScene();
    symlinkSync(outsideFile, join(root, "innocent.txt"));
    writeProjectServers(root, { box: testServer(["--name", "box", outsideFile, "./innocent.txt", `--config=${outsideFile}`]) });
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: serverPackageGrant("box") });
    const [direct, viaLink, inside] = await run(root, env, [peek(outsideFile), peek(join(root, "innocent.txt")), peek(join(root, "readme.md"))], ["--allow-mcp=box"]);
    expect(direct).not.toContain("OUTSIDE-SECRET");
    expect(direct).toContain(`read ${outsideFile}: FAILED ENOENT`);
    expect(viaLink).not.toContain("OUTSIDE-SECRET");
    expect(viaLink).toContain("FAILED ENOENT");
    expect(inside).toContain("hello");
  });

  test("--deny-read globs hide what they match from a server, as from commands; without the rule it reads it (control)", async () => {
    const { root, env } = attackScene();
    mkdirSync(join(root, "keys"), { recursive: true });
    writeFileSync(join(root, "keys", "a.pem"), "PEM-SECRET");
    linkSync(join(root, "keys", "a.pem"), join(root, "other-name"));
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"]) } });
    const calls = [peek(join(root, "keys", "a.pem")), peek(join(root, "other-name")), peek(join(root, "readme.md"))];
    const [pem, hardLink, readme] = await run(root, env, calls, ["--deny-read=**/*.pem"]);
    expect(pem).not.toContain("PEM-SECRET");
    expect(hardLink).not.toContain("PEM-SECRET");
    expect(readme).toContain("hello");
    const [control] = await run(root, env, calls.slice(0, 1), []);
    expect(control).toContain("PEM-SECRET");
  });

  test("the person's --allow-read shows that file to a project's server", async () => {
    const { root, env, outsideFile } = attackScene();
    writeProjectServers(root, { box: testServer(["--name", "box", outsideFile]) });
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: serverPackageGrant("box") });
    const [granted] = await run(root, env, [peek(outsideFile)], ["--allow-mcp=box", `--allow-read=${outsideFile}`]);
    expect(granted).toContain("OUTSIDE-SECRET");
  });

  test("a server in the user's settings naming a file: readable; naming ~/.ssh/x: not", async () => {
    const { root, env, outsideFile, sshFile } = attackScene();
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box", outsideFile, sshFile]) } });
    const [named, ssh] = await run(root, env, [peek(outsideFile), peek(sshFile)], []);
    expect(named).toContain("OUTSIDE-SECRET");
    expect(ssh).not.toContain("SSH-SECRET");
    expect(ssh).toContain("FAILED");
  });
});

describe.skipIf(detectSandbox().kind !== "bubblewrap")("a server's write folder gets the git wall a command's writable roots get (red team 5's F7; real bubblewrap)", () => {
  const git = (cwd: string, ...args: string[]) =>
    Bun.spawnSync(["git", ...args], { cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@b", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@b" }, stdout: "pipe", stderr: "pipe", timeout: 10_000 });
  /** The person's notes: a repository with one commit. */
  const notesRepo = (dir: string) => {
    mkdirSync(dir, { recursive: true });
    git(dir, "init", "-q");
    writeFileSync(join(dir, "a.md"), "hi\n");
    git(dir, "add", "a.md");
    git(dir, "commit", "-qm", "one");
  };
  /** What a filesystem server's write_file does on the model's word: its .git's config and hook, a new repository, an .envrc. */
  const attack = (notes: string, mark: string) => {
    const armed = `[core]\n\tfsmonitor = "touch ${mark}; false"\n`;
    return [
      { write: join(notes, ".git/config"), content: armed, append: true },
      { write: join(notes, ".git/hooks/pre-commit"), content: `#!/bin/sh\ntouch ${mark}\n` },
      { mkdir: [join(notes, "new/.git/objects"), join(notes, "new/.git/refs")], write: join(notes, "new/.git/HEAD"), content: "ref: refs/heads/main\n" },
      { write: join(notes, "new/.git/config"), content: armed },
      { write: join(notes, ".envrc"), content: `touch ${mark}\n` },
    ];
  };

  test("its .git stays read-only to it, and a repository or .envrc it makes there is disarmed or set aside after the call", async () => {
    // Unconfined (the control): the same writes arm the person's next git status, in the notes and in the new repository.
    const control = join(tempDir("bunker-mcp-f7-"), "notes");
    notesRepo(control);
    const controlMark = join(control, "..", "PWNED");
    for (const step of attack(control, controlMark)) {
      for (const d of step.mkdir ?? []) mkdirSync(d, { recursive: true });
      writeFileSync(step.write, step.content, { flag: step.append ? "a" : "w" });
    }
    git(control, "status");
    expect(existsSync(controlMark)).toBe(true);
    rmSync(controlMark);
    git(join(control, "new"), "status");
    expect(existsSync(controlMark)).toBe(true);

    const { root, env } = workspace("bunker-mcp-f7-", "");
    const notes = join(env.HOME!, "notes");
    notesRepo(notes);
    const config = readFileSync(join(notes, ".git/config"), "utf8");
    const { results, r, mark } = await attackThroughServer(root, env, notes);
    expect(results[0]).toContain("FAILED");
    expect(results[3]).toContain("note: bunker disarmed the git repository the MCP server box created at new/.git (core.fsmonitor commented out in config)");
    expect(r.stderr).toContain("bunker disarmed the git repository the MCP server box created at new/.git");
    expectNothingArmed(notes, config, mark);
  });

  test("a write folder named by a link (~/notes -> Dropbox/notes) is walled as well", async () => {
    const { root, env } = workspace("bunker-mcp-f7link-", "");
    const real = join(env.HOME!, "Dropbox", "notes");
    notesRepo(real);
    const notes = join(env.HOME!, "notes");
    symlinkSync(real, notes);
    const config = readFileSync(join(real, ".git/config"), "utf8");
    const { results } = await attackThroughServer(root, env, notes);
    expect(results[3]).toContain("note: bunker disarmed the git repository the MCP server box created at new/.git");
    expectNothingArmed(real, config, join(env.HOME!, "..", "PWNED"));
  });

  /** The model calls server `box` (write: ~/notes) once per attack step; what each call returned, as the model got it. */
  async function attackThroughServer(root: string, env: Record<string, string>, notes: string) {
    const mark = join(env.HOME!, "..", "PWNED");
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"], { write: ["~/notes"] }) } });
    const fake = e2e.serve([...attack(notes, mark).map((step) => reply([toolUse("mcp__box__probe", step)])), reply("Done.")]);
    env.ANTHROPIC_BASE_URL = fake.url;
    const r = await runHeadless(root, env, ["-p", "write", "--no-prompt"]);
    expect(r.code).toBe(0);
    const results = fake.requests.slice(1).map((req) => toolResults(req)[0]?.content ?? "");
    // The person's config and hooks: read-only to the server. What it made: disarmed or set aside, and said.
    expect(results[0]).toContain("EROFS");
    expect(results[1]).toContain("FAILED");
    expect(results[4]).toContain("note: bunker set aside .envrc, which the MCP server box created");
    return { results, r, mark };
  }

  /** The person's own git in the repository and in what the server made runs nothing the server planted. */
  function expectNothingArmed(repo: string, config: string, mark: string): void {
    expect(readFileSync(join(repo, ".git/config"), "utf8")).toBe(config);
    git(repo, "status");
    git(join(repo, "new"), "status");
    git(repo, "commit", "-qm", "x", "--allow-empty");
    expect(existsSync(mark)).toBe(false);
  }

  test("a write folder on the person's PATH: a program it plants there under the name of a later one is set aside (the person's PATH, not bunker's)", async () => {
    const { root, env } = workspace("bunker-mcp-path-", "");
    // Not there yet (one that is, the sandbox shows read-only as a toolchain folder): the server makes it.
    const bin = join(env.HOME!, "tools/bin");
    mkdirSync(dirname(bin), { recursive: true });
    const mark = join(env.HOME!, "..", "PWNED");
    env.PATH = `${bin}:/usr/bin:/bin`;
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"], { write: ["~/tools"] }) } });
    const fake = e2e.serve([reply([toolUse("mcp__box__probe", { mkdir: [bin], write: join(bin, "git"), content: `#!/bin/sh\ntouch ${mark}\nexec /usr/bin/git "$@"\n` })]), reply("Done.")]);
    env.ANTHROPIC_BASE_URL = fake.url;
    const r = await runHeadless(root, env, ["-p", "write", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(toolResults(fake.requests[1])[0]?.content).toContain(`note: bunker set aside bin/git, which the MCP server box created (your shell runs it instead of /usr/bin/git when you type git: ${bin} comes before /usr/bin on your PATH)`);
    expect(existsSync(join(bin, "git"))).toBe(false);
  });

  test("what it writes there after its last call (a background task) is checked when it stops", async () => {
    const { root, env } = workspace("bunker-mcp-f7bg-", "");
    const notes = join(env.HOME!, "notes");
    notesRepo(notes);
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"], { write: ["~/notes"] }) } });
    const fake = e2e.serve([reply([toolUse("mcp__box__probe", { write: join(notes, ".envrc"), content: "evil\n", laterMs: 300 })]), reply("Done.", undefined, { delayMs: 1000 })]);
    env.ANTHROPIC_BASE_URL = fake.url;
    const r = await runHeadless(root, env, ["-p", "write", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("bunker set aside .envrc, which the MCP server box created");
    expect(existsSync(join(notes, ".envrc"))).toBe(false);
    expect(readFileSync(join(notes, ".envrc.bunker-set-aside"), "utf8")).toBe("evil\n");
  });
});

describe.skipIf(detectSandbox().kind !== "bubblewrap")("when bunker exits, a server's sandbox is gone before the last walk of its write folder (real bubblewrap)", () => {
  test("a task that keeps rewriting an .envrc there cannot write it again after the walk set it aside", async () => {
    const { root, env } = workspace("bunker-mcp-exitwalk-", "");
    const notes = join(env.HOME!, "notes");
    mkdirSync(notes, { recursive: true });
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"], { write: ["~/notes"] }) } });
    const fake = e2e.serve([reply([toolUse("mcp__box__probe", { write: join(notes, ".envrc"), content: "evil\n", everyMs: 1 })]), reply("Done.")]);
    env.ANTHROPIC_BASE_URL = fake.url;
    const r = await runHeadless(root, env, ["-p", "write", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("bunker set aside .envrc, which the MCP server box created");
    await Bun.sleep(300);
    expect(existsSync(join(notes, ".envrc"))).toBe(false);
  });
});

describe.skipIf(detectSandbox().kind !== "bubblewrap")("a server whose net list grants a loopback port of the person's machine (real bubblewrap)", () => {
  test("reaches the host's server there at 127.0.0.1, localhost and [::1], as a command does; an ungranted port is its own loopback", async () => {
    const v4 = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("hello from v4") });
    const v6 = Bun.serve({ hostname: "::1", port: 0, fetch: () => new Response("hello from v6") });
    const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("not for it") });
    cleanups.push(() => [v4, v6, other].forEach((s) => s.stop(true)));
    const fetches = [`http://127.0.0.1:${v4.port}/`, `http://localhost:${v4.port}/`, `http://[::1]:${v6.port}/`, `http://127.0.0.1:${other.port}/`];
    const fake = e2e.serve([reply(fetches.map((url) => toolUse("mcp__box__probe", { fetch: url }))), reply("Done.")]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"], { net: [`localhost:${v4.port}`, `[::1]:${v6.port}`] }) } });
    const r = await runHeadless(root, env, ["-p", "fetch", "--no-prompt"]);
    expect(r.code).toBe(0);
    const results = toolResults(fake.requests[1]).map((x) => x.content);
    expect(results.slice(0, 3)).toEqual([`fetch ${fetches[0]}: 200 hello from v4`, `fetch ${fetches[1]}: 200 hello from v4`, `fetch ${fetches[2]}: 200 hello from v6`]);
    expect(results[3]).toContain("FAILED");
  });
});

describe("a streamable-HTTP server", () => {
  test("its tools are called and answered", async () => {
    const http = await startHttpServer(["--name", "remote"]);
    cleanups.push(http.stop);
    const fake = e2e.serve([reply([toolUse("mcp__remote__echo", { text: "over http" })]), reply("Done.")]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, { mcpServers: { remote: { type: "http", url: http.url } } });
    const r = await runHeadless(root, env, ["-p", "use it", "--allow-mcp=remote"]);
    expect(r.code).toBe(0);
    expect(toolResults(fake.requests[1])).toEqual([{ content: "remote says: over http", is_error: false }]);
    expect(resultBlocks(fake.requests[1])).toBe("remote says: over http");
  });
});

describe("an HTTP server, which bunker connects to itself", () => {
  test("--deny-net wins: bare or naming its host, bunker does not connect, and says why (red team 8 F25)", async () => {
    let hits = 0;
    const web = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (hits++, new Response("not MCP")) });
    cleanups.push(() => web.stop(true));
    const fake = e2e.serve([]);
    const { root, env } = e2e.workspace();
    writeProjectServers(root, { docs: { type: "http", url: `http://127.0.0.1:${web.port}/mcp`, headers: { Authorization: "Bearer ${DOCS_TOKEN}" } } });
    env.DOCS_TOKEN = "tok_docs_secret";
    for (const deny of ["--deny-net", "--deny-net=127.0.0.1", "--deny-net=localhost"]) {
      fake.push(reply("No tools."));
      const r = await runHeadless(root, env, ["-p", "hello", "--allow-mcp=docs", deny]);
      expect(r.stderr).toContain("MCP server docs did not start: bunker does not connect to it");
      expect(hits).toBe(0);
    }
    // The control: without the deny, bunker connects (it is not an MCP server, so it then fails).
    fake.push(reply("No tools."));
    await runHeadless(root, env, ["-p", "hello", "--allow-mcp=docs"]);
    expect(hits).toBeGreaterThan(0);
  });
});

describe("a project's .mcp.json", () => {
  test("of many servers, headless: five lines and a count, not one line each", async () => {
    const fake = e2e.serve([reply("No tools.")]);
    const { root, env } = e2e.workspace();
    writeProjectServers(root, Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`s${i}`, testServer(["--name", `s${i}`])])));
    env.ANTHROPIC_BASE_URL = fake.url;
    const r = await runHeadless(root, env, ["-p", "hello"]);
    expect(r.code).toBe(0);
    expect(r.stderr.split("\n").filter((l) => /^MCP server s\d+ not started/.test(l))).toHaveLength(5);
    expect(r.stderr).toContain("7 more of this project's MCP servers not started (--allow-mcp=NAME starts one).");
  });

  test("headless without --allow-mcp: not started, and the person is told how to start it", async () => {
    const fake = e2e.serve([reply("No tools.")]);
    const { root, env } = e2e.workspace();
    writeProjectServers(root, { proj: testServer(["--name", "proj"]) });
    const r = await runHeadless(root, env, ["-p", "hello"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("MCP server proj not started");
    expect(r.stderr).toContain("--allow-mcp=proj");
    const names = (fake.requests[0]!.body.tools ?? []).map((t) => (t as { name: string }).name);
    expect(names.some((n) => n.startsWith("mcp__"))).toBe(false);
  });

  test("headless with --allow-mcp=proj: started, and its tools callable", async () => {
    const fake = e2e.serve([reply([toolUse("mcp__proj__echo", { text: "x" })]), reply("Done.")]);
    const { root, env } = e2e.workspace();
    writeProjectServers(root, { proj: testServer(["--name", "proj"]) });
    writeUserSettings(env, { mcpServers: serverPackageGrant("proj") });
    const r = await runHeadless(root, env, ["-p", "hello", "--allow-mcp=proj"]);
    expect(r.code).toBe(0);
    expect(toolResults(fake.requests[1])).toEqual([{ content: "proj says: x", is_error: false }]);
  });
});

describe("failures stay contained", () => {
  test("a server that hangs, one that crashes mid-call, one that prints garbage and one that sends invalid results: tool errors for the model, one line each for the person, the session goes on", async () => {
    const fake = e2e.serve([
      reply([toolUse("mcp__alpha__hang", {})]),
      reply([toolUse("mcp__alpha__echo", { text: "after the hang" })]),
      reply([toolUse("mcp__alpha__flood", {})]),
      reply([toolUse("mcp__alpha__crash", {})]),
      reply([toolUse("mcp__alpha__echo", { text: "after the crash" })]),
      reply([toolUse("mcp__bad__answer", {})]),
      reply("Still here."),
    ]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, {
      allow: ["mcp:alpha/*", "mcp:bad/*", "mcp:junk/*"],
      mcpServers: { alpha: testServer(["--name", "alpha"], { timeout: 1500 }), junk: brokenServer("garbage"), bad: brokenServer("invalid") },
    });
    const r = await runHeadless(root, env, ["-p", "break things", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Still here.\n");
    const result = (i: number) => toolResults(e2e.fake.requests[i])[0]!;
    expect(result(1)).toEqual({ is_error: true, content: "the MCP server alpha did not answer hang within 2 s; the call was cancelled. Try something smaller, or another way." });
    expect(result(2)).toEqual({ is_error: false, content: "alpha says: after the hang" });
    expect(result(3).is_error).toBe(false);
    expect(result(3).content.length).toBeLessThan(25_000);
    expect(result(3).content).toContain("[output truncated");
    expect(result(4).is_error).toBe(true);
    expect(result(4).content).toContain("the MCP server alpha stopped during crash (exit status 3; its last words: about to crash)");
    expect(result(5).is_error).toBe(true);
    expect(result(5).content).toContain("the MCP server alpha is not running");
    expect(result(5).content).toContain("/mcp restart alpha");
    expect(result(6).is_error).toBe(true);
    expect(result(6).content).toContain("the MCP server bad failed on answer");
    // One line each for the person.
    expect(r.stderr).toContain('MCP server junk did not start: it printed something that is not MCP on its output ("Welcome to the server! line 2"). /mcp restart junk starts it again.');
    expect(r.stderr).toContain("MCP server alpha stopped (exit status 3; its last words: about to crash). /mcp restart alpha starts it again.");
  });

  test("a server with no tools: it starts, and stdout holds only the answer", async () => {
    const fake = e2e.serve([reply("Only this.")]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, { mcpServers: { empty: brokenServer("no-tools") } });
    const r = await runHeadless(root, env, ["-p", "hello"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Only this.\n");
  });

  test("a server whose program does not exist: one line, the session goes on", async () => {
    const fake = e2e.serve([reply("Fine.")]);
    const { root, env } = e2e.workspace();
    writeUserSettings(env, { mcpServers: { ghost: { command: "no-such-mcp-server-program" } } });
    const r = await runHeadless(root, env, ["-p", "hello"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Fine.\n");
    expect(r.stderr).toContain('MCP server ghost did not start: the program "no-such-mcp-server-program" was not found on PATH');
  });
});
