// /rewind's list of turns (src/rewind-command.ts): what the person reads
// before choosing a turn to take back. The take-back itself runs end to end in
// tests/e2e/undo.test.ts.
import { expect, test } from "bun:test";
import { buildApp } from "../../src/app.ts";
import type { TurnSummary } from "../../src/change/checkpoints.ts";
import { parseConfig } from "../../src/config.ts";
import { listTurns, rewindCommand } from "../../src/rewind-command.ts";
import { TerminalUI } from "../../src/ui/terminal.ts";
import { tempDir } from "../support/context.ts";

const at = new Date(2026, 0, 5, 9, 7).getTime();
const turn = (number: number, files: string[], prompt: string): TurnSummary => ({ number, turn: number * 2, at, prompt, files, added: 3, removed: 1 });

test("each turn: its number, time, files, lines added and removed, and prompt; then how to use it", () => {
  const shown = Bun.stripANSI(listTurns([turn(1, ["a.ts"], "fix a"), turn(3, ["b.ts", "c.ts"], "and b")]));
  expect(shown).toBe(
    "Turns that changed files, oldest first; N is your Nth message in this conversation, so a number keeps its turn when others are taken back (changes made by commands are not tracked):\n" +
      '   1  09:07  a.ts  +3 -1  "fix a"\n' +
      '   3  09:07  b.ts, c.ts  +3 -1  "and b"\n' +
      '/rewind N takes the files back to before turn N; add "conversation" to drop those turns from the conversation too, "force" to take back files changed since (you are shown what that loses and asked).\n',
  );
});

test("more than three files: the first three and how many more", () => {
  expect(Bun.stripANSI(listTurns([turn(1, ["a", "b", "c", "d", "e"], "many")]))).toContain("  a, b, c (+2 more)  ");
});

test("a prompt or file name with control characters is shown escaped, not obeyed", () => {
  const shown = listTurns([turn(1, ["x\x1b[2J.ts"], "clear\x1b]52;c;aGk=\x07")]);
  expect(shown).not.toContain("\x1b[2J");
  expect(shown).not.toContain("\x07");
  expect(shown).not.toContain("\x1b]52");
});

test("/rewind with an argument that is not a turn number says so and what /rewind takes, even with nothing to take back", async () => {
  const { config } = parseConfig(["-C", tempDir()], { ANTHROPIC_API_KEY: "test", XDG_STATE_HOME: tempDir("bunker-state-") }, true);
  const app = await buildApp(config!, new TerminalUI({ streamText: false, verbose: false, spinner: false }));
  const said = async (line: string) => {
    let out = "";
    await rewindCommand(line, app, (s) => void (out += s));
    return Bun.stripANSI(out);
  };
  const usage = "Use /rewind to list the turns, then /rewind N [conversation] [force].\n";
  expect(await said("/rewind abc")).toBe(`abc is not a turn number. ${usage}`);
  expect(await said("/rewind 2x")).toBe(`2x is not a turn number. ${usage}`);
  expect(await said("/rewind 0")).toBe(`0 is not a turn number. ${usage}`);
  expect(await said("/rewind 1 2")).toBe(`1 2 is not a turn number. ${usage}`);
  expect(await said("/rewind \x1b[2J")).toBe(`\\x1b[2J is not a turn number. ${usage}`);
  expect(await said("/undo now")).toBe("Unknown option now. Use /undo or /undo force.\n");
  // A well-formed number with nothing recorded still says there is nothing to take back.
  expect(await said("/rewind 1 force")).toStartWith("Nothing to take back");
});
