// Resizing the terminal (tmux resize-window) at idle, while an answer streams
// and while a command runs: afterwards the screen holds the transcript, one
// input row and one status line fitted to the new width, and nothing stale.
import { describe, expect, test } from "bun:test";
import { reply, toolUse, type Step } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, waitForCount, waitForQuestion } from "../support/cli.ts";
import { TmuxSession, tmuxAvailable } from "../support/tmux.ts";

const e2e = endToEnd("bunker-resize-");
const ROWS = 30;

async function startRepl(steps: Step[], cols: number, args: string[] = []): Promise<TmuxSession> {
  e2e.serve(steps);
  const ws = e2e.workspace();
  const t = await e2e.terminal([...BUNKER, ...args], { cwd: ws.root, env: ws.env, cols, rows: ROWS });
  await t.waitFor(/\n› *\n(?:claude-|context )/);
  return t;
}

/** The status line's own text (the banner also names the model, but not the context); fitted to a narrow screen, it drops the model first. */
const STATUS = /^(?:\S+ \S+ \d+\.\ds · (?:esc to interrupt · )?)?(?:claude-\S* · )?context /;
const statusRows = (screen: string) => screen.split("\n").filter((r) => STATUS.test(r));

/** The screen once the program has drawn for `cols`: its last row is the status line, as wide as the pane or less. */
async function settledAt(t: TmuxSession, cols: number, idle: boolean): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = t.visible().replace(/\n+$/, "").split("\n").map((r) => r.trimEnd());
    const last = rows.at(-1) ?? "";
    if (STATUS.test(last) && Bun.stringWidth(last) < cols && (!idle || !last.includes("esc to interrupt"))) return rows;
    if (Date.now() > deadline) throw new Error(`no status line for ${cols} columns:\n${t.visible()}`);
    await Bun.sleep(50);
  }
}

/** Every row of the screen and its scrollback that starts with the prompt marker. */
const promptRows = (screen: string) => screen.split("\n").filter((r) => r.startsWith("›")).map((r) => r.trimEnd());

const PARAGRAPH = "Resize test paragraph with quite a lot of words so it wraps several times across the screen.";
const ANSWER = Array.from({ length: 4 }, () => `${PARAGRAPH} ${PARAGRAPH} ${PARAGRAPH}`).join("\n\n");

describe.skipIf(!tmuxAvailable)("resizing the terminal (tmux)", () => {
  test("at idle, 100 → 50 columns: one status line that fits, one prompt row, also after the next key", async () => {
    const t = await startRepl([], 100);
    t.resize(50, ROWS);
    let rows = await settledAt(t, 50, true);
    expect(statusRows(t.screen())).toHaveLength(1);
    expect(rows.at(-2)).toBe("›");
    t.keys(["abc"], true);
    await t.waitFor("› abc");
    await Bun.sleep(200);
    rows = await settledAt(t, 50, true);
    expect(promptRows(t.screen())).toEqual(["› abc"]);
    expect(statusRows(t.screen())).toHaveLength(1);
    expect(rows.at(-2)).toBe("› abc");
  }, 30_000);

  test("at idle with a typed line longer than the screen, 100 → 40 → 100 columns: the line once, the cursor at its end", async () => {
    const t = await startRepl([], 100);
    // A transcript that fills the screen, as a session has: a shrink re-wraps rows upward into the
    // scrollback from the top of the screen, out of reach of any redraw, when there are fewer rows above
    // the region than it grows by.
    t.keys(["/help"], true);
    t.keys(["Enter"]);
    await t.waitFor(/\/help[^]*\/help[^]*\n› *\nclaude-/);
    const typed = Array.from({ length: 15 }, (_, i) => `word${i}`).join(" ") + " " + "z".repeat(60);
    t.keys([typed], true);
    await t.waitFor("z".repeat(60));
    for (const cols of [40, 100]) {
      t.resize(cols, ROWS);
      await settledAt(t, cols, true);
      await Bun.sleep(200);
      const rows = await settledAt(t, cols, true);
      const screen = t.screen();
      // The line once, drawn for the new width: its rows broken between words under the prompt (N12-29), each
      // narrower than the screen; read back whole, it is what was typed.
      expect(promptRows(screen)).toEqual(["› /help", expect.stringMatching(/^› word0 word1 /)]);
      expect(statusRows(screen)).toHaveLength(1);
      const input = rows.slice(rows.findIndex((r) => r.startsWith("› word0")), -1);
      for (const row of input) expect(Bun.stringWidth(row)).toBeLessThan(cols);
      for (const row of input.slice(1)) expect(row).toMatch(/^ {2}\S/);
      expect(input.join(" ").split(/\s+/).filter((w) => w.startsWith("word"))).toEqual(typed.split(" ").slice(0, 15));
      expect(input.join("").replace(/[› ]/g, "")).toBe(typed.replace(/ /g, ""));
    }
    // The cursor is where the text ends: what is typed next follows it.
    t.keys(["!"], true);
    await t.waitFor(/z!\n/);
  }, 30_000);

  test("at idle, 30 → 100 columns: the status line is drawn whole for the new width", async () => {
    const t = await startRepl([], 30);
    await settledAt(t, 30, true);
    // Fitted to 30 columns: the cached share, the model's name and tokens out left out, the cost whole.
    expect(statusRows(t.screen())[0]).toMatch(/^context – · 0 in · \$0\.0000$/);
    t.resize(100, ROWS);
    const deadline = Date.now() + 10_000;
    // Whole: the model's name is back (the fitted line already ended in the cost).
    while (!/\nclaude-\S* · context [^\n]*\$\d+\.\d{4}$/.test(t.visible().trimEnd())) {
      if (Date.now() > deadline) throw new Error(`status not redrawn whole:\n${t.visible()}`);
      await Bun.sleep(50);
    }
    expect(statusRows(t.screen())).toHaveLength(1);
    expect(statusRows(t.screen())[0]).toMatch(/^claude-\S* · context – · 0 in \(0% cached\) · 0 out · \$0\.0000$/);
    expect(promptRows(t.screen())).toEqual(["›"]);
  }, 30_000);

  test("while an answer streams, 100 → 40 columns: no stale status or half line stays in the transcript", async () => {
    const t = await startRepl([reply(ANSWER, "end_turn", { eventDelayMs: 40, chunkSize: 20 })], 100);
    t.keys(["go"], true);
    t.keys(["Enter"]);
    await t.waitFor("across the screen. Resize");
    await t.waitFor(/writing \d/);
    t.resize(40, ROWS);
    await Bun.sleep(300);
    t.resize(70, ROWS);
    await t.waitFor(/screen\.\n\n?[^]*› *\n/, 20_000, t.screen().lastIndexOf("› go") + 5);
    await settledAt(t, 70, true);
    const screen = t.screen();
    expect(screen).not.toContain("esc to interrupt");
    expect(statusRows(screen)).toHaveLength(1);
    expect(promptRows(screen)).toEqual(["› go", "›"]);
    // The answer, word for word, is all there is between the message and the prompt: also when a frame written
    // for the old width reaches tmux just after it re-wrapped (live-region.ts draws with autowrap off and
    // parks the cursor at the region's top, so such a frame ends where the next one starts).
    const between = screen.slice(screen.indexOf("› go") + 4, screen.lastIndexOf("\n›"));
    expect(between.split(/\s+/).filter(Boolean)).toEqual(ANSWER.split(/\s+/));
    // Retried. A frame that reaches tmux half read when it re-wraps no longer strands a half row ("… a lot o"): the
    // region draws so that a re-wrap between any two bytes of a frame leaves nothing above it (live-region.ts,
    // drawBottomUp; every cut point in tests/unit/ui/live-region.test.ts). What is left, 2 runs in 20 at load 25-31
    // (26 Nov): tmux keeps the blank rows under the region when it re-wraps and pushes what is above into its
    // scrollback, the region's first rows too when it grew by more rows than there were above it, and puts the
    // cursor at the screen's top: no cursor move reaches rows in the scrollback (a row of the answer twice).
  }, { timeout: 40_000, retry: 2 });

  test("while a tall answer streams at the top of the screen, 100 → 40 columns: each redraw replaces the last", async () => {
    const long = Array.from({ length: 12 }, () => PARAGRAPH).join(" ");
    const t = await startRepl([reply(long, "end_turn", { eventDelayMs: 60, chunkSize: 10 })], 100);
    t.keys(["go"], true);
    t.keys(["Enter"]);
    await t.waitFor(/writing \d/);
    await t.waitFor(/(wraps[^]*){4}/);
    // Re-wrapped for 40 columns, the region no longer fits below the rows above it: the terminal pushes its
    // top into the scrollback, and the region is redrawn from the screen's top left from then on.
    t.resize(40, ROWS);
    await t.waitFor(/screen\.\s*\n› *\n(?:claude-|context )/, 20_000);
    await settledAt(t, 40, true);
    const screen = t.screen();
    // No redraw leaves a copy behind (tmux copies a screen cleared from its top left into the scrollback).
    expect(screen).not.toContain("esc to interrupt");
    // The answer whole, once. Before it there can be only the first rows of the old frame, which the terminal
    // itself re-wrapped into its scrollback before bunker could know of the resize: no relative move reaches them.
    const words = screen.slice(screen.indexOf("› go") + 4, screen.lastIndexOf("\n›")).split(/\s+/).filter(Boolean);
    const wanted = long.split(/\s+/);
    expect(words.slice(-wanted.length)).toEqual(wanted);
    // tmux keeps the screen's last rows when it re-wraps, so the rows it pushed up can end inside a line: the last of
    // them may stop mid-word ("… a lot o").
    const stale = words.slice(0, -wanted.length);
    expect(stale.slice(0, -1)).toEqual(wanted.slice(0, stale.length - 1));
    if (stale.length > 0) expect(wanted[stale.length - 1]!.startsWith(stale.at(-1)!)).toBe(true);
  }, 40_000);

  test("an approval question open, 100 → 50 → 120 columns: it and what it is about are drawn again for each width, once, and still answer (N11-15)", async () => {
    const command = "touch some-file-with-a-long-name.txt && echo made it";
    e2e.serve([reply([toolUse("run_bash", { command })]), reply("Ran it.")]);
    const ws = e2e.workspace();
    const t = await e2e.terminal([...BUNKER, "go"], { cwd: ws.root, env: ws.env, cols: 100, rows: ROWS });
    await waitForQuestion(t, "Run this command?", 1);
    const count = (text: string, what: string) => text.split(what).length - 1;
    t.resize(50, ROWS);
    // Wrapped by bunker inside the box (the terminal's own re-wrap cut "unles" / "s granted" and lost the gutter).
    let shown = await t.waitFor(/│  unless granted\n/);
    shown = t.visible();
    for (const row of shown.split("\n")) expect(Bun.stringWidth(row)).toBeLessThan(50);
    expect(count(shown, "◇  run_bash wants to run a command")).toBe(1);
    expect(count(shown, "Run this command?")).toBe(1);
    expect(shown).toContain("│  ○ 2. Yes, and don't ask again for `touch`\n│       commands this session\n");
    t.resize(120, ROWS);
    await t.waitFor(/│  sandboxed: yes {3}network: each host asked unless granted\n/);
    shown = t.visible();
    expect(count(shown, "◇  run_bash wants to run a command")).toBe(1);
    expect(count(shown, "Run this command?")).toBe(1);
    expect(shown).toContain("│  ○ 2. Yes, and don't ask again for `touch` commands this session\n");
    t.keys(["y"]);
    const screen = await waitForCount(t, "Ran it.", 1);
    expect(screen).toContain("made it");
  }, 40_000);

  /** A command printing 25 rows of `row`, the window narrowed from 100 to 40 columns while it runs, the screen once settled. */
  async function resizedDuringCommand(row: string) {
    const command = `for i in $(seq 1 25); do echo output row $i${row}; sleep 0.1; done`;
    const t = await startRepl([reply([toolUse("run_bash", { command })]), reply("Ran it.")], 100, ["--allow-run"]);
    t.keys(["go"], true);
    t.keys(["Enter"]);
    await t.waitFor("output row 8");
    t.resize(40, ROWS);
    await t.waitFor("Ran it.", 20_000);
    await settledAt(t, 40, true);
    return t;
  }

  test("while a command runs, 100 → 40 columns: no stale output rows or status lines", async () => {
    const t = await resizedDuringCommand("");
    const screen = t.screen();
    expect(screen).not.toContain("esc to interrupt");
    expect(statusRows(screen)).toHaveLength(1);
    expect(promptRows(screen)).toEqual(["› go", "›"]);
    // The result shows its last lines once; the rows drawn while it ran are gone.
    const shown = [...screen.matchAll(/output row (\d+)/g)].map((m) => Number(m[1]));
    expect(new Set(shown).size).toBe(shown.length);
    expect(shown.filter((n) => n <= 20)).toEqual([]);
  }, 40_000);

  test("while a command with rows wider than the new width runs, 100 → 40 columns: the screen keeps no stale output row", async () => {
    // A new user's F25: rows the terminal re-wraps into more rows than were drawn.
    const t = await resizedDuringCommand(" with some extra words to make it long enough to wrap at narrow widths");
    const visible = t.visible();
    expect(statusRows(t.screen())).toHaveLength(1);
    // On the screen: the result's last lines once, none of the rows drawn while it ran.
    const shown = [...visible.matchAll(/output row (\d+)/g)].map((m) => Number(m[1]));
    expect(shown).toEqual([23, 24, 25]);
    // tmux keeps the blank rows under the region when it re-wraps and pushes what is above into its scrollback,
    // the region's first rows too when it grew by more rows than there were above it: no cursor move reaches
    // them there. Only those (the live view's first rows, whole, in order) may be left in the scrollback.
    const all = [...t.screen().matchAll(/output row (\d+)/g)].map((m) => Number(m[1]));
    const stale = all.slice(0, -3);
    expect(all.slice(-3)).toEqual([23, 24, 25]);
    expect(stale).toEqual(stale.map((_, i) => stale[0]! + i));
  }, 40_000);
});
