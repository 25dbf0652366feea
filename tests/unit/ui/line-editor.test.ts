// Editing the REPL's input line with keys.
import { expect, test } from "bun:test";
import type { Key, KeyName } from "../../../src/ui/keys.ts";
import { LineEditor } from "../../../src/ui/line-editor.ts";

const k = (name: KeyName, text?: string): Key => (text === undefined ? { name } : { name, text });
const type = (e: LineEditor, ...keys: (Key | string)[]) => keys.forEach((key) => e.edit(typeof key === "string" ? k("text", key) : key));

test("insert, move, delete by character and word, kill to either end", () => {
  const e = new LineEditor();
  type(e, "hello world", k("word-left"), k("ctrl-k"));
  expect(e.text).toBe("hello ");
  type(e, k("home"), "say ", k("end"), "there", k("backspace"));
  expect(e.text).toBe("say hello ther");
  type(e, k("ctrl-w"));
  expect(e.text).toBe("say hello ");
  type(e, k("left"), k("ctrl-u"));
  expect([e.text, e.cursor]).toEqual([" ", 0]);
});

test("Alt+D deletes from the cursor to the end of the word (the spaces before it too), as readline's", () => {
  const e = new LineEditor();
  type(e, "one two three", k("home"), k("kill-word"));
  expect([e.text, e.cursor]).toEqual([" two three", 0]);
  type(e, k("kill-word"));
  expect([e.text, e.cursor]).toEqual([" three", 0]);
  type(e, k("end"), k("kill-word"));
  expect(e.text).toBe(" three");
});

test("Up and Down walk the history and come back to what was being written", () => {
  const history = ["second", "first"];
  const e = new LineEditor(history);
  type(e, "draft", k("up"));
  expect(e.text).toBe("second");
  type(e, k("up"), k("up"));
  expect(e.text).toBe("first");
  type(e, k("down"), k("down"));
  expect(e.text).toBe("draft");
  expect(e.take()).toBe("draft");
  expect(history).toEqual(["draft", "second", "first"]);
});

test("in a draft of several lines Up and Down move between its lines; the history only from its first or last line (new user 12's N12-21)", () => {
  const e = new LineEditor(["go"]);
  type(e, "first", k("text", "\n"), "second", k("up"), "X");
  expect(e.text).toBe("firstX\nsecond");
  type(e, k("down"), "Y");
  expect(e.text).toBe("firstX\nsecondY");
  // The same column, or the end of a shorter line.
  type(e, k("home"), k("right"), k("right"), k("up"), "Z");
  expect(e.text).toBe("fiZrstX\nsecondY");
  // From the first line, Up reaches the history; Down comes back to the draft.
  type(e, k("up"));
  expect(e.text).toBe("go");
  type(e, k("down"));
  expect(e.text).toBe("fiZrstX\nsecondY");
});

test("a multi-line message draws continuation lines under the prompt; the cursor counts display width", () => {
  const e = new LineEditor();
  type(e, k("paste", "one\nlé\x1b"));
  const { lines, cursor } = e.render("> ", 2);
  expect(lines).toEqual(["> one", "  lé\\x1b"]);
  expect(cursor).toEqual({ line: 1, col: 2 + 6 });
});

test("a long paste stands in the line as one placeholder and goes out whole; Backspace takes the placeholder as a whole", () => {
  const e = new LineEditor();
  const hundred = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  type(e, "see: ", k("paste", hundred), " and fix it");
  expect(e.text).toBe("see: [Pasted text #1 +100 lines] and fix it");
  expect(e.render("> ", 2).lines).toEqual(["> see: [Pasted text #1 +100 lines] and fix it"]);
  // One long line is counted in characters; short pastes stay as they are.
  type(e, k("paste", "x".repeat(1500)), k("paste", "two\nlines"));
  expect(e.text).toBe("see: [Pasted text #1 +100 lines] and fix it[Pasted text #2 1500 characters]two\nlines");
  type(e, ...Array.from({ length: 10 }, () => k("backspace")));
  expect(e.text).toBe("see: [Pasted text #1 +100 lines] and fix it");
  expect(e.take()).toBe(`see: ${hundred.slice(0, -1)} and fix it`);
  // Backspace right after a placeholder removes all of it, and its paste with it. Numbers go on across messages.
  type(e, k("paste", hundred), k("backspace"));
  expect([e.text, e.take()]).toEqual(["", ""]);
  // Up brings a sent message back as it stood, its paste a placeholder again (not 100 lines in the input line); sent again, it is whole.
  type(e, "draft ", k("paste", hundred), k("up"), k("up"));
  expect(e.text).toBe("see: [Pasted text #1 +100 lines] and fix it");
  expect(e.take()).toBe(`see: ${hundred.slice(0, -1)} and fix it`);
  // The line being written keeps its own paste while Up and Down walk past others.
  type(e, "mine ", k("paste", `${hundred}more\n`), k("up"), k("down"));
  expect(e.text).toBe("mine [Pasted text #5 +101 lines]");
  expect(e.take()).toBe(`mine ${hundred}more`);
});

test("a letter typed inside a placeholder goes after it: the placeholder stays whole and its paste is sent (the reviewer)", () => {
  const e = new LineEditor();
  const twenty = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
  type(e, k("paste", twenty), k("left"), k("left"), k("left"), "X");
  expect(e.text).toBe("[Pasted text #1 +20 lines]X");
  expect(e.take()).toBe(`${twenty}X`);
});

test("a draft that begins with an empty line: from its very start ↓ reaches line 2 and ↑ the history (reviewer's R13-10)", () => {
  const e = new LineEditor(["older message"]);
  type(e, k("text", "\n"), "second line", k("home"), k("left"));
  expect(e.cursor).toBe(0);
  type(e, k("down"));
  expect(e.cursor).toBe(1);
  type(e, k("up"));
  expect(e.cursor).toBe(0);
  type(e, k("up"));
  expect(e.text).toBe("older message");
});

test("given the width, a long line is drawn in rows broken between words under the prompt's indent; the cursor is on its row (N12-29)", () => {
  const e = new LineEditor();
  type(e, k("paste", "the quick brown fox jumps over the lazy dog and then keeps running"));
  // 30 columns: rows of at most 27 after the 2-column prompt, the last column left free.
  let r = e.render("> ", 2, 30);
  expect(r.lines).toEqual(["> the quick brown fox jumps ", "  over the lazy dog and then ", "  keeps running"]);
  expect(r.cursor).toEqual({ line: 2, col: 2 + "keeps running".length });
  for (const line of r.lines) expect(Bun.stringWidth(line)).toBeLessThan(30);
  // The cursor at the start of a row's first word is on that row; in the middle of one, where it is.
  e.cursor = e.text.indexOf("over");
  expect(e.render("> ", 2, 30).cursor).toEqual({ line: 1, col: 2 });
  e.cursor = e.text.indexOf("lazy") + 2;
  expect(e.render("> ", 2, 30).cursor).toEqual({ line: 1, col: 2 + "over the la".length });
  // A word wider than a row is cut where it fills it.
  const w = new LineEditor();
  type(w, k("paste", `see ${"x".repeat(40)} ok\nnext`));
  r = w.render("> ", 2, 30);
  expect(r.lines).toEqual(["> see ", `  ${"x".repeat(27)}`, `  ${"x".repeat(13)} ok`, "  next"]);
  expect(r.cursor).toEqual({ line: 3, col: 6 });
  // Without a width, as before: the terminal wraps.
  expect(e.render("> ", 2).lines).toEqual(["> the quick brown fox jumps over the lazy dog and then keeps running"]);
});
