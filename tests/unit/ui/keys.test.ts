// Bytes from a raw-mode terminal into keys: a lone Escape never swallows what follows it.
import { describe, expect, test } from "bun:test";
import { flushKeys, Keyboard, parseKeys, type Key } from "../../../src/ui/keys.ts";

describe("parseKeys", () => {
  test("abc, Escape, def typed in one burst is three keys, nothing lost", () => {
    expect(parseKeys("abc\x1bdef")).toEqual({ keys: [{ name: "text", text: "abc" }, { name: "escape" }, { name: "text", text: "def" }], rest: "" });
    expect(parseKeys("\x1b\x1bx").keys).toEqual([{ name: "escape" }, { name: "escape" }, { name: "text", text: "x" }]);
  });

  test("arrows, delete and home are keys; sequences the REPL does not use are swallowed whole", () => {
    expect(parseKeys("\x1b[A\x1bOB\x1b[3~\x1b[H\x1b[1;5D\x1b[15~z").keys.map((k) => k.name)).toEqual(["up", "down", "delete", "home", "word-left", "text"]);
  });

  test("an Escape or half a sequence at the end waits for the next chunk", () => {
    expect(parseKeys("ab\x1b")).toEqual({ keys: [{ name: "text", text: "ab" }], rest: "\x1b" });
    expect(parseKeys("\x1b[1;")).toEqual({ keys: [], rest: "\x1b[1;" });
    expect(flushKeys("\x1b")).toEqual([{ name: "escape" }]);
  });

  test("a bracketed paste is one key, its line ends newlines", () => {
    expect(parseKeys("\x1b[200~one\r\ntwo\rthree\x1b[201~!").keys).toEqual([{ name: "paste", text: "one\ntwo\nthree" }, { name: "text", text: "!" }]);
    expect(parseKeys("\x1b[200~half").rest).toBe("\x1b[200~half");
  });

  test("control keys", () => {
    expect(parseKeys("\r\x7f\x03\x04\x15\x17").keys.map((k) => k.name)).toEqual(["enter", "backspace", "ctrl-c", "ctrl-d", "ctrl-u", "ctrl-w"]);
  });
});

/** A Keyboard on a fake terminal (a 10 ms wait for a sequence's rest): `read` hands it one read's bytes. */
function startKeyboard(): { read: (chunk: Buffer) => void; keys: Key[] } {
  const listeners: ((c: Buffer | string) => void)[] = [];
  const input = { isTTY: true, setRawMode: () => {}, on: (_e: "data", l: (c: Buffer | string) => void) => listeners.push(l), off: () => {}, resume: () => {}, pause: () => {} };
  const kb = new Keyboard(input, { write: () => true }, 10);
  const keys: Key[] = [];
  kb.onKey = (k) => keys.push(k);
  kb.start();
  return { read: (chunk) => listeners[0]!(chunk), keys };
}

test("Keyboard: a lone Escape is reported after a short wait; its next chunk is not eaten; a split character is joined", async () => {
  const { read, keys } = startKeyboard();
  read(Buffer.from("x\x1b"));
  await Bun.sleep(30);
  read(Buffer.from("d"));
  const euro = Buffer.from("€");
  read(euro.subarray(0, 1));
  read(euro.subarray(1));
  expect(keys).toEqual([{ name: "text", text: "x" }, { name: "escape" }, { name: "text", text: "d" }, { name: "text", text: "€" }]);
});

test("Keyboard: Escape and b, f or d in one read alone are Alt+B, Alt+F, Alt+D; Escape, then the letter read apart, are Escape and the letter", async () => {
  const { read, keys } = startKeyboard();
  for (const alt of ["\x1bb", "\x1bf", "\x1bd", "\x1bb\x1bb"]) read(Buffer.from(alt));
  expect(keys.map((k) => k.name)).toEqual(["word-left", "word-right", "kill-word", "word-left", "word-left"]);
  keys.length = 0;
  // Typed apart, even within the wait for the rest of a sequence: the Escape, then the letter.
  read(Buffer.from("\x1b"));
  read(Buffer.from("b"));
  await Bun.sleep(30);
  read(Buffer.from("\x1b"));
  await Bun.sleep(30);
  read(Buffer.from("f"));
  // In a burst with other keys: Escape, then the letters.
  read(Buffer.from("x\x1bdy"));
  expect(keys).toEqual([
    { name: "escape" }, { name: "text", text: "b" }, { name: "escape" }, { name: "text", text: "f" },
    { name: "text", text: "x" }, { name: "escape" }, { name: "text", text: "dy" },
  ]);
});
