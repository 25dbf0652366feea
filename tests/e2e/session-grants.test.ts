// New user's N12-09, N12-11, N12-15: what a question grants reaches the sandbox. In the real sandbox (bubblewrap),
// through the same Permissions and run_bash the loop uses: a command that reads a folder outside the workspace is
// offered that folder, and after a yes sees it (a deny-read file inside it still hidden); a read_file outside is asked,
// and "this folder for the session" lets commands see it too; `git commit` is offered .git, and after a yes commits.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants } from "../../src/perms/policy.ts";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { createRunBashTool, runBashOptions } from "../../src/tools/run-bash.ts";
import { readFileTool } from "../../src/tools/read-file.ts";
import type { ToolOutput } from "../../src/tools/tool.ts";
import { makeContext, tempDir, unseenDir } from "../support/context.ts";
import { BUNKER, endToEnd, press, quitWithCtrlD, toolResults, waitForCount, waitForQuestion } from "../support/cli.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { tmuxAvailable } from "../support/tmux.ts";

const usable = detectSandbox().kind === "bubblewrap";
const text = (out: ToolOutput): string => (typeof out === "string" ? out : out.content);

function setup() {
  const base = unseenDir("bunker-session-grants-");
  const root = join(base, "ws");
  const shared = join(base, "shared");
  mkdirSync(root);
  mkdirSync(shared);
  writeFileSync(join(shared, "notes.txt"), "SHARED-NOTES\n");
  writeFileSync(join(shared, "secret.env"), "TOP-SECRET\n");
  writeFileSync(join(root, "a.txt"), "a\n");
  const grants = emptyGrants();
  // A deny-read rule inside the folder the person will grant: it keeps winning.
  grants.deny.read.paths.push(join(shared, "secret.env"));
  const sessions = join(tempDir("bunker-state-"), "sessions.db");
  return { base, root, shared, grants, sessions };
}

describe.skipIf(!usable)("a question's grant reaches the sandbox", () => {
  test("N12-09: a command reading a folder outside is offered it; \"once\" shows it to that run only, a deny-read file in it stays hidden", async () => {
    const { root, shared, grants, sessions } = setup();
    const tool = createRunBashTool(runBashOptions({ root, sandbox: "on", allowEnv: [], grants, sessionsPath: sessions }));
    const ctx = makeContext(root, { grants, answers: [{ answer: "once" }, { answer: "once" }] });
    const command = `ls ${shared}; cat ${shared}/notes.txt; cat ${shared}/secret.env`;
    const r = await tool.run({ command }, ctx);
    const asked = ctx.approver.asked[0]!;
    expect(asked.run?.needs).toEqual({ reads: [shared], gitWrite: false });
    expect(text(r)).toContain("SHARED-NOTES");
    expect(text(r)).not.toContain("TOP-SECRET");
    // Once: the next run of the same line is asked again, and the grants are as they were.
    expect(grants.allow.read.paths).toEqual([]);
    await tool.run({ command }, ctx);
    expect(ctx.approver.asked).toHaveLength(2);
  }, 60_000);

  test("N12-09: without the offer taken (nothing granted), the command does not see the folder", async () => {
    const { root, shared, grants, sessions } = setup();
    const opts = runBashOptions({ root, sandbox: "on", allowEnv: [], grants, sessionsPath: sessions });
    // What happened before: a yes that did not carry the grant.
    const ctx = makeContext(root, { grants, answers: [{ answer: "once" }] });
    const approve = ctx.perms.authorize.bind(ctx.perms);
    ctx.perms.authorize = async (req) => {
      const d = await approve(req);
      const { sandboxOnce: _dropped, ...rest } = d;
      return rest;
    };
    const r = await createRunBashTool(opts).run({ command: `cat ${shared}/notes.txt` }, ctx);
    expect(text(r)).not.toContain("SHARED-NOTES");
  }, 60_000);

  test("N12-11: read_file outside is asked with its path; \"this folder for the session\" lets read_file and commands see it, and deny-read still wins", async () => {
    const { root, shared, grants, sessions } = setup();
    const ctx = makeContext(root, { grants, answers: [{ answer: "target-session" }] });
    const read = await readFileTool.run({ path: join(shared, "notes.txt") }, ctx);
    expect(text(read)).toContain("SHARED-NOTES");
    expect(ctx.approver.asked[0]).toMatchObject({ kind: "read", target: join(shared, "notes.txt"), readOutside: { folder: shared } });
    // The folder, for the session: the grants themselves hold it, as --allow-read would.
    expect(grants.allow.read.paths).toEqual([shared]);
    // A command now sees it, unasked for the folder (ls only reads), and not the denied file.
    const tool = createRunBashTool(runBashOptions({ root, sandbox: "on", allowEnv: [], grants, sessionsPath: sessions }));
    const r = await tool.run({ command: `ls ${shared}; cat ${shared}/notes.txt; cat ${shared}/secret.env` }, makeContext(root, { grants, answers: [{ answer: "once" }] }));
    expect(text(r)).toContain("SHARED-NOTES");
    expect(text(r)).not.toContain("TOP-SECRET");
    // read_file refuses the denied file by name, without asking.
    const denied = makeContext(root, { grants });
    await expect(readFileTool.run({ path: join(shared, "secret.env") }, denied)).rejects.toThrow(/denied/);
    expect(denied.approver.asked).toHaveLength(0);
    // Another file of the folder: no question.
    writeFileSync(join(shared, "more.txt"), "MORE\n");
    const again = makeContext(root, { grants });
    expect(text(await readFileTool.run({ path: join(shared, "more.txt") }, again))).toContain("MORE");
    expect(again.approver.asked).toHaveLength(0);
  }, 60_000);

  test("N12-15: `git commit` is told .git is read-only and offered it; the yes commits, and no rule is offered to save", async () => {
    const { root, grants, sessions } = setup();
    const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: root, stderr: "pipe" });
    git("init", "-q", "-b", "main");
    git("config", "user.email", "me@example.com");
    git("config", "user.name", "me");
    const tool = createRunBashTool(runBashOptions({ root, sandbox: "on", allowEnv: [], grants, sessionsPath: sessions }));
    const ctx = makeContext(root, { grants, answers: [{ answer: "needs-session" }] });
    const r = await tool.run({ command: "git add a.txt && git commit -qm first && echo committed" }, ctx);
    expect(ctx.approver.asked[0]!.run?.needs).toEqual({ reads: [], gitWrite: true });
    expect(text(r)).toContain("committed");
    expect(git("log", "--oneline").stdout.toString()).toContain("first");
    // For the session: the next commit needs no .git question (it is still asked as a command).
    writeFileSync(join(root, "a.txt"), "b\n");
    const next = makeContext(root, { grants, answers: [{ answer: "once" }] });
    const r2 = await tool.run({ command: "git commit -qam second && echo committed" }, next);
    expect(next.approver.asked[0]!.run?.needs).toBeUndefined();
    expect(text(r2)).toContain("committed");
  }, 60_000);
});

const e2e = endToEnd("bunker-session-grants-e2e-");

describe.skipIf(!usable || !tmuxAvailable)("in a terminal, through the loop (N12-11, N12-09)", () => {
  test("read_file outside is asked with its path; \"this folder for the session\" lets the next command read it in the sandbox, deny-read still hidden", async () => {
    const shared = unseenDir("bunker-session-shared-");
    writeFileSync(join(shared, "notes.txt"), "SHARED-NOTES\n");
    writeFileSync(join(shared, "secret.env"), "TOP-SECRET\n");
    const fake = e2e.serve([
      reply([toolUse("read_file", { path: join(shared, "notes.txt") })]),
      reply([toolUse("run_bash", { command: `cat ${shared}/notes.txt; cat ${shared}/secret.env` })]),
      reply("Read both."),
    ]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, `--deny-read=${join(shared, "secret.env")}`, "read the notes"], { cwd: root, env, cols: 120, rows: 50 });
    let screen = await waitForQuestion(tmux, `Allow reading ${join(shared, "notes.txt")}?`, 1);
    expect(screen).toContain(`read_file wants to read ${join(shared, "notes.txt")}, outside the workspace`);
    expect(screen).toContain(`2. Yes, and allow reading ${shared}/ for this session`);
    await press(tmux, "2");
    // The command is asked (it names a denied file); nothing more to offer: the folder is granted now.
    screen = await waitForQuestion(tmux, "Run this command?", 1);
    expect(screen).not.toContain("the sandbox does not show");
    await press(tmux, "1");
    // The sandbox shows it the folder, without the denied file.
    await waitForCount(tmux, "Read both.", 1);
    expect(toolResults(fake.requests[1])[0]?.content).toContain("SHARED-NOTES");
    const ran = toolResults(fake.requests[2])[0]?.content ?? "";
    expect(ran).toContain("SHARED-NOTES");
    expect(ran).not.toContain("TOP-SECRET");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  }, 60_000);

  test("N12-15: \"commit this\" says up front that .git is read-only, offers the session grant and no saved rule; the yes commits", async () => {
    const fake = e2e.serve([reply([toolUse("run_bash", { command: "git add a.txt && git commit -qm first && echo COMMITTED" })]), reply("Committed.")]);
    const { root, env } = e2e.workspace({ "a.txt": "a\n" });
    const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: root, stderr: "pipe" });
    git("init", "-q", "-b", "main");
    git("config", "user.email", "me@example.com");
    git("config", "user.name", "me");
    const tmux = await e2e.terminal([...BUNKER, "commit this"], { cwd: root, env, cols: 200, rows: 50 });
    const screen = await waitForQuestion(tmux, "Run this command?", 1);
    expect(screen).toContain("the sandbox keeps .git read-only");
    expect(screen).toContain("2. Yes, and let commands write .git for this session");
    expect(screen).not.toContain("always allow");
    await press(tmux, "2");
    await waitForCount(tmux, "Committed.", 1);
    expect(toolResults(fake.requests[1])[0]?.content).toContain("COMMITTED");
    expect(git("log", "--oneline").stdout.toString()).toContain("first");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  }, 60_000);
});
