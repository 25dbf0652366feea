// utf8Text and utf8Length answer as Buffer does (read_file uses them so a read-only turn never sets up Buffer).
import { expect, test } from "bun:test";
import { utf8Length, utf8Text } from "../../../src/text/utf8.ts";

const SAMPLES: number[][] = [
  [],
  [0x68, 0x69, 0x0a],
  [0xef, 0xbb, 0xbf, 0x41], // a byte order mark: kept, as Buffer keeps it
  [0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80], // é € 😀
  [0xc3], // cut short
  [0x80, 0xff, 0x41], // not UTF-8
  [0xed, 0xa0, 0x80], // an encoded surrogate
  [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
  [0xc0, 0xaf], // overlong
  [0xf0, 0x9f, 0x41, 0xe2, 0x82], // two sequences cut short
];

test("utf8Text decodes as Buffer.toString('utf8') does, invalid bytes and a byte order mark included", () => {
  for (const bytes of SAMPLES) expect(utf8Text(new Uint8Array(bytes))).toBe(Buffer.from(bytes).toString("utf8"));
});

test("utf8Length counts as Buffer.byteLength does, lone surrogates as the 3 bytes of U+FFFD", () => {
  for (const s of ["", "abc", "é€", "😀", "\ud800", "a\udc00b", "\ud83d\ude00\ud800", "x".repeat(5000) + "é"]) {
    expect(utf8Length(s)).toBe(Buffer.byteLength(s));
  }
});
