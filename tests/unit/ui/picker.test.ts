// Choosing from a list with the arrow keys.
import { expect, test } from "bun:test";
import { Keyboard } from "../../../src/ui/keys.ts";
import { pick } from "../../../src/ui/picker.ts";
import { recordingTerminal } from "../../support/model-terminal.ts";

function setUp() {
  let listener: (c: Buffer | string) => void = () => {};
  const input = { isTTY: true, setRawMode: () => {}, on: (_e: "data", l: typeof listener) => void (listener = l), off: () => {}, resume: () => {}, pause: () => {} };
  const output = recordingTerminal(80);
  // Every screen shown so far: what the person saw at some point.
  return { keyboard: new Keyboard(input, output, 5), output, type: (s: string) => listener(Buffer.from(s)), shown: output.seen, screen: output.text };
}

test("arrows move, Enter picks, and the choice is left on screen", async () => {
  const { keyboard, output, type, shown, screen } = setUp();
  const picked = pick("Which?", ["one", "two\x1b[2J", "three"], { keyboard, output });
  type("\x1b[B\x1b[B\x1b[B\x1b[A");
  expect(shown()).toContain("› two\\x1b[2J");
  type("\r");
  expect(await picked).toBe(1);
  expect(screen()).toBe("Which? two\\x1b[2J");
});

test("Escape or q picks nothing, Ctrl+C too, and each says which; nothing is left on screen for the caller to explain", async () => {
  for (const [key, how] of [["\x1b", "escape"], ["q", "escape"], ["\x03", "ctrl-c"]] as const) {
    const { keyboard, output, type, shown, screen } = setUp();
    const picked = pick("Which?", ["one"], { keyboard, output });
    type(key);
    expect(await picked).toBe(how);
    // The list is drawn, then cleared: its last lines hold neither the list nor a stray title.
    expect(shown()).toContain("› one");
    expect(screen()).toBe("");
  }
});
