import { expect, test } from "bun:test";
import { wrapWords } from "../../../src/ui/wrap-words.ts";

const hint = 'The turn list: add "conversation" to drop those turns too, "force" to take back files changed since.';

test("a line wider than the screen breaks between words, each row narrower than the screen", () => {
  const rows = wrapWords(hint, 40).split("\n");
  expect(rows.length).toBeGreaterThan(1);
  for (const row of rows) expect(Bun.stringWidth(row)).toBeLessThan(40);
  expect(rows.join(" ")).toBe(hint);
  expect(rows.some((r) => r.endsWith('"forc') || r.startsWith('e"'))).toBe(false);
});

test("colour codes do not count as width and stay around each row; short lines and newlines are kept", () => {
  const red = `\x1b[31m${hint}\x1b[39m`;
  const rows = wrapWords(`short\n${red}`, 40).split("\n");
  expect(rows[0]).toBe("short");
  expect(rows.slice(1).map((r) => r.replace(/\x1b\[[0-9;]*m/g, "")).join(" ")).toBe(hint);
  for (const row of rows.slice(1)) expect(Bun.stringWidth(row)).toBeLessThan(40);
});

test("a word wider than the screen is left whole; no width known leaves the text as it is", () => {
  const path = `--allow-read=/${"x".repeat(60)}`;
  expect(wrapWords(`run bunker with ${path}`, 40)).toBe(`run bunker with\n${path}`);
  expect(wrapWords(hint, undefined)).toBe(hint);
});
