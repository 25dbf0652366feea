// Messages on a narrow terminal (tmux, 50 columns) break between words: the
// terminal's own wrap cut "run b" / "unker" and "forc" / "e". The screen is
// read with wrapped rows joined (-J): a row bunker did not break itself comes
// back as one line wider than the screen.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, press, quitWithCtrlD, waitForCount, waitForQuestion } from "../support/cli.ts";
import { tempDir } from "../support/context.ts";
import { makePng } from "../support/images.ts";
import { tmuxAvailable } from "../support/tmux.ts";
import { until } from "../support/wait.ts";

const e2e = endToEnd("bunker-narrow-");
const COLS = 50;

/** The rows from the one starting with `start` through the one ending with `end`: each narrower than the screen, and together the sentence. */
function rowsOf(screen: string, start: string, end: string): string[] {
  const rows = screen.split("\n");
  const from = rows.findIndex((r) => r.trimStart().startsWith(start));
  const to = rows.findIndex((r, i) => i >= from && r.trimEnd().endsWith(end));
  expect(from).toBeGreaterThanOrEqual(0);
  expect(to).toBeGreaterThanOrEqual(from);
  return rows.slice(from, to + 1);
}

describe.skipIf(!tmuxAvailable)("a 50-column terminal", () => {
  test("an @image outside the workspace and /rewind's hint wrap between words", async () => {
    e2e.serve([reply([toolUse("write_file", { path: "b.txt", content: "bee\n" })]), reply("Wrote it.")]);
    const { root, env } = e2e.workspace();
    const outside = tempDir("n-");
    const shot = join(outside, "shot.png");
    writeFileSync(shot, makePng(4, 4));
    const tmux = await e2e.terminal([...BUNKER, "--allow-write"], { cwd: root, env, cols: COLS, rows: 40 });
    await waitForCount(tmux, "Ctrl+D to leave", 1);
    tmux.keys([`see @${shot}`], true);
    await press(tmux, "Enter");
    // A file outside the workspace the message names is asked about (N12-20); refused here, it is not attached.
    await waitForQuestion(tmux, "Attach ", 1);
    await press(tmux, "n");
    await waitForCount(tmux, "Wrote it.", 1);
    tmux.keys(["/rewind"], true);
    await press(tmux, "Enter");
    const screen = await waitForCount(tmux, "asked).", 1);

    // Under the prompt, marked as a failure and indented as the "attached" lines are, its rows under its text (N12-05).
    const notAttached = rowsOf(screen, `✗ ${shot} was`, "refused reading");
    expect(notAttached[0]).toStartWith(`  ✗ ${shot} was not attached`);
    for (const row of notAttached.slice(1)) expect(row).toMatch(/^ {4}\S/);
    const hint = rowsOf(screen, "/rewind N takes the files back", "asked).");
    for (const row of [...notAttached, ...hint]) expect(Bun.stringWidth(row)).toBeLessThan(COLS);
    expect(notAttached.join(" ").replace(/\s+/g, " ")).toContain(`was not attached: The person refused reading`);
    expect(hint.join(" ").replace(/\s+/g, " ")).toContain('"force" to take back files changed since (you are shown what that loses and asked).');
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });
});

describe.skipIf(!tmuxAvailable)("typing a long message on a narrow terminal", () => {
  test("the input line breaks between words, its rows under the prompt's indent, while typing and after an insert in the middle (N12-29)", async () => {
    e2e.serve([reply("Got it.")]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER], { cwd: root, env, cols: COLS, rows: 30 });
    await waitForCount(tmux, "Ctrl+D to leave", 1);
    const message = "the quick brown fox jumps over the lazy dog and then keeps running across the wide open field until the sun sets";
    tmux.keys([message], true);
    await waitForCount(tmux, "sun sets", 1);
    tmux.keys(Array<string>(60).fill("Left"));
    tmux.keys(["INSERTED "], true);
    // The frame after the insert, whole (a capture can land between two of a frame's writes).
    const screen = await until(() => {
      const shown = tmux.screen();
      const rows = shown.split("\n");
      return shown.includes("INSERTED ") && rows.some((r) => r.startsWith("› the quick")) && rows.some((r) => r.trimEnd().endsWith("sun sets")) ? shown : null;
    }, "the input line after the insert");
    const rows = rowsOf(screen, "› the quick", "sun sets");
    expect(rows.length).toBeGreaterThan(2);
    // Joined (-J): a row the terminal wrapped would read back wider than the screen.
    for (const row of rows) expect(Bun.stringWidth(row)).toBeLessThan(COLS);
    for (const row of rows.slice(1)) expect(row).toMatch(/^ {2}\S/);
    const typed = message.slice(0, message.length - 60) + "INSERTED " + message.slice(message.length - 60);
    // Read back with the rows joined at their breaks (tmux drops a row's trailing space).
    expect(rows.map((r) => r.replace(/^(› | {2})/, "")).join(" ").replace(/ +/g, " ")).toBe(typed.replace(/ +/g, " "));
    await press(tmux, "Enter");
    await waitForCount(tmux, "Got it.", 1);
    expect(JSON.stringify(e2e.fake.requests[0]!.body.messages.at(-1))).toContain(typed);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });
});

describe.skipIf(!tmuxAvailable)("leaving on a narrow terminal", () => {
  test("the command to continue the session is on a row of its own, its id whole (N12-03: 'bunker -r wvs0ygp' / 'jxv')", async () => {
    e2e.serve([reply("Hello.")]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "hi"], { cwd: root, env, cols: COLS, rows: 30 });
    await waitForCount(tmux, "Hello.", 1);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    const rows = tmux.screen().split("\n");
    const at = rows.findIndex((r) => r.startsWith("Session saved."));
    expect(rows[at]).toBe("Session saved. Continue it with:");
    // Joined (-J): the terminal's own wrap would show here as one row wider than the screen.
    expect(rows[at + 1]).toMatch(/^bunker -r [0-9a-z]{10}$/);
  });
});

describe.skipIf(!tmuxAvailable)("an answer with an address in it", () => {
  test("a URL wider than the screen is kept whole on a row of its own, shown once; the words around it wrap at the width (N11-17)", async () => {
    const url = "https://github.com/anthropics/claude-code/issues/12345#issuecomment-2345678901";
    e2e.serve([reply(`The fix is described in ${url} and in https://x.io/a which is short; read both before upgrading.`)]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "where is it"], { cwd: root, env, cols: COLS, rows: 40 });
    const screen = await waitForCount(tmux, "upgrading.", 1);
    const rows = rowsOf(screen, "The fix is described in", "upgrading.");
    // Joined (-J), the URL's row is the URL alone, whole: the terminal wrapped it, bunker did not break it.
    expect(rows.map((r) => r.trim())).toContain(url);
    expect(screen.split(url)).toHaveLength(2);
    for (const row of rows) if (!row.includes(url)) expect(Bun.stringWidth(row)).toBeLessThan(COLS);
    expect(rows.join(" ").replace(/\s+/g, " ")).toContain(`The fix is described in ${url} and in https://x.io/a which is short; read both before upgrading.`);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });
});

describe.skipIf(!tmuxAvailable)("bunker's own lines follow the terminal's width", () => {
  test("a refusal wraps between words at 60 columns, its rows under its text; after a resize to 100 the next one wraps at 100", async () => {
    const edit = (path: string) => toolUse("write_file", { path, content: "x\n" });
    e2e.serve([reply([edit("first-file.txt")]), reply("One."), reply([edit("second-file.txt")]), reply("Two.")]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "--no-prompt", "write one"], { cwd: root, env, cols: 60, rows: 40 });
    let screen = await waitForCount(tmux, "One.", 1);
    const first = rowsOf(screen, "✗ writing first-file.txt", "workspace)");
    expect(first.length).toBeGreaterThan(2);
    for (const row of first) expect(Bun.stringWidth(row)).toBeLessThan(60);
    for (const row of first.slice(1)) expect(row).toMatch(/^ {4}\S/);
    expect(first.map((r) => r.trim()).join(" ")).toBe("✗ writing first-file.txt needs approval, and bunker is not asking (no terminal or --no-prompt). To grant it, run bunker with --allow-write=first-file.txt (or --allow-write for the whole workspace)");

    tmux.resize(100, 40);
    await Bun.sleep(300);
    tmux.keys(["write two"], true);
    await press(tmux, "Enter");
    screen = await waitForCount(tmux, "Two.", 1);
    const second = rowsOf(screen, "✗ writing second-file.txt", "workspace)");
    expect(second.length).toBeLessThan(first.length);
    expect(Bun.stringWidth(second[0]!)).toBeGreaterThan(60);
    for (const row of second) expect(Bun.stringWidth(row)).toBeLessThan(100);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });
});

describe.skipIf(!tmuxAvailable)("a 40-column terminal", () => {
  test("at 40 columns the status line keeps the cost whole and matches /cost: less needed figures go first", async () => {
    e2e.serve([reply("Short answer.", "end_turn", { usage: { input_tokens: 12_345, output_tokens: 678 } })]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "hi"], { cwd: root, env, cols: 40, rows: 20 });
    await waitForCount(tmux, "Short answer.", 1);
    tmux.keys(["/cost"], true);
    await press(tmux, "Enter");
    const screen = await waitForCount(tmux, " tokens in (", 1);
    const cost = /(\$\d+\.\d{4})/.exec(screen.slice(screen.lastIndexOf("tokens in (")))![1]!;
    const status = tmux.visible().trim().split("\n").at(-1)!;
    expect(Bun.stringWidth(status)).toBeLessThan(40);
    expect(status).toMatch(/^context \d+% · /);
    expect(status.endsWith(` · ${cost}`)).toBe(true);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("at 40 columns a todo item and a code line go on under their own text (the new user's F12), in the turn and in /todos", async () => {
    const todos = [
      { id: "1", text: "Look at the layout of the project and its files", status: "in_progress" },
      { id: "2", text: "Write the parser with its tests", status: "pending" },
    ];
    const answer = "Done:\n\n```python\ndef f(x):\n    return x * 2  # a comment that is long enough to overflow a narrow screen\n```\n";
    e2e.serve([reply([toolUse("todo", { items: todos })]), reply(answer)]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal(BUNKER, { cwd: root, env, cols: 40, rows: 40 });
    await waitForCount(tmux, "Ctrl+D to leave", 1);
    tmux.keys(["plan"], true);
    await press(tmux, "Enter");
    await waitForCount(tmux, "└─", 1);
    tmux.keys(["/todos"], true);
    await press(tmux, "Enter");
    await waitForCount(tmux, "(0/2 completed)", 2);
    const rows = tmux.screen().split("\n").map((r) => r.trimEnd());
    // The item's further rows start under its text, after "[>] #1 ", in the tool's list and in /todos.
    expect(rows).toContain("    [>] #1 Look at the layout of the");
    expect(rows).toContain("           project and its files");
    expect(rows).toContain("[>] #1 Look at the layout of the");
    expect(rows).toContain("       project and its files");
    // The code line's further rows go on under its own indent after a ↪, not at the gutter.
    const code = rows.filter((r) => r.startsWith("│"));
    expect(code[0]).toBe("│ def f(x):");
    expect(code[1]).toStartWith("│     return x * 2  # a comment");
    expect(code.slice(2).length).toBeGreaterThan(0);
    for (const r of code.slice(2)) expect(r).toStartWith("│     ↪ ");
    expect(code.map((r) => r.slice(2).replace(/^ *↪ /, "")).join(" ").replace(/ +/g, " ")).toBe("def f(x): return x * 2 # a comment that is long enough to overflow a narrow screen");
  });
});

describe.skipIf(!tmuxAvailable)("-c on a 40-column terminal", () => {
  test("the banner and 'Continuing session … (N prompts).' break between words (the new user saw 'messag' / 'es')", async () => {
    e2e.serve([reply("First answer."), reply("Second answer."), reply("Third answer.")]);
    const { root, env } = e2e.workspace();
    let tmux = await e2e.terminal([...BUNKER, "one"], { cwd: root, env, cols: 40, rows: 24 });
    await waitForCount(tmux, "First answer.", 1);
    tmux.keys(["two"], true);
    await press(tmux, "Enter");
    await waitForCount(tmux, "Second answer.", 1);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    tmux.close();
    tmux = await e2e.terminal([...BUNKER, "-c"], { cwd: root, env, cols: 40, rows: 24 });
    const screen = await waitForCount(tmux, "prompts).", 1);
    const rows = rowsOf(screen, "Continuing session", "prompts).");
    for (const row of rows) expect(Bun.stringWidth(row)).toBeLessThan(40);
    expect(rows.join(" ").replace(/\s+/g, " ")).toMatch(/^Continuing session [0-9a-z]{10} \(2 prompts\)\.$/);
    for (const row of rowsOf(screen, "bunker ·", "Ctrl+D to leave")) expect(Bun.stringWidth(row)).toBeLessThan(40);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });
});

describe.skipIf(!tmuxAvailable)("the coloured diff at 40 and 120 columns", () => {
  const before = "def mean(xs):\n    # BUG: integer division, and crashes on []\n    return sum(xs) // len(xs)\n";
  const after = "def mean(xs):\n    if not xs:\n        return 0.0\n    return sum(xs) / len(xs)\n";
  for (const cols of [40, 120]) {
    test(`at ${cols} columns the words marked are the real change (// to /), not the words of lines paired by position`, async () => {
      e2e.serve([
        reply([toolUse("read_file", { path: "calc.py" })]),
        reply([toolUse("edit_file", { path: "calc.py", old_string: before.slice(14), new_string: after.slice(14) })]),
        reply("Fixed."),
      ]);
      const { root, env } = e2e.workspace({ "calc.py": before });
      const tmux = await e2e.terminal([...BUNKER, "fix mean"], { cwd: root, env, cols, rows: 50 });
      await waitForCount(tmux, "1. Yes, this once", 1);
      const screen = tmux.screenWithColours();
      // Reverse video around `//` on the removed line and `/` on the added one; none on `return 0.0`.
      const marked = [...screen.matchAll(/\x1b\[(?:[0-9;]*;)?7m([^\x1b]*)/g)].map((m) => m[1]);
      expect(marked).toEqual(["//", "/"]);
      expect(tmux.screen()).toContain("+        return 0.0");
      await press(tmux, "Escape");
      expect(await quitWithCtrlD(tmux)).not.toBeNull();
    });
  }
});

describe.skipIf(!tmuxAvailable)("the approval box at 40, 60 and 120 columns", () => {
  const before = Array.from({ length: 40 }, (_, i) => `const value${i} = compute(${i}, "some argument text");`).join("\n") + "\n";
  const after = before.replace(/compute\(/g, "computeFaster(");
  for (const [cols, rows] of [[40, 24], [40, 40], [60, 30], [120, 30]] as const) {
    test(`${cols}×${rows}: a straight border, diff rows cut around the change, the file named, and every option on screen`, async () => {
      e2e.serve([reply([toolUse("read_file", { path: "src/app.ts" })]), reply([toolUse("write_file", { path: "src/app.ts", content: after })]), reply("Done.")]);
      const { root, env } = e2e.workspace({ "src/app.ts": before });
      const tmux = await e2e.terminal([...BUNKER, "speed it up"], { cwd: root, env, cols, rows });
      await waitForCount(tmux, "Enter: confirm", 1);
      await Bun.sleep(200);
      // What is on screen now, row by row as the terminal shows them (not joined).
      const screen = tmux.command(["capture-pane", "-p", "-t", tmux.name]).split("\n");
      const box = screen.slice(screen.findIndex((r) => r.startsWith("◇  write_file wants to edit src/app.ts")), screen.findIndex((r) => r.startsWith("└")) + 1);
      expect(box.length).toBeGreaterThan(10);
      // No border broken by a row that ran past the edge: every row starts with the box's own marks.
      for (const row of box) {
        expect(row).toMatch(/^[│◇◆└]/);
        expect(Bun.stringWidth(row.trimEnd())).toBeLessThan(cols);
      }
      const text = box.join("\n");
      expect(text).toContain("src/app.ts  +40 -40");
      // The change is on screen in the lines shown: the new call, and the old one.
      expect(text).toContain("-const value0 = compute(0,");
      expect(text).toContain("+const value0 = computeFaster(0,");
      // Every option, by its number, with the question above them: none pushed off the top.
      expect(text).toContain("◆  Apply this change to src/app.ts?");
      for (const n of [1, 2, 3, 4, 5]) expect(text).toMatch(new RegExp(`[●○] ${n}\\. `));
      // A wrapped option goes on under its own words.
      if (cols === 40) expect(text).toContain("│  ○ 2. Yes, and allow all edits to\n│       this file for this session");
      await press(tmux, "1");
      await waitForCount(tmux, "Done.", 1);
      expect(await quitWithCtrlD(tmux)).not.toBeNull();
    });
  }
});

describe.skipIf(!tmuxAvailable)("a command's question at 40 columns", () => {
  test("the command goes on under its own text, every row behind the border, and both options on screen", async () => {
    const command = "npm install --save-dev typescript@5 && npx tsc --init --strict --target es2022";
    e2e.serve([reply([toolUse("run_bash", { command })]), reply("Done.")]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "set up"], { cwd: root, env, cols: 40, rows: 40 });
    await waitForCount(tmux, "Enter: confirm", 1);
    await Bun.sleep(200);
    const screen = tmux.command(["capture-pane", "-p", "-t", tmux.name]).split("\n");
    const box = screen.slice(screen.findIndex((r) => r.startsWith("◇  run_bash wants to run a command")), screen.findIndex((r) => r.startsWith("└")) + 1);
    for (const row of box) {
      expect(row).toMatch(/^[│◇◆└]/);
      expect(Bun.stringWidth(row.trimEnd())).toBeLessThan(40);
    }
    const start = box.findIndex((r) => r.startsWith("│  $ npm install"));
    const end = box.findIndex((r) => r.includes("es2022"));
    expect(start).toBeGreaterThan(0);
    // Each further row of the command starts under "npm", two columns in from the "$".
    for (const row of box.slice(start + 1, end + 1)) expect(row).toMatch(/^│ {4}\S/);
    expect(box.slice(start, end + 1).map((r) => r.replace(/^│\s+(\$ )?/, "")).join(" ")).toBe(command);
    expect(box.join("\n")).toContain("● 1. Yes, this once");
    expect(box.join("\n")).toMatch(/○ 2\. No, and tell Claude/);
    await press(tmux, "Escape");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });
});
