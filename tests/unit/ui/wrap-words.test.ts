import { expect, test } from "bun:test";
import { wrapInBox, wrapWords } from "../../../src/ui/wrap-words.ts";

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

test("inside a box each row fits after the gutter, broken between words; a word wider than the box is broken at its edge", () => {
  const line = `\x1b[2mto let it read one, add "read": ["/out/.env"] under mcpServers.leak in your settings.json, or run with\x1b[22m --allow-read=/${"x".repeat(140)}`;
  const rows = wrapInBox(["short", line], 120);
  expect(rows[0]).toBe("short");
  // "│  " takes 3 columns, and the last column stays free.
  for (const row of rows) expect(Bun.stringWidth(row)).toBeLessThanOrEqual(116);
  expect(rows.slice(1).map(Bun.stripANSI)).toEqual([
    'to let it read one, add "read": ["/out/.env"] under mcpServers.leak in your settings.json, or run with',
    `--allow-read=/${"x".repeat(102)}`,
    "x".repeat(38),
  ]);
  // The colour codes stay: the dim part is still dim, and closed.
  expect(rows[1]).toStartWith("\x1b[2m");
  expect(rows[1]).toContain("\x1b[22m");
});

test("inside a box, escaped text is kept as it was written; no width known leaves the lines as they are", () => {
  const escaped = `also sees, read-only: /opt/tool\\x1b[2J ${"and more words ".repeat(6)}`.trim();
  expect(wrapInBox([escaped], 40).join(" ")).toBe(escaped);
  expect(wrapInBox([escaped], undefined)).toEqual([escaped]);
});

test("a note's further rows go under its text ('  ✗ '), a command's under the command, not its '$'; the mark's own colour stays on the mark", () => {
  const refusal = "  ✗ writing src/app.ts needs approval, and bunker is not asking (no terminal or --no-prompt)";
  const rows = wrapWords(`\x1b[31m${refusal}\x1b[39m`, 40, { hang: true }).split("\n").map(Bun.stripANSI);
  expect(rows[0]).toStartWith("  ✗ writing");
  for (const row of rows.slice(1)) expect(row).toMatch(/^ {4}\S/);
  expect(rows.map((r) => r.trim()).join(" ")).toBe(refusal.trim());

  const command = "\x1b[2m$\x1b[22m \x1b[1mnpm install --save-dev typescript@5 && npx tsc --init --strict\x1b[22m";
  const boxed = wrapInBox([command], 40);
  // 36 columns inside a 40-column box ("│  " and the last column off), the command's text in the 34 after "$ ".
  expect(boxed.map(Bun.stripANSI)).toEqual(["$ npm install --save-dev", "  typescript@5 && npx tsc --init", "  --strict"]);
  // The "$" alone is dim: the command is not made dim by the wrap.
  expect(boxed[0]).toStartWith("\x1b[2m$\x1b[22m \x1b[1mnpm");
  for (const row of boxed.slice(1)) expect(row).not.toContain("\x1b[2m");
});

test("a todo item's further rows go under its text, after '[>] #1 ', its colour carried; also indented as the todo tool shows it", () => {
  const item = "[>] #1 Look at the layout of the project and its files";
  for (const indent of ["", "    "]) {
    const rows = wrapWords(`${indent}\x1b[1m\x1b[33m${item}\x1b[39m\x1b[22m`, 40, { hang: true }).split("\n");
    expect(rows.map(Bun.stripANSI)).toEqual([`${indent}[>] #1 Look at the layout of the`, `${indent}       project and its files`]);
    expect(rows[1]).toContain("\x1b[33mproject");
  }
});
