// The REPL's input line through a stream: lines that arrive together are one
// message, typed lines are separate, end of input is null, and single-line
// messages go into the Up-arrow history.
import { expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { LineReader } from "../../../src/ui/line-reader.ts";

function reader(pasteWindowMs = 30) {
  const input = new PassThrough();
  const output = new PassThrough();
  output.resume();
  return { input, r: new LineReader({ input, output, pasteWindowMs }) };
}

test("a paste of several lines arriving together is one message, every line kept", async () => {
  const { input, r } = reader();
  const got = r.read("› ");
  input.write("first line\nsecond line\n  third, indented\n");
  expect(await got).toEqual({ line: "first line\nsecond line\n  third, indented", interrupted: false });
  expect(r.history).toEqual([]);
});

test("lines typed apart are separate messages, and each goes into the history newest first", async () => {
  const { input, r } = reader(20);
  const one = r.read("› ");
  input.write("one\n");
  expect((await one).line).toBe("one");
  const two = r.read("› ");
  input.write("two\n");
  expect((await two).line).toBe("two");
  expect(r.history).toEqual(["two", "one"]);
});

test("end of input gives what was entered, then null from then on", async () => {
  const { input, r } = reader();
  const first = r.read("› ");
  input.end();
  expect(await first).toEqual({ line: null, interrupted: false });
  expect(await r.read("› ")).toEqual({ line: null, interrupted: false });
});
