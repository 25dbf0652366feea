import { expect, test } from "bun:test";
import { argLines, prettyArgs } from "../../../src/mcp/preview.ts";

test("arguments are pretty-printed, invisible characters escaped, long ones cut with counts", () => {
  const lines = argLines(prettyArgs({ name: "ok\u202etxt.exe", body: "x".repeat(50) }), 20, 30);
  expect(lines[1]).toBe('  "name": "ok\\u202etxt.exe",');
  expect(lines[2]).toContain("… (");
  expect(lines[2]).toContain("more characters)");
  const many = argLines(prettyArgs({ list: Array.from({ length: 50 }, (_, i) => i) }), 10);
  expect(many).toHaveLength(11);
  expect(many[10]).toMatch(/^… 44 more lines of arguments \(\d+ characters in all\)$/);
});
