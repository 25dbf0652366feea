// A file's text as lines with each line's own ending, so a patch changes only
// the lines it names: CRLF stays CRLF, a missing final newline stays missing,
// a byte-order mark survives.
import { describe, expect, test } from "bun:test";
import { dominantEol, hasFinalNewline, joinText, splitText } from "../../../src/patch/text.ts";

describe("splitText and joinText", () => {
  const TABLE = ["", "a\n", "a", "a\r\nb\nc", "\uFEFFbom\r\n", "\n\n", "x\r\n\r\ny\n", "\uFEFF"];
  for (const text of TABLE) {
    test(`${JSON.stringify(text)} round-trips byte for byte`, () => expect(joinText(splitText(text))).toBe(text));
  }

  test("each line keeps its own ending; the last has none without a final newline", () => {
    expect(splitText("\uFEFFa\r\nb\nc")).toEqual({ lines: ["a", "b", "c"], eols: ["\r\n", "\n", ""], bom: true });
    expect(splitText("")).toEqual({ lines: [], eols: [], bom: false });
  });
});

describe("dominantEol and hasFinalNewline", () => {
  test("the ending most lines use, or undefined with none", () => {
    expect(dominantEol(splitText("a\r\nb\r\nc\n"))).toBe("\r\n");
    expect(dominantEol(splitText("a\nb\r\n"))).toBe("\n");
    expect(dominantEol(splitText("one line"))).toBeUndefined();
  });

  test("an empty file counts as ending in a newline; a last line without one does not", () => {
    expect(hasFinalNewline(splitText(""))).toBe(true);
    expect(hasFinalNewline(splitText("a\n"))).toBe(true);
    expect(hasFinalNewline(splitText("a\nb"))).toBe(false);
  });
});
