// What the person types at the REPL prompt reaches the model whole: a
// multi-line paste is one message (not its first line), a paste without a
// final newline waits for the rest of its line, typed lines stay separate.
import { describe, expect, test } from "bun:test";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { apiError, reply, type Step } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, quitWithCtrlD } from "../support/cli.ts";
import { TmuxSession, tmuxAvailable } from "../support/tmux.ts";

const e2e = endToEnd("bunker-repl-");

/** The text of the last user message of request `i`. */
function lastUserText(i: number): string {
  const messages: MessageParam[] = e2e.fake.requests[i]!.body.messages;
  const last = messages.at(-1)!;
  if (typeof last.content === "string") return last.content;
  return last.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

/** Ctrl+D leaves the REPL with its closing usage line. */
async function leaves(t: TmuxSession): Promise<void> {
  expect(await quitWithCtrlD(t)).not.toBeNull();
  expect(t.screen()).toContain("tokens in");
}

async function startRepl(steps: Step[]): Promise<TmuxSession> {
  e2e.serve(steps);
  const { root, env } = e2e.workspace();
  const tmux = await e2e.terminal([...BUNKER], { cwd: root, env, cols: 100, rows: 40 });
  await tmux.waitFor("/help for commands");
  await tmux.waitFor("›");
  return tmux;
}

describe.skipIf(!tmuxAvailable)("REPL input in a real terminal (tmux)", () => {
  test("Ctrl+R finds an earlier message by a word in it; Enter keeps it in the line, a second Enter sends it (N12-26: Ctrl+R did nothing)", async () => {
    const t = await startRepl([reply("One."), reply("Two."), reply("Three.")]);
    t.keys(["run the unit tests"], true);
    t.keys(["Enter"]);
    await t.waitFor("One.");
    t.keys(["what changed?"], true);
    t.keys(["Enter"]);
    await t.waitFor("Two.");
    t.keys(["C-r"]);
    t.keys(["unit"], true);
    await t.waitFor(/› run the unit tests\n  search history: unit/);
    t.keys(["Enter"]);
    await Bun.sleep(300);
    expect(e2e.fake.requests).toHaveLength(2);
    expect(t.screen()).not.toContain("search history");
    t.keys([" again"], true);
    t.keys(["Enter"]);
    await t.waitFor("Three.");
    expect(lastUserText(2)).toBe("run the unit tests again");
    await leaves(t);
  }, 30_000);

  test("a multi-line paste is sent as one message, every line kept", async () => {
    const t = await startRepl([reply("Got all three lines.")]);
    t.paste("first line of the paste\nsecond line\n  third, indented\n");
    await t.waitFor("Got all three lines.");
    await Bun.sleep(200);
    expect(e2e.fake.requests).toHaveLength(1);
    expect(lastUserText(0)).toBe("first line of the paste\nsecond line\n  third, indented");
    await leaves(t);
  }, 30_000);

  test("Ctrl+C with text clears the line without leaving, even right after a Ctrl+C at an empty prompt; Up brings the text back; Alt+Enter is a new line", async () => {
    const t = await startRepl([reply("Both lines arrived.")]);
    t.keys(["C-c"]);
    await t.waitFor("(Ctrl+C again to leave)");
    t.keys(["a long message I half wrote"], true);
    t.keys(["C-c"]);
    await t.waitFor("(cleared; ↑ brings it back)");
    await Bun.sleep(300);
    expect(t.screen()).toContain("› a long message I half wrote  ^C (cleared; ↑ brings it back)");
    t.keys(["Up"]);
    t.keys(["M-Enter"]);
    t.keys(["and its second line"], true);
    t.keys(["Enter"]);
    await t.waitFor("Both lines arrived.");
    expect(lastUserText(0)).toBe("a long message I half wrote\nand its second line");
    await leaves(t);
  }, 30_000);

  test("the prompt given on the command line is in the history: Up brings it back (N11-21)", async () => {
    e2e.serve([reply("Fixed them."), reply("Again.")]);
    const { root, env } = e2e.workspace();
    const t = await e2e.terminal([...BUNKER, "fix the tests"], { cwd: root, env, cols: 100, rows: 40 });
    await t.waitFor("Fixed them.");
    await t.waitFor(/\n› *\n/);
    t.keys(["Up"]);
    await t.waitFor(/\n› fix the tests *\n(?:claude-|context )/);
    t.keys(["Enter"]);
    await t.waitFor("Again.");
    expect(lastUserText(1)).toBe("fix the tests");
    await leaves(t);
  }, 30_000);

  test("a 100-line paste shows as one placeholder line, as in Claude Code, and the model gets every line", async () => {
    const t = await startRepl([reply("Read all hundred.")]);
    const hundred = Array.from({ length: 100 }, (_, i) => `pasted row ${i + 1}`).join("\n") + "\n";
    t.paste(hundred, true);
    await t.waitFor("› [Pasted text #1 +100 lines]");
    t.keys([" count them"], true);
    await t.waitFor("› [Pasted text #1 +100 lines] count them");
    expect(e2e.fake.requests).toHaveLength(0);
    t.keys(["Enter"]);
    await t.waitFor("Read all hundred.");
    expect(lastUserText(0)).toBe(`${hundred.slice(0, -1)} count them`);
    // Neither the input line nor the transcript echoed the paste.
    const screen = t.screen();
    expect(screen).not.toContain("pasted row");
    expect(screen).toContain("› [Pasted text #1 +100 lines] count them\n");
    await leaves(t);
  }, 30_000);

  test("keys typed before the banner are drawn once, in the input line, not in front of the banner", async () => {
    e2e.serve([reply("Got it.")]);
    const { root, env } = e2e.workspace();
    const t = await e2e.terminal([...BUNKER], { cwd: root, env, cols: 100, rows: 30 });
    // At once: the terminal echoes them before bunker reads the keyboard.
    t.keys(["hello there"], true);
    await t.waitFor("› hello there");
    await Bun.sleep(300);
    const screen = t.screen();
    expect(screen.split("\n")[0]).toMatch(/^bunker · /);
    expect(screen.split("hello there").length - 1).toBe(1);
    t.keys([" and more"], true);
    t.keys(["Enter"]);
    await t.waitFor("Got it.");
    expect(lastUserText(0)).toBe("hello there and more");
    await leaves(t);
  }, 30_000);

  test("a paste without a final newline waits for the person to finish the line", async () => {
    const t = await startRepl([reply("Joined.")]);
    t.paste("alpha\nbeta");
    await Bun.sleep(300);
    expect(e2e.fake.requests).toHaveLength(0);
    t.keys([" gamma"], true);
    t.keys(["Enter"]);
    await t.waitFor("Joined.");
    expect(lastUserText(0)).toBe("alpha\nbeta gamma");
    await leaves(t);
  }, 30_000);

  test("an API failure is shown and the session goes on: the next message is answered with the history intact", async () => {
    const t = await startRepl([apiError(401, { message: "invalid x-api-key" }), reply("Now it works.")]);
    t.keys(["first try"], true);
    t.keys(["Enter"]);
    await t.waitFor("error: the API rejected the key (401): check ANTHROPIC_API_KEY (invalid x-api-key)");
    // The message got no answer: it is out of the conversation, and ↑ brings it back (new user 12's N12-08).
    expect((await t.waitFor("brings it back to send again.")).replace(/\s+/g, " ")).toContain("Your message got no answer and is not in the conversation: ↑ brings it back to send again.");
    // Back at an empty prompt, the status line under it.
    await t.waitFor(/› *\n[^\n]*\$\d+\.\d{4}\s*$/);
    t.keys(["second try"], true);
    t.keys(["Enter"]);
    await t.waitFor("Now it works.");
    expect(e2e.fake.requests.map((r) => r.status)).toEqual([401, 200]);
    // The failed message is not sent again with the next one.
    expect(e2e.fake.requests[1]!.body.messages).toHaveLength(1);
    expect(lastUserText(1)).toBe("second try");
    await leaves(t);
  }, 30_000);

  test("a message that starts with an absolute path (a dragged screenshot, then a question) goes to the model, not to the commands (N12-25)", async () => {
    const t = await startRepl([reply("It is a screenshot.")]);
    t.keys(["/tmp/no-such-shot.png what is this?"], true);
    t.keys(["Enter"]);
    await t.waitFor("It is a screenshot.");
    expect(t.screen()).not.toContain("Unknown command");
    expect(lastUserText(0)).toContain("/tmp/no-such-shot.png what is this?");
    await leaves(t);
  }, 30_000);

  test("/help lists the commands; an unknown one says so; exit and quit leave", async () => {
    for (const word of ["exit", "quit", "/exit"]) {
      const t = await startRepl([]);
      t.keys(["/help"], true);
      t.keys(["Enter"]);
      await t.waitFor(/\/compact\s+shorten old tool output/);
      t.keys(["/nope"], true);
      t.keys(["Enter"]);
      await t.waitFor("Unknown command /nope. Try /help.");
      t.keys([word], true);
      t.keys(["Enter"]);
      const deadline = Date.now() + 10_000;
      while (t.exitStatus() === null && Date.now() < deadline) await Bun.sleep(50);
      expect(t.exitStatus()).not.toBeNull();
      expect(t.screen()).toContain("tokens in");
      expect(e2e.fake.requests).toHaveLength(0);
      t.close();
      await e2e.fake.stop();
    }
  }, 60_000);

  test("Alt+B, Alt+F and Alt+D move and delete by word; Escape, then b typed after it, is Escape and b", async () => {
    const t = await startRepl([reply("Got it.")]);
    /** Presses an Alt key as a person does, once what came before was read (tmux sends Escape and the letter in one write). */
    const alt = async (letter: string, cursorAt: number) => {
      t.keys([`M-${letter}`]);
      const deadline = Date.now() + 10_000;
      while (Number(t.command(["display-message", "-p", "-t", t.name, "#{cursor_x}"]).trim()) !== cursorAt) {
        if (Date.now() > deadline) throw new Error(`the cursor is not at ${cursorAt} after M-${letter}:\n${t.visible()}`);
        await Bun.sleep(50);
      }
    };
    t.keys(["one two three"], true);
    await t.waitFor("› one two three");
    await alt("b", "› one two ".length);
    await alt("b", "› one ".length);
    t.keys(["M-d"]);
    await t.waitFor(/› one +three/);
    t.keys(["2"], true);
    await t.waitFor("› one 2 three");
    await alt("f", "› one 2 three".length);
    t.keys(["!"], true);
    await t.waitFor("› one 2 three!");
    // A person's Escape and the next key come apart: nothing is moved or deleted.
    t.keys(["Escape"]);
    await Bun.sleep(150);
    t.keys(["b"], true);
    t.keys(["Enter"]);
    await t.waitFor("Got it.");
    expect(lastUserText(0)).toBe("one 2 three!b");
    await leaves(t);
  });

  test("lines typed one at a time are separate messages", async () => {
    const t = await startRepl([reply("One."), reply("Two.")]);
    t.keys(["hello"], true);
    t.keys(["Enter"]);
    await t.waitFor("One.");
    await Bun.sleep(100);
    t.keys(["again"], true);
    t.keys(["Enter"]);
    await t.waitFor("Two.");
    expect(e2e.fake.requests).toHaveLength(2);
    expect(lastUserText(0)).toBe("hello");
    expect(lastUserText(1)).toBe("again");
    await leaves(t);
  }, 30_000);
});

describe.skipIf(!tmuxAvailable)("completion in the input line (tmux)", () => {
  test("/ lists the matching commands as they are typed and Tab completes one; @ and Tab complete a workspace path, never one the read permission refuses; the file goes with the message", async () => {
    e2e.serve([reply("Read it.")]);
    const { root, env } = e2e.workspace({ "calc.js": "const x = 1;\n", "src/app.ts": "export {};\n", "secret.txt": "s3cret\n" });
    const t = await e2e.terminal([...BUNKER, "--deny-read=secret.txt"], { cwd: root, env, cols: 100, rows: 40 });
    await t.waitFor("/help for commands");
    t.keys(["/co"], true);
    // Listed under the line as typed, each with its help.
    let screen = await t.waitFor(/\/compact +shorten old tool output/);
    expect(screen).toMatch(/\/cost +tokens used and cost so far/);
    expect(screen).not.toMatch(/\/help +this list/);
    t.keys(["s", "Tab"]);
    await t.waitFor(/› \/cost ?$/m);
    t.keys(["Enter"]);
    await t.waitFor(/tokens in \(0 from cache\)/);

    t.keys(["look at @sr"], true);
    t.keys(["Tab"]);
    await t.waitFor(/› look at @src\/$/m);
    t.keys(["Tab"]);
    await t.waitFor(/› look at @src\/app\.ts ?$/m);
    // A file the read permission refuses is not offered: Tab leaves the word as it is.
    t.keys(["and @se"], true);
    t.keys(["Tab"]);
    await Bun.sleep(300);
    expect(t.visible()).toMatch(/› look at @src\/app\.ts and @se$/m);
    expect(t.visible()).not.toContain("secret.txt");
    t.keys(["C-w"]);
    t.keys(["@ca"], true);
    t.keys(["Tab"]);
    await t.waitFor(/› look at @src\/app\.ts and @calc\.js ?$/m);
    t.keys(["Enter"]);
    screen = await t.waitFor("Read it.");
    expect(screen).toContain("attached src/app.ts (1 line)");
    expect(screen).toContain("attached calc.js (1 line)");
    const sent = JSON.stringify(e2e.fake.requests[0]!.body.messages.at(-1));
    expect(sent).toContain("The person attached the file src/app.ts, as read_file shows it:\\n1\\texport {};");
    expect(sent).not.toContain("s3cret");
    await leaves(t);
  }, 40_000);
});
