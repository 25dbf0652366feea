// A table too wide for the screen, laid out by its content (src/ui/markdown-table.ts); one that fits is left to
// the renderer (null).
import { expect, test } from "bun:test";
import { fitTable } from "../../../src/ui/markdown-table.ts";

const TABLE = ["| option | meaning | default |", "|---|---|--:|", "| --allow-read | grants reads of the paths given | none |"].join("\n");

test("a table that fits, or a block that is no table, is left to the renderer", () => {
  expect(fitTable(TABLE, 120, false, false)).toBeNull();
  expect(fitTable("| just | a line |", 40, false, false)).toBeNull();
  expect(fitTable("| a | b |\n| not | a rule |", 10, false, false)).toBeNull();
});

test("too wide: each column keeps its longest word, the rest of the width goes where the text is, right alignment kept", () => {
  const rows = fitTable(TABLE, 40, false, false)!.split("\n");
  for (const r of rows) expect(Bun.stringWidth(r)).toBeLessThanOrEqual(40);
  expect(rows[0]).toMatch(/^\+-+\+-+\+-+\+$/);
  expect(rows.join("\n")).toContain("| --allow-read |");
  // "none" under a right-aligned header keeps a column as narrow as "default", at its right.
  const none = rows.find((r) => r.includes("none"))!;
  expect(none.split("|")[3]).toBe("    none ");
});

test("pipes inside code spans and escaped pipes stay in their cell", () => {
  const t = ["| a | b |", "|---|---|", "| `x | y` | c \\| d |"].join("\n");
  const rows = fitTable(t, 16, false, false)!.split("\n");
  // The cells, cut where the rule's + are: a pipe of the text is no border.
  const cuts = [...rows[0]!.matchAll(/\+/g)].map((m) => m.index!);
  const cells = (row: string) => cuts.slice(1).map((c, i) => row.slice(cuts[i]! + 1, c).trim());
  const body = rows.slice(3, -1).map(cells);
  expect(body.map((c) => c[0]).join(" ").trim()).toBe("x | y");
  expect(body.map((c) => c[1]).join(" ").trim()).toBe("c | d");
});

test("no row is ever wider than the screen, whatever the words (reviewer's R13-04: a 20-letter word at 20 columns drew rows 25 wide)", () => {
  expect(fitTable("| a | b | c |\n|---|---|---|\n| aaaaaaaaaaaaaaaaaaaa | b | c |", 20, false, false)?.split("\n").every((r) => Bun.stringWidth(r) <= 20) ?? true).toBe(true);
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  for (let k = 0; k < 300; k++) {
    const cols = 1 + rand(5);
    const cell = () => Array.from({ length: 1 + rand(4) }, () => "x".repeat(1 + rand(25))).join(" ");
    const rows = [Array.from({ length: cols }, cell), Array.from({ length: cols }, () => "---"), ...Array.from({ length: 1 + rand(3) }, () => Array.from({ length: cols }, cell))];
    const width = 10 + rand(70);
    const out = fitTable(rows.map((r) => `| ${r.join(" | ")} |`).join("\n"), width, false, false);
    if (out !== null) expect({ width, widest: Math.max(...out.split("\n").map((r) => Bun.stringWidth(r))) <= width }).toEqual({ width, widest: true });
  }
});
