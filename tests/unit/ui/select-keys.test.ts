// The select with shortcut keys, through injected streams: numbered options,
// a number or a named letter answering at once, arrows and Enter as before.
import { expect, test } from "bun:test";
import { isCancel } from "@clack/prompts";
import { selectKeys } from "../../../src/ui/select-keys.ts";
import { KEY, Terminal } from "../../support/prompt-terminal.ts";

const OPTIONS = [
  { value: "a", label: "Apple" },
  { value: "b", label: "Banana" },
  { value: "c", label: "Cherry" },
];

async function pick(keys: string[], letters?: Record<string, string>, numbersMove?: boolean): Promise<{ answer: string | symbol; screen: string }> {
  const term = new Terminal();
  const pending = selectKeys({ message: "Which one?", options: OPTIONS, letters, numbersMove, input: term.input, output: term.output });
  await term.waitFor("Enter: confirm");
  await term.press(...keys);
  return { answer: await pending, screen: term.screen };
}

test("the options are numbered and the keys are named under them", async () => {
  const { screen } = await pick([KEY.enter], { y: "a" });
  expect(screen).toContain("1. Apple");
  expect(screen).toContain("2. Banana");
  expect(screen).toContain("3. Cherry");
  expect(screen).toContain("1-3, y: pick");
});

test("a number picks its option at once; a letter picks the option it names, in either case", async () => {
  expect((await pick(["3"])).answer).toBe("c");
  expect((await pick([KEY.down, "1"])).answer).toBe("a");
  expect((await pick(["N"], { n: "b" })).answer).toBe("b");
});

test("keys that pick nothing change nothing; arrows, Enter and Escape work as before", async () => {
  expect((await pick(["4", "0", "q", KEY.down, KEY.enter])).answer).toBe("b");
  expect((await pick([KEY.up, KEY.enter])).answer).toBe("c");
  expect(isCancel((await pick([KEY.escape])).answer)).toBe(true);
});

test("with numbersMove a number only moves the cursor to its option, and Enter picks it", async () => {
  const moved = await pick(["3", KEY.enter], undefined, true);
  expect(moved.answer).toBe("c");
  expect(moved.screen).toContain("1-3: move");
  expect((await pick(["3", "1", KEY.enter], undefined, true)).answer).toBe("a");
});
