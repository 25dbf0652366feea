// How the live region puts a row in without its cursor passing column 19: read back the way a terminal does it.
import { expect, test } from "bun:test";
import { RowInserts } from "../../../src/ui/row-inserts.ts";

/**
 * What a row shows after `code` (written at column 0 of a blank row), and the furthest column the cursor reached.
 * Each piece is put in at the row's start, pushing what is there right (insert mode), or written over a blank row.
 */
function readBack(code: string): { row: string; furthest: number } {
  const pieces = code.replace(/\x1b\[4[hl]/g, "").split("\r").filter((p) => p !== "");
  let row = "";
  let furthest = 0;
  for (const piece of pieces) {
    row = piece + row;
    furthest = Math.max(furthest, Bun.stringWidth(piece));
  }
  return { row, furthest };
}

/** The code of the last line of a frame, for frames of one line. */
const codeOf = (inserts: RowInserts, line: string) => inserts.frame([line]);

const LINES = [
  "short",
  "x".repeat(19),
  "x".repeat(20),
  "The function handle1 now validates its input before it touches the cache, so a bad request gets an error.",
  "It didn’t check anything — “empty” inputs crashed deep in the lookup code. Ça va, naïve façade, Ελληνικά, русский.",
  "漢字かなまじり文の段落、漢字かなまじり文の段落、漢字かなまじり文の段落、한국어 문장",
  "an emoji 👩‍💻 and a flag 🇫🇷 and e\u0301 with its accent, among plain words that make the line long",
  "\x1b[2mstatus\x1b[0m · \x1b[1mclaude\x1b[0m · context 12% · 1234 in · 56 out · $0.0123 · writing 3s · esc to interrupt",
];

test("every line reads back whole, and the cursor never passes column 19 (the narrowest screen's edge)", () => {
  for (const line of LINES) {
    const { row, furthest } = readBack(codeOf(new RowInserts(), line));
    expect(Bun.stripANSI(row)).toBe(Bun.stripANSI(line));
    expect(furthest).toBeLessThanOrEqual(19);
  }
});

test("a coloured line keeps each character's colour", () => {
  const line = `${"\x1b[31m"}red words that go on for a while${"\x1b[0m"} then plain words after them`;
  const { row } = readBack(codeOf(new RowInserts(), line));
  // Each piece starts from no colour and sets its own: the red part's pieces carry red, the plain part's none.
  const redPieces = row.split("\x1b[0m").filter((p) => p.startsWith("\x1b[31m"));
  expect(redPieces.map((p) => p.slice(5)).join("")).toBe("red words that go on for a while");
});

test("a line that grows (the answer's row being written) gives the same row as if it were cut afresh each time", () => {
  for (const line of LINES) {
    const growing = new RowInserts();
    for (let end = 1; end <= line.length; end += 3) {
      const prefix = line.slice(0, end);
      // A cut through a surrogate pair or an escape is not a line the region is given.
      if (/[\ud800-\udbff]$/.test(prefix) || /\x1b[^m]*$/.test(prefix)) continue;
      const { row, furthest } = readBack(codeOf(growing, prefix));
      expect(row).toBe(readBack(codeOf(new RowInserts(), prefix)).row);
      expect(Bun.stripANSI(row)).toBe(Bun.stripANSI(prefix));
      expect(furthest).toBeLessThanOrEqual(19);
    }
  }
});

test("a frame whose lines are unchanged but the last writes the others as before, each with a blank row put in above", () => {
  const inserts = new RowInserts();
  const a = "first row of the preview, long enough to be put in piece by piece";
  const first = inserts.frame([a, "the row being written"]);
  const second = inserts.frame([a, "the row being written, longer now"]);
  const tail = (code: string) => code.slice(code.indexOf("\x1b[L"));
  expect(tail(second)).toBe(tail(first));
  expect(readBack(tail(second).slice(3)).row).toBe(a);
  expect(readBack(second.slice(0, second.indexOf("\x1b[L"))).row).toBe("the row being written, longer now");
});
