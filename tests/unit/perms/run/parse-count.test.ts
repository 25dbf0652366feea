// A run_bash call parses its command line once: the verdict, what the prompt
// offers and says, and whether the workspace is mounted read-only all come
// from one evaluation.
import { afterAll, expect, spyOn, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as shell from "../../../../src/shell/parse.ts";
import { createRunBashTool } from "../../../../src/tools/run-bash.ts";
import { makeContext, tempDir } from "../../../support/context.ts";

const root = tempDir("bunker-parse-count-");
writeFileSync(join(root, "a.txt"), "hello\n");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const tool = createRunBashTool({ sandbox: "off", allowNet: false, allowEnv: [], gitWritable: false });
const parses = spyOn(shell, "parseShell");

async function countParses(command: string, answers = [{ answer: "target-session" as const }]) {
  const ctx = makeContext(root, { answers });
  // One call first, so a session prefix (from "always allow") is in place for the second.
  parses.mockClear();
  await tool.run({ command }, ctx);
  const first = parses.mock.calls.length;
  parses.mockClear();
  await tool.run({ command }, ctx);
  return { first, second: parses.mock.calls.length, asked: ctx.approver.asked.length };
}

test("asked, then covered by the session prefix the person allowed: one parse per call", async () => {
  const r = await countParses("cat a.txt | wc -l && touch b.txt");
  expect(r).toEqual({ first: 1, second: 1, asked: 1 });
});

test("a line that only reads: one parse, nobody asked", async () => {
  const r = await countParses("cat a.txt");
  expect(r).toEqual({ first: 1, second: 1, asked: 0 });
});
