// /undo and /rewind in a real terminal (tmux), and --undo / --rewind without
// one: approved edits taken back byte for byte, through the same prompt as
// any write; a file edited by hand in between is named and left alone.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, press, quitWithCtrlD, runHeadless, waitForCount, waitForQuestion } from "../support/cli.ts";
import { tmuxAvailable, type TmuxSession } from "../support/tmux.ts";

const e2e = endToEnd("bunker-undo-");
/** Bytes a text editor would not round-trip by accident: CRLF, a BOM, no final newline, tabs. */
const ORIGINAL = "\uFEFFvalue = alpha\r\n\tünïcode line\r\nno newline at the end";

async function say(t: TmuxSession, text: string): Promise<void> {
  t.keys([text], true);
  await press(t, "Enter");
}

/** A session in which the person approved the model's edit of a.txt (alpha → beta) in turn 1, "change alpha". */
async function approvedEdit(): Promise<{ root: string; env: Record<string, string>; tmux: TmuxSession }> {
  e2e.serve([
    reply([toolUse("read_file", { path: "a.txt" })]),
    reply([toolUse("edit_file", { path: "a.txt", old_string: "alpha", new_string: "beta" })]),
    reply("Changed it."),
  ]);
  const { root, env } = e2e.workspace({ "a.txt": ORIGINAL });
  const tmux = await e2e.terminal([...BUNKER, "change alpha"], { cwd: root, env, cols: 120, rows: 50 });
  await waitForQuestion(tmux, "Apply this change to a.txt?", 1);
  await press(tmux, "Enter");
  await waitForCount(tmux, "Changed it.", 1);
  return { root, env, tmux };
}

describe.skipIf(!tmuxAvailable)("undo in a real terminal (tmux)", () => {
  test("an approved edit, then /undo: the file is byte-identical, and /undo asked with its own diff", async () => {
    const { root, tmux } = await approvedEdit();
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe(ORIGINAL.replace("alpha", "beta"));

    await say(tmux, "/undo");
    const screen = await waitForQuestion(tmux, "Apply this change to a.txt?", 2);
    expect(screen).toContain("undo wants to edit a.txt");
    expect(screen).toContain("-\\ufeffvalue = beta");
    await press(tmux, "Enter");
    await waitForCount(tmux, 'Took back turn 1 ("change alpha"): restored a.txt.', 1);
    expect(readFileSync(join(root, "a.txt"))).toEqual(Buffer.from(ORIGINAL));
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("bunker -c --undo in a terminal shows the diff and asks, as /undo does (the new user was told there was no terminal)", async () => {
    const { root, env, tmux } = await approvedEdit();
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    tmux.close();
    const again = await e2e.terminal([...BUNKER, "-c", "--undo"], { cwd: root, env, cols: 120, rows: 40 });
    const screen = await waitForQuestion(again, "Apply this change to a.txt?", 1);
    expect(screen).toContain("undo wants to edit a.txt");
    expect(screen).not.toContain("is not asking");
    await press(again, "Enter");
    await waitForCount(again, 'Took back turn 1 ("change alpha"): restored a.txt.', 1);
    expect(readFileSync(join(root, "a.txt"))).toEqual(Buffer.from(ORIGINAL));
  });

  test("bunker -c --undo refused in a terminal: nothing taken back, said in the person's words, not as an error (new user)", async () => {
    const { root, env, tmux } = await approvedEdit();
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    tmux.close();
    const again = await e2e.terminal([...BUNKER, "-c", "--undo"], { cwd: root, env, cols: 40, rows: 30 });
    await waitForQuestion(again, "Apply this change to a.txt?", 1);
    await press(again, "n");
    const screen = await waitForCount(again, "Nothing taken back: you kept the files as", 1);
    expect(screen).not.toContain("The person refused");
    expect(screen).not.toContain("bunker:");
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe(ORIGINAL.replace("alpha", "beta"));
  });

  test("/undo refused, then /undo again: asked again (yes or no only, nothing for the model), and done on yes", async () => {
    const { root, tmux } = await approvedEdit();

    await say(tmux, "/undo");
    const screen = await waitForQuestion(tmux, "Apply this change to a.txt?", 2);
    const question = screen.slice(screen.lastIndexOf("undo wants to edit a.txt"));
    expect(question).toContain("2. No");
    expect(question).not.toContain("for this session");
    expect(question).not.toContain("tell Claude");
    await press(tmux, "n");
    // Said in one line, as bunker --undo says it (N12-07: the prompt came back with nothing).
    await waitForCount(tmux, "Nothing taken back: you kept the files as they are.", 1);
    expect(tmux.screen()).not.toContain("What should Claude do instead?");
    // The closed question shows the "No"; the model's sentence ("The person refused writing a.txt.") is not printed under it.
    expect(tmux.screen()).not.toContain("The person");
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe(ORIGINAL.replace("alpha", "beta"));

    await say(tmux, "/undo");
    await waitForQuestion(tmux, "Apply this change to a.txt?", 3);
    expect(tmux.screen()).not.toContain("already refused");
    await press(tmux, "y");
    await waitForCount(tmux, 'Took back turn 1 ("change alpha"): restored a.txt.', 1);
    expect(readFileSync(join(root, "a.txt"))).toEqual(Buffer.from(ORIGINAL));
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("a refused edit, then the person changes their mind: the same edit is asked again (within the turn, the model's retry was refused unasked)", async () => {
    const edit = toolUse("edit_file", { path: "a.txt", old_string: "alpha", new_string: "beta" });
    const fake = e2e.serve([
      reply([toolUse("read_file", { path: "a.txt" })]),
      reply([edit]),
      reply([edit]),
      reply("Left it."),
      reply([edit]),
      reply("Changed it."),
    ]);
    const { root, env } = e2e.workspace({ "a.txt": ORIGINAL });
    const tmux = await e2e.terminal([...BUNKER, "change alpha"], { cwd: root, env, cols: 120, rows: 50 });
    await waitForQuestion(tmux, "Apply this change to a.txt?", 1);
    await press(tmux, "n");
    await waitForCount(tmux, "What should Claude do instead?", 1);
    // An Enter within 300 ms of the n would be read as the n's confirmation (key-feed.ts): this one answers the box.
    await Bun.sleep(400);
    await press(tmux, "Enter");
    await waitForCount(tmux, "Left it.", 1);
    // The retry in the same turn was refused without asking.
    expect(tmux.screen().split("Apply this change to a.txt?").length - 1).toBe(1);
    expect(JSON.stringify(fake.requests[3]!.body.messages.at(-1))).toContain("already refused");
    // The person reads both in their own terms: their refusal, then why they were not asked again.
    const said = tmux.screen();
    expect(said).toContain("✗ You refused this change.\n");
    expect(said).toContain("✗ Not asked again: you refused this change earlier in this turn.\n");
    expect(said).not.toContain("the person already refused");

    await say(tmux, "sorry, I changed my mind: go ahead");
    await waitForQuestion(tmux, "Apply this change to a.txt?", 2);
    await press(tmux, "y");
    await waitForCount(tmux, "Changed it.", 1);
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe(ORIGINAL.replace("alpha", "beta"));
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("after /undo the model is told, with the next message, which files were taken back (it no longer believes its edit is there)", async () => {
    const fake = e2e.serve([
      reply([toolUse("read_file", { path: "a.txt" })]),
      reply([toolUse("edit_file", { path: "a.txt", old_string: "alpha", new_string: "beta" })]),
      reply("Changed it."),
      reply("Understood."),
    ]);
    const { root, env } = e2e.workspace({ "a.txt": ORIGINAL });
    const tmux = await e2e.terminal([...BUNKER, "--allow-write", "change alpha"], { cwd: root, env, cols: 120, rows: 50 });
    await waitForCount(tmux, "Changed it.", 1);
    await say(tmux, "/undo");
    await waitForCount(tmux, 'Took back turn 1 ("change alpha"): restored a.txt. Claude is told with your next message.', 1);
    expect(fake.requests).toHaveLength(3);
    await say(tmux, "what is in a.txt now?");
    await waitForCount(tmux, "Understood.", 1);
    const last = fake.requests[3]!.body.messages.at(-1)!;
    const texts = (last.content as { type: string; text?: string }[]).filter((b) => b.type === "text").map((b) => b.text);
    // The note first, in bunker's brackets, then the person's words: one user message.
    expect(texts).toEqual([
      '[The person took back file changes with /undo, to before their message 1 ("change alpha"): restored a.txt. On disk this file no longer holds the changes made from that message on; read it again before relying on or editing it.]',
      "what is in a.txt now?",
    ]);
    // Said once: the request after it carries no second note.
    expect(JSON.stringify(fake.requests[3]!.body.messages).split("took back file changes").length - 1).toBe(1);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("/rewind numbers turns by the person's messages and keeps them: a question between, a turn taken back, a new turn after", async () => {
    const fake = e2e.serve([
      reply([toolUse("write_file", { path: "one.txt", content: "1\n" })]),
      reply("Wrote one."),
      reply("Just an answer."),
      reply([toolUse("write_file", { path: "three.txt", content: "3\n" })]),
      reply("Wrote three."),
      reply([toolUse("write_file", { path: "four.txt", content: "4\n" })]),
      reply("Wrote four."),
    ]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "--allow-write", "write one"], { cwd: root, env, cols: 160, rows: 60 });
    await waitForCount(tmux, "Wrote one.", 1);
    await say(tmux, "a question");
    await waitForCount(tmux, "Just an answer.", 1);
    await say(tmux, "write three");
    await waitForCount(tmux, "Wrote three.", 1);
    await say(tmux, "/rewind");
    let screen = await waitForCount(tmux, "N is your Nth message in this conversation", 1);
    expect(screen).toMatch(/ 1 {2}\d\d:\d\d {2}one\.txt {2}\+1 -0 {2}"write one"/);
    expect(screen).toMatch(/ 3 {2}\d\d:\d\d {2}three\.txt {2}\+1 -0 {2}"write three"/);
    await say(tmux, "/rewind 2");
    await waitForCount(tmux, "No turn 2 changed files still in effect. Give a number from /rewind's list (1 or 3).", 1);
    await say(tmux, "/rewind 3");
    await waitForCount(tmux, 'Took back turn 3 ("write three"): removed three.txt. Claude is told with your next message.', 1);
    await say(tmux, "write four");
    await waitForCount(tmux, "Wrote four.", 1);
    expect(JSON.stringify(fake.requests[5]!.body.messages.at(-1))).toContain("The person took back file changes with /rewind 3, to before their message 3 (\\\"write three\\\"): removed three.txt.");
    await say(tmux, "/rewind");
    screen = await waitForCount(tmux, "N is your Nth message in this conversation", 2);
    const list = screen.slice(screen.lastIndexOf("N is your Nth message"));
    // Turn 1 is still 1, the new turn is 4 (the person's fourth message), and 3 is gone, not reused.
    expect(list).toMatch(/ 1 {2}\d\d:\d\d {2}one\.txt/);
    expect(list).toMatch(/ 4 {2}\d\d:\d\d {2}four\.txt {2}\+1 -0 {2}"write four"/);
    expect(list).not.toMatch(/ 3 {2}\d\d:\d\d/);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("/rewind N force under --allow-write over a hand edit: the diff shows what would be lost, and it is asked; no keeps the edit", async () => {
    e2e.serve([reply([toolUse("write_file", { path: "c.txt", content: "sea\n" })]), reply("Wrote it.")]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "--allow-write", "write c"], { cwd: root, env, cols: 120, rows: 50 });
    await waitForCount(tmux, "Wrote it.", 1);
    writeFileSync(join(root, "c.txt"), "sea, and my own line\n");
    await say(tmux, "/rewind 1 force");
    const screen = await waitForQuestion(tmux, "Apply this change to c.txt?", 1);
    // The box's rows read as one text: a sentence wraps inside it.
    // The turn created c.txt: taking it back deletes it.
    const box = screen.slice(screen.lastIndexOf("undo wants to delete c.txt")).replace(/\n│  /g, " ");
    expect(box).toContain('c.txt was changed after bunker\'s change (by you or a command); taking it back with "force" loses those changes (the lines marked - below):');
    expect(box).toContain("-sea, and my own line");
    await press(tmux, "n");
    await Bun.sleep(300);
    expect(readFileSync(join(root, "c.txt"), "utf8")).toBe("sea, and my own line\n");
    await say(tmux, "/rewind 1 force");
    await waitForQuestion(tmux, "Apply this change to c.txt?", 2);
    await press(tmux, "y");
    await waitForCount(tmux, 'Took back turn 1 ("write c"): removed c.txt.', 1);
    expect(existsSync(join(root, "c.txt"))).toBe(false);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("/rewind two turns back restores both files and says so; a file edited by hand in between is named and left alone", async () => {
    const fake = e2e.serve([
      reply([toolUse("read_file", { path: "a.txt" })]),
      reply([toolUse("edit_file", { path: "a.txt", old_string: "alpha", new_string: "beta" })]),
      reply("First done."),
      reply([toolUse("write_file", { path: "b.txt", content: "bee\n" }), toolUse("write_file", { path: "c.txt", content: "sea\n" })]),
      reply("Second done."),
    ]);
    const { root, env } = e2e.workspace({ "a.txt": ORIGINAL });
    const tmux = await e2e.terminal([...BUNKER, "--allow-write", "first"], { cwd: root, env, cols: 140, rows: 50 });
    await waitForCount(tmux, "First done.", 1);
    await say(tmux, "second");
    await waitForCount(tmux, "Second done.", 1);
    writeFileSync(join(root, "c.txt"), "sea, and my own line\n");

    await say(tmux, "/rewind");
    let screen = await waitForCount(tmux, "Turns that changed files, oldest first", 1);
    expect(screen).toMatch(/ 1 {2}\d\d:\d\d {2}a\.txt {2}\+1 -1 {2}"first"/);
    expect(screen).toMatch(/ 2 {2}\d\d:\d\d {2}b\.txt, c\.txt {2}\+2 -0 {2}"second"/);
    await say(tmux, "/rewind 1");
    screen = await waitForCount(tmux, 'Took back turn 1 ("first") and the turns after it: restored a.txt, removed b.txt.', 1);
    // The sentence wraps between words at the screen's width: read its rows as one line.
    expect(screen.split("\n").join(" ")).toContain("Left alone, because it was changed after bunker's change (by you or a command): c.txt.");
    expect(readFileSync(join(root, "a.txt"))).toEqual(Buffer.from(ORIGINAL));
    expect(existsSync(join(root, "b.txt"))).toBe(false);
    expect(readFileSync(join(root, "c.txt"), "utf8")).toBe("sea, and my own line\n");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("/rewind N conversation puts turn N's message back in the input line, to edit and send again (N12-19: the line was left empty)", async () => {
    const fake = e2e.serve([
      reply([toolUse("write_file", { path: "one.txt", content: "1\n" })]),
      reply("Wrote one."),
      reply([toolUse("write_file", { path: "two.txt", content: "2\n" })]),
      reply("Wrote two."),
      reply("Answered again."),
    ]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "--allow-write", "write one"], { cwd: root, env, cols: 120, rows: 40 });
    await waitForCount(tmux, "Wrote one.", 1);
    await say(tmux, "write two please");
    await waitForCount(tmux, "Wrote two.", 1);
    await say(tmux, "/rewind 2 conversation");
    const screen = await waitForCount(tmux, "to edit and send again.", 1);
    // The sentence wraps between words at the screen's width: read its rows as one line.
    expect(screen.split("\n").join(" ")).toContain('Took back turn 2 ("write two please"): removed two.txt. The conversation is back to before turn 2 too. Your message is back in the input line to edit and send again.');
    // The input line holds the message, unsent: the prompt's last row.
    expect(screen.trimEnd().split("\n").filter((r) => r.startsWith("› ")).at(-1)).toBe("› write two please");
    expect(fake.requests).toHaveLength(4);
    // Edited there: Ctrl+W takes back "please".
    tmux.keys(["C-w"]);
    tmux.keys(["again"], true);
    await press(tmux, "Enter");
    await waitForCount(tmux, "Answered again.", 1);
    const messages = fake.requests[4]!.body.messages;
    // The first turn, then the edited message: the taken-back turn is not there.
    expect(messages).toHaveLength(5);
    expect(JSON.stringify(messages.at(-1))).toContain("write two again");
    expect(JSON.stringify(messages)).not.toContain("write two please");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });
});

describe("bunker --undo and --rewind without a terminal", () => {
  test("when the newest session changed no files, --undo and --rewind name the last one here that did and how to take it back (N12-12)", async () => {
    e2e.serve([reply([toolUse("write_file", { path: "long.js", content: "x\n" })]), reply("Wrote it."), reply("Just talk.")]);
    const { root, env } = e2e.workspace();
    const first = await runHeadless(root, env, ["-p", "write long", "--allow-write", "--output-format", "json"]);
    const changed = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    const second = await runHeadless(root, env, ["-p", "go", "--output-format", "json"]);
    const newest = (JSON.parse(second.stdout) as { session_id: string }).session_id;
    const rewind = await runHeadless(root, env, ["--rewind"]);
    expect(rewind.stdout).toBe(`Session ${newest} has no file changes to take back (changes made by commands are not tracked). The last session here that changed files is ${changed} ("write long", just now): bunker -r ${changed} --rewind\n`);
    const undo = await runHeadless(root, env, ["-c", "--undo"]);
    expect(undo.code).toBe(0);
    expect(undo.stdout).toEndWith(`The last session here that changed files is ${changed} ("write long", just now): bunker -r ${changed} --undo\n`);
    // Followed, it takes that session's change back.
    const taken = await runHeadless(root, env, ["-r", changed, "--undo", "--allow-write"]);
    expect(taken.stdout).toStartWith('Took back turn 1 ("write long"): removed long.js.');
    // A session named with -r is the one asked about: nothing else is suggested.
    expect((await runHeadless(root, env, ["-r", newest, "--undo"])).stdout).not.toContain("The last session here");
  });

  test("take back the last turn's changes when --allow-write covers them, and say what was done; refuse naming the flag otherwise", async () => {
    const fake = e2e.serve([
      reply([toolUse("write_file", { path: "notes/new.txt", content: "new\n" }), toolUse("read_file", { path: "a.txt" })]),
      reply([toolUse("edit_file", { path: "a.txt", old_string: "alpha", new_string: "beta" })]),
      reply("Done."),
      reply("Noted."),
    ]);
    const { root, env } = e2e.workspace({ "a.txt": ORIGINAL });
    expect((await runHeadless(root, env, ["-p", "make notes", "--allow-write"])).code).toBe(0);
    expect(readFileSync(join(root, "notes/new.txt"), "utf8")).toBe("new\n");

    const list = await runHeadless(root, env, ["--rewind"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/ 1 {2}\d\d:\d\d {2}notes\/new\.txt, a\.txt {2}\+2 -1 {2}"make notes"/);

    const refused = await runHeadless(root, env, ["--undo"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--allow-write");
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe(ORIGINAL.replace("alpha", "beta"));

    const r = await runHeadless(root, env, ["--undo", "--allow-write"]);
    expect(r.stdout).toBe('Took back turn 1 ("make notes"): removed notes/new.txt, restored a.txt. Claude is told when the session is continued.\n');
    expect(r.code).toBe(0);
    expect(readFileSync(join(root, "a.txt"))).toEqual(Buffer.from(ORIGINAL));
    expect(existsSync(join(root, "notes"))).toBe(false);
    // The next -c tells the model, with the person's message, what was taken back.
    expect((await runHeadless(root, env, ["-c", "-p", "and now?"])).stdout).toBe("Noted.\n");
    const told = fake.requests.at(-1)!.body.messages.at(-1)!.content as { type: string; text?: string }[];
    expect(told.map((b) => b.text)).toEqual([
      '[The person took back file changes with bunker --undo, to before their message 1 ("make notes"): removed notes/new.txt, restored a.txt. On disk these files no longer hold the changes made from that message on; read them again before relying on or editing them.]',
      "and now?",
    ]);
    // Again, with nothing left to take back: said plainly, and not a failure (exit 0), with -c as the new user typed it.
    for (const flags of [["--undo", "--allow-write"], ["-c", "--undo"]]) {
      const again = await runHeadless(root, env, flags);
      expect(again.stdout).toMatch(/^Nothing to take back: bunker changed no files in session [0-9a-z]{10} that are not already taken back \(changes made by commands are not tracked\)\.\n$/);
      expect(again.stderr).toBe("");
      expect(again.code).toBe(0);
    }
  });

  test("--undo force with --allow-write over a hand edit, no terminal: refused with what to do, the edit kept", async () => {
    e2e.serve([reply([toolUse("write_file", { path: "c.txt", content: "sea\n" })]), reply("Wrote it.")]);
    const { root, env } = e2e.workspace();
    expect((await runHeadless(root, env, ["-p", "write c", "--allow-write"])).code).toBe(0);
    writeFileSync(join(root, "c.txt"), "sea, and my own line\n");
    const r = await runHeadless(root, env, ["--undo", "force", "--allow-write"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('c.txt was changed after bunker\'s change (by you or a command); taking it back with "force" loses those changes. bunker asks before overwriting changes it did not make, and it is not asking (no terminal or --no-prompt): run it in a terminal to see what would be lost and confirm, or save those changes elsewhere first');
    // What would have been lost is shown (the diff), and kept.
    expect(r.stderr).toContain("-sea, and my own line");
    expect(readFileSync(join(root, "c.txt"), "utf8")).toBe("sea, and my own line\n");
  });

  test("--undo where no session was ever saved: nothing to take back, said plainly, exit 0", async () => {
    e2e.serve([]);
    const { root, env } = e2e.workspace();
    for (const flags of [["--undo"], ["-c", "--undo"]]) {
      const r = await runHeadless(root, env, flags);
      expect(r.stdout).toBe("Nothing to take back: there is no saved session in this workspace.\n");
      expect(r.code).toBe(0);
    }
  });

  test("--rewind=N conversation also drops those turns from the saved conversation, as /rewind N conversation does; what may follow each is said", async () => {
    const fake = e2e.serve([
      reply([toolUse("write_file", { path: "one.txt", content: "1\n" })]),
      reply("Wrote one."),
      reply([toolUse("write_file", { path: "two.txt", content: "2\n" })]),
      reply("Wrote two."),
      reply("Fresh start."),
    ]);
    const { root, env } = e2e.workspace();
    expect((await runHeadless(root, env, ["-p", "first", "--allow-write"])).code).toBe(0);
    expect((await runHeadless(root, env, ["-c", "-p", "second", "--allow-write"])).code).toBe(0);
    expect((await runHeadless(root, env, ["--rewind"])).stdout).toContain('bunker --rewind=N takes the files back to before turn N; add "conversation"');

    const r = await runHeadless(root, env, ["--rewind=2", "conversation", "--allow-write"]);
    expect(r.stdout).toBe('Took back turn 2 ("second"): removed two.txt. The saved conversation is back to before turn 2 too.\n');
    expect(r.code).toBe(0);
    expect(existsSync(join(root, "two.txt"))).toBe(false);
    expect(existsSync(join(root, "one.txt"))).toBe(true);
    // The next -c carries the first turn only.
    expect((await runHeadless(root, env, ["-c", "-p", "again"])).stdout).toBe("Fresh start.\n");
    const sent = JSON.stringify(fake.requests.at(-1)!.body.messages);
    expect(sent).toContain("Wrote one.");
    expect(sent).not.toContain("second");
    expect(sent).not.toContain("Wrote two.");

    for (const [flags, said] of [
      [["--undo", "conversation"], '--undo takes back file changes and runs no prompt; only "force" may follow it (take back files changed since, too), not "conversation"'],
      [["--rewind=1", "tidy up"], '--rewind=N takes back file changes and runs no prompt; only "conversation" (drop those turns from the saved conversation too) and "force" (take back files changed since, too) may follow it, not "tidy up"'],
    ] as const) {
      const bad = await runHeadless(root, env, [...flags]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toBe(`bunker: ${said}\n`);
    }
  });
});
