// What the person sees in a real terminal (tmux) while a turn runs: rendered
// markdown wrapped at the pane's width, the status line and its figures,
// Escape interrupting a streaming answer without losing a keystroke.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { reply, toolUse, type Step } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, quitWithCtrlD } from "../support/cli.ts";
import { TmuxSession, tmuxAvailable } from "../support/tmux.ts";
import { until } from "../support/wait.ts";
import { COMMANDS } from "../../src/slash-commands.ts";

const e2e = endToEnd("bunker-screen-");

async function startRepl(steps: Step[], cols: number, env: Record<string, string> = {}, args: string[] = []): Promise<TmuxSession> {
  e2e.serve(steps);
  const ws = e2e.workspace();
  const tmux = await e2e.terminal([...BUNKER, ...args], { cwd: ws.root, env: { ...ws.env, ...env }, cols, rows: 50 });
  await tmux.waitFor("/help for commands");
  await tmux.waitFor("›");
  return tmux;
}

/** The status line at the bottom, at rest: it starts with the model, no step running. */
const IDLE = /\nclaude-[^\n]*· \$\d+\.\d{4}\s*$/;

/** Ctrl+D leaves with the closing usage line (tmux does not always learn the exit status). */
async function leaves(t: TmuxSession): Promise<void> {
  expect(await quitWithCtrlD(t)).not.toBeNull();
  expect(t.screen()).toMatch(/\d+ tokens in \(\d+ from cache\), ≈?\d+ out, \$\d+\.\d{4}\n/);
}

function send(t: TmuxSession, text: string): void {
  t.keys([text], true);
  t.keys(["Enter"]);
}

/** A REPL whose model runs `command` (--allow-run) and then says `answer`; returns the screen once it has. */
async function commandTurn(command: string, answer: string): Promise<{ t: TmuxSession; screen: string }> {
  const t = await startRepl([reply([toolUse("run_bash", { command })]), reply(answer)], 100, {}, ["--allow-run"]);
  send(t, "go");
  return { t, screen: await t.waitFor(answer) };
}

const ANSWER = [
  "## Summary of the change",
  "",
  "I updated **src/greet.js** so that it greets people by name instead of the whole world, which is what the issue asked for in its second paragraph.",
  "",
  "- the function takes a **name** parameter with a default for callers that pass nothing",
  "- the tests cover both",
  "",
  "```typescript",
  "export function greet(name: string): string {",
  "  return `Hello, ${name}!`;",
  "}",
  "```",
  "",
  "| File | Change |",
  "|------|--------|",
  "| src/greet.js | added a name parameter |",
  "",
  "All done.",
].join("\n");

/** Every word of `text` the screen shows, in order, with nothing cut mid-word at a line's end. */
function wordsIntact(screen: string, text: string): void {
  const words = screen.split(/\s+/).filter(Boolean);
  const wanted = text.split(/\s+/);
  const at = words.indexOf(wanted[0]!);
  expect(at).toBeGreaterThanOrEqual(0);
  expect(words.slice(at, at + wanted.length)).toEqual(wanted);
}

describe.skipIf(!tmuxAvailable)("the REPL's screen (tmux)", () => {
  for (const cols of [40, 120]) {
    test(`a streamed markdown answer is rendered and wrapped on word boundaries at ${cols} columns`, async () => {
      const t = await startRepl([reply(ANSWER, "end_turn", { chunkSize: 7 })], cols);
      send(t, "what changed?");
      const screen = await t.waitFor("All done.");
      const shown = screen.slice(screen.indexOf("what changed?"));
      // Rendered, not typed out: no markers left.
      expect(shown).not.toContain("**");
      expect(shown).not.toContain("```");
      expect(shown).not.toContain("## ");
      expect(shown).not.toContain("|------");
      expect(shown).toContain("Summary of the change");
      expect(shown).toMatch(/• the function takes a name/);
      expect(shown).toMatch(/│\s+File\s+│\s+Change\s+│/);
      // The code block keeps its gutter on every row, wrapped or not; a code line's further rows start with a ↪.
      const code = shown.slice(shown.indexOf("┌─ typescript"), shown.indexOf("└─")).split("\n").slice(1, -1);
      expect(code.every((l) => l.startsWith("│ "))).toBe(true);
      expect(code.map((l) => l.slice(2).replace(/^ *↪ /, "")).join(" ").replace(/\s+/g, " ")).toBe("export function greet(name: string): string { return `Hello, ${name}!`; }");
      // No line is wider than the pane; words are whole.
      for (const line of shown.split("\n")) expect(Bun.stringWidth(line)).toBeLessThanOrEqual(cols);
      wordsIntact(shown, "I updated src/greet.js so that it greets people by name instead of the whole world, which is what the issue asked for in its second paragraph.");
      if (cols === 40) expect(shown.split("\n").filter((l) => l.startsWith("I updated")).length).toBe(1);
      // The code is coloured: its keyword carries a colour escape on the screen.
      const coloured = t.screenWithColours();
      expect(coloured).toMatch(/\x1b\[[0-9;]*m(export|function)\x1b/);
      await leaves(t);
    }, 30_000);
  }

  test("NO_COLOR keeps the answer as the model wrote it", async () => {
    const t = await startRepl([reply("Some **bold** words.")], 80, { NO_COLOR: "1" });
    send(t, "hi");
    await t.waitFor("Some **bold** words.");
    await leaves(t);
  }, 30_000);

  test("a piped stdout gets the answer as the model wrote it", async () => {
    e2e.serve([reply("Some **bold** words.")]);
    const ws = e2e.workspace();
    // What the pipe carries is read from a file: a reader that writes it to this same terminal races bunker's next
    // prompt, whose redraw clears the line the answer's tail is on (a reader late by a few ms lost "Some **" so).
    const piped = join(ws.root, "..", "piped.txt");
    const t = await e2e.terminal(["sh", "-c", `${BUNKER.join(" ")} | cat > ${piped}`], { cwd: ws.root, env: ws.env, cols: 80, rows: 30 });
    await t.waitFor("/help for commands");
    await t.waitFor("›");
    send(t, "hi");
    await until(() => existsSync(piped) && readFileSync(piped, "utf8").endsWith("\n"), "the answer through the pipe");
    expect(readFileSync(piped, "utf8")).toBe("Some **bold** words.\n");
    // Not drawn in place: no status line on the terminal either.
    expect(t.screen()).not.toContain("esc to interrupt");
    // Nothing else ever goes down the pipe.
    expect(await quitWithCtrlD(t)).not.toBeNull();
    expect(readFileSync(piped, "utf8")).toBe("Some **bold** words.\n");
  }, 30_000);

  test("Escape mid-stream stops the turn at once; what was typed around it is the next message, whole", async () => {
    const slow = reply("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen", "end_turn", { eventDelayMs: 150, chunkSize: 4 });
    const t = await startRepl([slow, reply("Fine, stopping.")], 100);
    send(t, "count for me");
    await t.waitFor("one t");
    // Typed at full speed: text, Escape, text, all in one go.
    t.keys(["abc"], true);
    t.keys(["Escape"]);
    const pressed = Date.now();
    t.keys(["def"], true);
    // Within 200 ms the stream is dropped: timed where it happens, by the server (in this process, its
    // clock), with the test's event loop free meanwhile; polling the screen through tmux would time tmux.
    const streamed = e2e.fake.requests[0]!;
    await until(() => streamed.cancelledAt !== undefined, "the stream dropped by bunker", 5_000);
    expect(streamed.cancelledAt! - pressed).toBeLessThan(200);
    await t.waitFor("Interrupted.");
    await t.waitFor("› abcdef");
    t.keys([" ghi"], true);
    t.keys(["Enter"]);
    await t.waitFor("Fine, stopping.");
    expect(e2e.fake.requests).toHaveLength(2);
    const messages: MessageParam[] = e2e.fake.requests[1]!.body.messages;
    const last = messages.at(-1)!;
    const text = typeof last.content === "string" ? last.content : last.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
    expect(text).toContain("interrupted your reply");
    expect(text.endsWith("abcdef ghi")).toBe(true);
    await leaves(t);
  }, 30_000);

  test("Escape at the prompt eats nothing: abc, Escape, def is sent as abcdef", async () => {
    const t = await startRepl([reply("Got it.")], 100);
    t.keys(["abc"], true);
    t.keys(["Escape"]);
    t.keys(["def"], true);
    t.keys(["Enter"]);
    await t.waitFor("Got it.");
    const last = e2e.fake.requests[0]!.body.messages.at(-1)!;
    expect(last.content).toMatchObject([{ type: "text", text: "abcdef" }]);
    await leaves(t);
  }, 30_000);

  test("↑ in a draft of two lines moves to the line above; only from the first line does it reach the history (N12-21)", async () => {
    const t = await startRepl([reply("One."), reply("Two.")], 100);
    send(t, "go");
    await t.waitFor("One.");
    t.keys(["first\\"], true);
    t.keys(["Enter"]);
    t.keys(["second"], true);
    t.keys(["Up"]);
    t.keys(["X"], true);
    t.keys(["Enter"]);
    await t.waitFor("Two.");
    const last = e2e.fake.requests[1]!.body.messages.at(-1)!;
    expect(last.content).toMatchObject([{ type: "text", text: "firstX\nsecond" }]);
    await leaves(t);
  }, 30_000);

  test("Ctrl+Z at the prompt suspends bunker as a shell job, the terminal given back; fg brings the prompt back and nothing typed at the shell reaches the model (N12-23)", async () => {
    e2e.serve([reply("Hello back.")]);
    const ws = e2e.workspace();
    const t = await e2e.terminal(["bash", "--norc", "--noprofile", "-i"], { cwd: ws.root, env: { ...ws.env, PS1: "SHELL$ " }, cols: 100, rows: 40 });
    await t.waitFor("SHELL$");
    t.keys([BUNKER.map((a) => `'${a}'`).join(" ")], true);
    t.keys(["Enter"]);
    await t.waitFor("/help for commands");
    t.keys(["C-z"]);
    await t.waitFor(/Stopped/);
    t.keys(["echo at-the-shell"], true);
    t.keys(["Enter"]);
    await t.waitFor(/\nat-the-shell/);
    t.keys(["fg"], true);
    t.keys(["Enter"]);
    await t.waitFor(/›\s*$/m, 15_000, 0);
    t.keys(["hello"], true);
    t.keys(["Enter"]);
    await t.waitFor("Hello back.");
    const sent = e2e.fake.requests.map((r) => JSON.stringify(r.body.messages));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('"hello"');
    expect(sent[0]).not.toContain("fg");
    expect(sent[0]).not.toContain("at-the-shell");
    t.keys(["C-d"]);
  }, 30_000);

  test("Ctrl+Z with no job-control shell above bunker (it is the pane's own command) says it cannot suspend, and the prompt goes on working (reviewer's R13-03)", async () => {
    const t = await startRepl([reply("Still here.")], 100);
    t.keys(["C-z"]);
    expect((await t.waitFor("cannot suspend bunker here")).replace(/\s+/g, " ")).toContain("Ctrl+Z cannot suspend bunker here (no shell with job control started it)");
    send(t, "hello");
    await t.waitFor("Still here.");
    await leaves(t);
  }, 30_000);

  test("the status line shows during a turn and after it, with the figures /cost prints", async () => {
    const usage = { input_tokens: 1200, output_tokens: 345, cache_read_input_tokens: 3000, cache_creation_input_tokens: 500 };
    const t = await startRepl([reply("First answer.", "end_turn", { usage }), reply("Second answer, slowly.", "end_turn", { usage, eventDelayMs: 200 })], 140);
    send(t, "one");
    await t.waitFor("First answer.");
    // Back at the prompt: the status line no longer offers to interrupt.
    await t.waitFor(IDLE);
    send(t, "two");
    const during = await t.waitFor(/esc to interrupt/);
    // Only ever one status line: it never scrolls into the transcript.
    expect(during.match(/esc to interrupt/g)).toHaveLength(1);
    expect(during).toMatch(/(waiting|writing) \d+\.\ds/);
    expect(during).toContain("4700 in (64% cached) · 345 out");
    await t.waitFor("Second answer, slowly.");
    await t.waitFor(IDLE);
    send(t, "/cost");
    const after = await t.waitFor("tokens in (");
    const cost = /(\d+) tokens in \((\d+) from cache\), (\d+) out, (\$\d+\.\d{4})/.exec(after)!;
    expect(cost.slice(1, 4)).toEqual(["9400", "6000", "690"]);
    const status = t.visible().trim().split("\n").at(-1)!;
    expect(status).toContain(`claude-`);
    expect(status).toContain(`${cost[1]} in (64% cached) · ${cost[3]} out · ${cost[4]}`);
    expect(status).toMatch(/context \d+%/);
    expect(status).not.toContain("esc to interrupt");
    expect(after.match(/ in \(64% cached\)/g)).toHaveLength(1);
    await leaves(t);
  }, 30_000);

  test("a command's last line is on screen when it ends, and the count says only what is not shown", async () => {
    const { t, screen } = await commandTurn("echo a; sleep 0.1; echo LAST", "Ran it.");
    const shown = screen.slice(screen.indexOf("echo a; sleep 0.1; echo LAST"), screen.indexOf("Ran it."));
    expect(shown).toMatch(/exit code 0\n\s+a\n\s+LAST\n/);
    expect(shown).not.toMatch(/more line|earlier line/);
    await leaves(t);
  }, 30_000);

  test("/expand shows the last command's whole output in a pager; q goes back to the prompt", async () => {
    const { t, screen } = await commandTurn("seq 1 80", "Counted.");
    expect(screen).toMatch(/exit code 0\n\s+… \(77 earlier lines\)\n\s+78\n\s+79\n\s+80\n/);
    await t.waitFor(IDLE);
    send(t, "/expand");
    const paged = await t.waitFor(/^\$ seq 1 80\n\nexit code 0\n\n1\n2\n3\n/m);
    expect(paged).not.toContain("esc to interrupt");
    t.keys(["q"]);
    await t.waitFor(IDLE);
    // The keyboard is the REPL's again: a message typed now is sent.
    send(t, "/cost");
    await t.waitFor("tokens in (");
    await leaves(t);
  }, 30_000);

  test("/expand on a short output opens the pager as on a long one: it waits for q, and the q is not typed into the next message (N12-16)", async () => {
    const t = await startRepl([reply([toolUse("run_bash", { command: "seq 1 5" })]), reply("Counted."), reply("Hello back.")], 100, {}, ["--allow-run"]);
    send(t, "go");
    await t.waitFor("Counted.");
    await t.waitFor(IDLE);
    send(t, "/expand");
    await t.waitFor(/^\$ seq 1 5\n\nexit code 0\n\n1\n2\n3\n4\n5\n/m);
    // Still in the pager a moment later: it did not quit at once because the text fits the screen.
    await Bun.sleep(500);
    expect(t.visible()).toContain("(END)");
    expect(t.visible()).not.toMatch(IDLE);
    t.keys(["q"]);
    await t.waitFor(IDLE);
    send(t, "hello");
    await t.waitFor("Hello back.");
    expect(JSON.stringify(e2e.fake.requests[2]!.body.messages.at(-1))).toContain('"text":"hello"');
    await leaves(t);
  }, 30_000);

  test("Escape stops a running command as Ctrl+C does; the model is told with the next message", async () => {
    const t = await startRepl([reply([toolUse("run_bash", { command: "echo started; sleep 30" })]), reply("Understood.")], 100, {}, ["--allow-run"]);
    send(t, "wait a while");
    await t.waitFor("│ started");
    const pressed = Date.now();
    t.keys(["Escape"]);
    await t.waitFor("Interrupted.");
    // Stopped, not left to its 30 s (a kill and a redraw, given 10 s on a loaded machine).
    expect(Date.now() - pressed).toBeLessThan(10_000);
    send(t, "never mind");
    await t.waitFor("Understood.");
    const results = JSON.stringify(e2e.fake.requests[1]!.body.messages);
    expect(results).toContain("interrupted by the user; the command and its children were stopped");
    await leaves(t);
  }, 30_000);

  test("a paste taller than the screen shows the prompt marker and how many lines are above; Enter sends it whole", async () => {
    e2e.serve([reply("Got the list.")]);
    const ws = e2e.workspace();
    const t = await e2e.terminal(BUNKER, { cwd: ws.root, env: ws.env, cols: 80, rows: 20 });
    await t.waitFor(/\n› *\nclaude-/);
    const pasted = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`);
    t.paste(pasted.join("\n"));
    await t.waitFor(/line 60\s*\nclaude-/);
    await Bun.sleep(200);
    const rows = t.visible().replace(/\n+$/, "").split("\n").map((r) => r.trimEnd());
    expect(rows).toHaveLength(20);
    const note = rows.findIndex((r) => /^› \(\d+ more lines above\)$/.test(r));
    expect(note).toBeGreaterThanOrEqual(0);
    const hidden = Number(/\d+/.exec(rows[note]!)![0]);
    // Below the note, the rest of the paste to its last line, then the status line.
    const shown = rows.slice(note + 1, -1).map((r) => r.trim());
    expect(shown).toEqual(pasted.slice(hidden));
    expect(rows.at(-1)).toMatch(/^claude-/);
    t.keys(["Enter"]);
    await t.waitFor("Got the list.");
    const last = e2e.fake.requests[0]!.body.messages.at(-1)!;
    expect(last.content).toMatchObject([{ type: "text", text: pasted.join("\n") }]);
    await leaves(t);
  }, 30_000);

  for (const cols of [40, 100]) {
    test(`/help fits ${cols} columns: descriptions wrap on word boundaries under their own column`, async () => {
      const t = await startRepl([], cols);
      send(t, "/help");
      const screen = await t.waitFor(/Ctrl\+C twice at an\s+empty prompt leaves\./);
      const rows = screen.slice(screen.indexOf("Commands:"), screen.indexOf("Escape or Ctrl+C")).split("\n").slice(1, -1);
      for (const r of rows) expect(Bun.stringWidth(r)).toBeLessThan(cols);
      for (const c of COMMANDS) {
        // The name at the row's start, its description whole, word after word.
        expect(rows.some((r) => r.startsWith(`  ${c.name}`))).toBe(true);
        expect(rows.join("\n").replace(/\s+/g, " ")).toContain(c.help);
      }
      // Every row after a name's is indented to the description column.
      const column = rows[0]!.indexOf("this list");
      for (const r of rows.filter((r) => !r.startsWith("  /"))) expect(r.search(/\S/)).toBe(column);
      await leaves(t);
    }, 30_000);
  }

  test("after a resize, answers wrap at the new width", async () => {
    const long = "This paragraph is long enough to need several rows at forty columns, so where it breaks shows the width that was used.";
    const t = await startRepl([reply(long), reply(`Again: ${long}`)], 120);
    send(t, "one");
    await t.waitFor("width that was used.");
    expect(t.screen()).toContain(long);
    t.resize(40, 50);
    await Bun.sleep(200);
    send(t, "two");
    const screen = await t.waitFor(/Again:[^]*used\./);
    const rows = screen.slice(screen.indexOf("Again:")).split("\n");
    const answer = rows.slice(0, rows.findIndex((r) => r.includes("used.")) + 1);
    expect(answer.length).toBeGreaterThan(2);
    for (const r of answer) expect(Bun.stringWidth(r)).toBeLessThanOrEqual(40);
    wordsIntact(answer.join("\n"), `Again: ${long}`);
    await leaves(t);
  }, 30_000);
});
