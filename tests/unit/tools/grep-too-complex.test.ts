// A pattern that makes the regex engine give up is said to be too complex,
// never answered "No matches" (JavaScriptCore reports no match when it stops
// backtracking: a silent wrong answer).
import { afterAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { grepTool } from "../../../src/tools/grep.ts";
import { ToolError } from "../../../src/tools/tool.ts";
import { makeContext, tempDir } from "../../support/context.ts";

const root = tempDir("bunker-grep-complex-");
const line = `${"x".repeat(28)}z`;
writeFileSync(join(root, "hard.txt"), `${line}\n`);
writeFileSync(join(root, "easy.txt"), "just z here\n");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const PATTERN = "(x+x+)+y|z";

test("control: the engine itself answers 'no match' for a line that matches", () => {
  expect(new RegExp(PATTERN).exec(line)).toBeNull();
});

test("grep says the pattern is too complex and suggests a simpler one, instead of 'No matches'", async () => {
  const err = await grepTool.run({ pattern: PATTERN, path: "hard.txt" }, makeContext(root)).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ToolError);
  expect((err as Error).message).toContain(`the pattern /${PATTERN}/ is too complex for the regex engine: it gave up backtracking in hard.txt, so matches there may be missing`);
  expect((err as Error).message).toContain("Use a simpler pattern");
});

test("with matches elsewhere, they are listed and the file it gave up on is named", async () => {
  const out = await grepTool.run({ pattern: PATTERN }, makeContext(root));
  const text = typeof out === "string" ? out : out.content;
  expect(text).toContain("easy.txt:1:just z here");
  expect(text).toContain("[note: the pattern /(x+x+)+y|z/ is too complex for the regex engine: it gave up backtracking in hard.txt");
});

test("an ordinary search with no match still says No matches", async () => {
  const out = await grepTool.run({ pattern: "q+" }, makeContext(root));
  expect(typeof out === "string" ? out : out.content).toStartWith("No matches for /q+/");
});
