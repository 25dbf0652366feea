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

test("a multi-line message draws continuation lines under the prompt; the cursor counts display width", () => {
  const e = new LineEditor();
  type(e, k("paste", "one\nlé\x1b"));
  const { lines, cursor } = e.render("> ", 2);
  expect(lines).toEqual(["> one", "  lé\\x1b"]);
  expect(cursor).toEqual({ line: 1, col: 2 + 6 });
});
