// A new user's F23: nothing said bunker was waiting (another tmux window, another tab). A question during a turn,
// and the prompt after a long turn, ring the terminal's bell and set the window's title; "notify": false in the
// settings turns that off; a run whose stderr is not a terminal never gets any of it. The bytes bunker wrote are read
// from tmux (pipe-pane), the title as tmux keeps it.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, press, runHeadless, waitForCount } from "../support/cli.ts";
import { tempDir } from "../support/context.ts";
import { tmuxAvailable, type TmuxSession } from "../support/tmux.ts";

const e2e = endToEnd("bunker-attention-");
const BEL = "\x07";
/** The bells rung: BEL characters that do not end an OSC sequence (a title's, a notification's). */
const bells = (bytes: string) => bytes.replace(/\x1b\][^\x07\x1b]*\x07/g, "").split(BEL).length - 1;

/** A REPL in tmux with `settings` as the person's settings file; what it writes to the terminal goes to `bytes()` too. */
async function start(steps: Parameters<typeof e2e.serve>[0], settings: object): Promise<{ t: TmuxSession; bytes: () => string; title: () => string; before: string }> {
  e2e.serve(steps);
  const { root, env } = e2e.workspace();
  mkdirSync(join(env.XDG_CONFIG_HOME!, "bunker"), { recursive: true });
  writeFileSync(join(env.XDG_CONFIG_HOME!, "bunker", "settings.json"), JSON.stringify(settings));
  const t = await e2e.terminal(BUNKER, { cwd: root, env, cols: 100, rows: 30 });
  const log = join(tempDir("bunker-attention-log-"), "pane.bin");
  writeFileSync(log, "");
  t.command(["pipe-pane", "-o", "-t", t.name, `cat >> ${log}`]);
  await waitForCount(t, "Ctrl+D to leave", 1);
  const title = () => t.command(["display", "-p", "-t", t.name, "#{pane_title}"]).trim();
  return { t, bytes: () => readFileSync(log, "latin1"), title, before: title() };
}

/** Waits (up to 10 s) until `ok` holds. */
async function until(ok: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** The turn is over: the status line no longer says what runs. */
const idle = (t: TmuxSession) => () => !t.visible().includes("esc to interrupt");

async function send(t: TmuxSession, text: string): Promise<void> {
  t.keys([text], true);
  await press(t, "Enter");
}

describe.skipIf(!tmuxAvailable)("when bunker waits for the person", () => {
  test("the prompt after a long turn rings the bell and says so in the title; the next message puts the title back; a short turn rings nothing", async () => {
    const { t, bytes, title, before } = await start([reply("Slow answer, word by word.", "end_turn", { eventDelayMs: 150, chunkSize: 3 }), reply("Quick.")], { notify: 1 });
    await send(t, "go");
    await waitForCount(t, "word by word.", 1);
    await until(idle(t), "the turn's end");
    await until(() => bells(bytes()) === 1, "the bell");
    expect(title()).toBe("waiting: bunker · ws");
    await send(t, "again");
    await waitForCount(t, "Quick.", 1);
    await until(idle(t), "the turn's end");
    await Bun.sleep(200);
    // The terminal's own title, from its stack (tmux keeps one; a terminal without reads "bunker · ws").
    expect(title()).toBe(before);
    expect(before).not.toContain("waiting");
    // The second turn was short: no bell for it.
    expect(bells(bytes())).toBe(1);
  });

  test("a question during a turn rings at once, however short the turn; answered, the title is the terminal's again", async () => {
    const { t, bytes, title, before } = await start([reply([toolUse("run_bash", { command: "touch made.txt" })]), reply("Ran it.")], {});
    await send(t, "run it");
    await waitForCount(t, "Run this command?", 1);
    await until(() => bells(bytes()) === 1, "the bell");
    expect(title()).toBe("waiting: bunker · ws");
    await press(t, "y");
    await waitForCount(t, "Ran it.", 1);
    await until(idle(t), "the turn's end");
    await Bun.sleep(200);
    expect(title()).toBe(before);
    // One bell, the question's: the turn was short.
    expect(bells(bytes())).toBe(1);
  });

  test('"notify": false: neither a question nor a long turn rings or sets the title', async () => {
    const { t, bytes, title } = await start([reply([toolUse("run_bash", { command: "touch made.txt" })]), reply("Ran it.", "end_turn", { eventDelayMs: 150, chunkSize: 2 })], { notify: false });
    await send(t, "run it");
    await waitForCount(t, "Run this command?", 1);
    await press(t, "y");
    await waitForCount(t, "Ran it.", 1);
    await until(idle(t), "the turn's end");
    await Bun.sleep(300);
    expect(bytes()).not.toContain(BEL);
    expect(bytes()).not.toContain("\x1b]2;");
    expect(title()).not.toContain("waiting");
  });
});

test("a headless run (stderr not a terminal) never rings, even with every turn signalled", async () => {
  const fake = e2e.serve([reply("Answer.")]);
  const { root, env } = e2e.workspace();
  mkdirSync(join(env.XDG_CONFIG_HOME!, "bunker"), { recursive: true });
  writeFileSync(join(env.XDG_CONFIG_HOME!, "bunker", "settings.json"), JSON.stringify({ notify: 0 }));
  const r = await runHeadless(root, env, ["-p", "hi"]);
  expect(r.code).toBe(0);
  expect(fake.requests).toHaveLength(1);
  expect(r.stderr + r.stdout).not.toContain(BEL);
  expect(r.stderr).not.toContain("\x1b]");
});
