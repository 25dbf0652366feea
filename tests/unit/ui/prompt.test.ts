// The REPL's prompt fed by the one keyboard reader: keys typed during a turn are kept,
// Escape interrupts, an Enter followed at once by more input is a newline.
import { expect, test } from "bun:test";
import { Keyboard } from "../../../src/ui/keys.ts";
import { LiveRegion } from "../../../src/ui/live-region.ts";
import { TtyPrompt } from "../../../src/ui/prompt.ts";
import { holdKeys, takeHeldKeys } from "../../../src/ui/typeahead.ts";
import { recordingTerminal } from "../../support/model-terminal.ts";

function setUp() {
  let listener: (c: Buffer | string) => void = () => {};
  const input = { isTTY: true, setRawMode: () => {}, on: (_e: "data", l: typeof listener) => void (listener = l), off: () => {}, resume: () => {}, pause: () => {} };
  const screen = recordingTerminal(80);
  const region = new LiveRegion(screen, ["preview", "input", "status"]);
  const prompt = new TtyPrompt(new Keyboard(input, { write: () => true }, 5), region, { pasteWindowMs: 20 });
  // Every screen shown so far: what the person saw at some point.
  return { input, prompt, type: (s: string) => listener(Buffer.from(s)), shown: screen.seen };
}

test("keys typed during a turn, around an Escape, are the next message; the Escape interrupts", async () => {
  const { prompt, type } = setUp();
  let interrupted = 0;
  prompt.beginTurn(() => interrupted++);
  type("abc\x1bdef");
  expect(interrupted).toBe(1);
  prompt.endTurn();
  const next = prompt.read();
  type("\r");
  expect(await next).toEqual({ line: "abcdef", interrupted: false });
});

test("Enter during a turn sends the message as soon as the turn ends", async () => {
  const { prompt, type, shown } = setUp();
  prompt.beginTurn(() => {});
  type("next one\r");
  await Bun.sleep(40);
  expect(shown()).toContain("(sent when this turn ends)");
  prompt.endTurn();
  expect(await prompt.read()).toEqual({ line: "next one", interrupted: false });
});

test("a paste the terminal did not bracket is one message; Ctrl+C and Ctrl+D at the prompt", async () => {
  const { prompt, type, shown } = setUp();
  let r = prompt.read();
  type("line one\rline two\r");
  expect(await r).toEqual({ line: "line one\nline two", interrupted: false });
  r = prompt.read();
  // Ctrl+C with text clears the line and keeps reading: the text stays on screen and Up brings it back.
  type("half written\x03");
  await Bun.sleep(30);
  expect(shown()).toContain("› half written  ^C (cleared; ↑ brings it back)");
  type("\x1b[A\r");
  expect(await r).toEqual({ line: "half written", interrupted: false });
  // At an empty prompt Ctrl+C is the REPL's to count (twice leaves).
  r = prompt.read();
  type("\x03");
  expect(await r).toEqual({ line: "", interrupted: true });
  r = prompt.read();
  type("\x04");
  expect(await r).toEqual({ line: null, interrupted: false });
});

test("Alt+Enter, Shift+Enter (kitty, xterm) and a backslash before Enter start a new line; Enter alone sends, as CR or as LF", async () => {
  const { prompt, type } = setUp();
  const r = prompt.read();
  type("one\x1b\rtwo");
  await Bun.sleep(30);
  type("\x1b\nthree");
  await Bun.sleep(30);
  type("\x1b[13;2ufour\x1b[27;2;13~five\\");
  await Bun.sleep(30);
  type("\r");
  await Bun.sleep(30);
  type("six\r");
  expect(await r).toEqual({ line: "one\ntwo\nthree\nfour\nfive\nsix", interrupted: false });
  // Typed before raw mode: the terminal turned Enter into LF.
  const typedAhead = prompt.read();
  type("/mcp\n");
  expect(await typedAhead).toEqual({ line: "/mcp", interrupted: false });
});

test("an Enter alone during a turn sends nothing: no empty message", async () => {
  const { prompt, type } = setUp();
  prompt.beginTurn(() => {});
  type("\r");
  await Bun.sleep(40);
  prompt.endTurn();
  const next = prompt.read();
  type("real one\r");
  // The first message read is the one typed after the turn: no empty one before it.
  expect(await next).toEqual({ line: "real one", interrupted: false });
});

test("keys typed ahead for an approval that never came: what is typed meanwhile waits behind them, Escape still interrupts, and the turn's end puts them all in the input line unsent", async () => {
  const { input, prompt, type, shown } = setUp();
  let interrupted = 0;
  prompt.beginTurn(() => interrupted++);
  // Left by an approval's read: "ok" and an Enter, typed ahead for a next question.
  holdKeys(input, ["o", "k", "\r"]);
  type("go\x1b");
  await Bun.sleep(20);
  expect(interrupted).toBe(1);
  // Still held, in order, for a question that may come.
  expect(takeHeldKeys(input)).toEqual(["o", "k", "\r", "g", "o"]);
  holdKeys(input, ["o", "k", "\r", "g", "o", "\r"]);
  prompt.endTurn();
  await Bun.sleep(40);
  expect(shown()).toMatch(/› ok\r?\n  go/);
  expect(shown()).not.toContain("(sent when this turn ends)");
  const next = prompt.read();
  type("!\r");
  expect(await next).toEqual({ line: "ok\ngo!", interrupted: false });
});

test("Tab completes a command or a path; the commands that match are listed under the line as they are typed", async () => {
  let listener: (c: Buffer | string) => void = () => {};
  const input = { isTTY: true, setRawMode: () => {}, on: (_e: "data", l: typeof listener) => void (listener = l), off: () => {}, resume: () => {}, pause: () => {} };
  let shown = "";
  const region = new LiveRegion({ write: (s: string) => (shown += s), columns: 80, rows: 24 }, ["preview", "input", "status"]);
  const complete = {
    commands: () => [{ name: "/cost", help: "tokens used and cost so far" }, { name: "/compact", help: "shorten old tool output" }, { name: "/help", help: "this list" }],
    list: (dir: string) => (dir === "" ? [{ name: "calc.js", dir: false }, { name: "calc.test.js", dir: false }, { name: "odd\x1bname", dir: false }] : null),
  };
  const prompt = new TtyPrompt(new Keyboard(input, { write: () => true }, 5), region, { pasteWindowMs: 20, complete });
  const type = (s: string) => listener(Buffer.from(s));
  const screen = () => Bun.stripANSI(shown);
  let r = prompt.read();
  type("/co");
  await Bun.sleep(20);
  expect(screen()).toContain("  /compact  shorten old tool output");
  expect(screen()).toContain("  /cost     tokens used and cost so far");
  expect(screen()).not.toContain("this list");
  type("s\t\r");
  expect(await r).toEqual({ line: "/cost ", interrupted: false });
  r = prompt.read();
  shown = "";
  type("fix @ca\t");
  await Bun.sleep(20);
  // Two files share "calc.": completed that far, both listed by name.
  expect(screen()).toContain("› fix @calc.");
  expect(screen()).toContain("  calc.js  calc.test.js");
  type("j\t\r");
  expect(await r).toEqual({ line: "fix @calc.js ", interrupted: false });
  // A name with a control character is listed escaped.
  r = prompt.read();
  shown = "";
  type("@\t");
  await Bun.sleep(20);
  expect(shown).not.toContain("odd\x1bname");
  expect(screen()).toContain("odd\\x1bname");
  type("\x15\r");
  await r;
  prompt.close();
});

test("a command's help too long for the row ends in '…' where it is cut; Tab's names fill rows under their indent, none cut at the edge (N12-06)", async () => {
  let listener: (c: Buffer | string) => void = () => {};
  const input = { isTTY: true, setRawMode: () => {}, on: (_e: "data", l: typeof listener) => void (listener = l), off: () => {}, resume: () => {}, pause: () => {} };
  const screen = recordingTerminal(50);
  const region = new LiveRegion(screen, ["preview", "input", "status"]);
  const names = ["big.png", "calc.js", "calc.test.js", "fake.png", "long.js", "package.json", "shot.png", "src"];
  const complete = {
    commands: () => [{ name: "/undo", help: "take back the file changes of the last turn (shows the diff; asks unless told)" }],
    list: (dir: string) => (dir === "" ? names.map((name) => ({ name, dir: name === "src" })) : null),
  };
  const prompt = new TtyPrompt(new Keyboard(input, { write: () => true }, 5), region, { pasteWindowMs: 20, complete });
  const type = (s: string) => listener(Buffer.from(s));
  const r = prompt.read();
  type("/und");
  await Bun.sleep(20);
  const hint = screen.text().split("\n").find((row) => row.startsWith("  /undo"))!;
  expect(hint).toStartWith("  /undo  take back the file changes of the last");
  expect(hint).toEndWith("…");
  expect(Bun.stringWidth(hint)).toBe(49);
  type("\x15@\t");
  await Bun.sleep(20);
  const rows = screen.text().split("\n").slice(1);
  expect(rows.join(" ")).not.toContain("…");
  expect(rows.join(" ").split(/\s+/).filter(Boolean)).toEqual(names.map((n) => (n === "src" ? "src/" : n)));
  for (const row of rows) expect(row).toMatch(/^  \S/);
  type("\x15\x04");
  await r;
  prompt.close();
});

test("Ctrl+R searches the history back from the newest: typing narrows, Ctrl+R again finds the one before, Enter keeps it in the line unsent, Escape puts back the line (N12-26)", async () => {
  let listener: (c: Buffer | string) => void = () => {};
  const input = { isTTY: true, setRawMode: () => {}, on: (_e: "data", l: typeof listener) => void (listener = l), off: () => {}, resume: () => {}, pause: () => {} };
  const screen = recordingTerminal(80);
  const region = new LiveRegion(screen, ["preview", "input", "status"]);
  const history = ["run the tests", "fix calc.js", "explain the tests", "fix calc.js"];
  const prompt = new TtyPrompt(new Keyboard(input, { write: () => true }, 5), region, { pasteWindowMs: 20, history });
  const type = async (s: string) => {
    listener(Buffer.from(s));
    await Bun.sleep(15);
  };
  let r = prompt.read();
  await type("draft");
  await type("\x12");
  expect(screen.text()).toContain("search history:   (Ctrl+R older · Enter keeps it · Esc cancels)");
  await type("tests");
  expect(screen.text()).toContain("› run the tests\n  search history: tests");
  await type("\x12");
  expect(screen.text()).toContain("› explain the tests");
  // No older one: the match stays.
  await type("\x12");
  expect(screen.text()).toContain("› explain the tests");
  await type("zz");
  expect(screen.text()).toContain("› explain the tests\n  no earlier message has: testszz");
  // Escape: the line as it was before the search.
  await type("\x1b");
  await Bun.sleep(60);
  expect(screen.text()).toContain("› draft");
  expect(screen.text()).not.toContain("search history");
  await type("\x15\x12CALC\r");
  // Enter keeps the match in the line: nothing is sent yet; a second Enter sends it.
  await Bun.sleep(40);
  expect(screen.text()).toContain("› fix calc.js");
  expect(screen.text()).not.toContain("search history");
  await type(" now\r");
  expect(await r).toEqual({ line: "fix calc.js now", interrupted: false });
  r = prompt.read();
  await type("\x04");
  await r;
  prompt.close();
});
