// The REPL's prompt fed by the one keyboard reader: keys typed during a turn are kept,
// Escape interrupts, an Enter followed at once by more input is a newline.
import { expect, test } from "bun:test";
import { Keyboard } from "../../../src/ui/keys.ts";
import { LiveRegion } from "../../../src/ui/live-region.ts";
import { TtyPrompt } from "../../../src/ui/prompt.ts";

function setUp() {
  let listener: (c: Buffer | string) => void = () => {};
  const input = { isTTY: true, setRawMode: () => {}, on: (_e: "data", l: typeof listener) => void (listener = l), off: () => {}, resume: () => {}, pause: () => {} };
  let shown = "";
  const region = new LiveRegion({ write: (s: string) => (shown += s), columns: 80, rows: 24 }, ["preview", "input", "status"]);
  const prompt = new TtyPrompt(new Keyboard(input, { write: () => true }, 5), region, { pasteWindowMs: 20 });
  return { prompt, type: (s: string) => listener(Buffer.from(s)), shown: () => Bun.stripANSI(shown) };
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
