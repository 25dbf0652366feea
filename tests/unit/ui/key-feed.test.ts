// Keys typed ahead of a question reach it: two clack questions in a row, both
// answers typed in one read, each question gets its own; what is left waits
// for the next reader, in order.
import { expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { isCancel, text } from "@clack/prompts";
import { withKeyFeed, type FeedInput } from "../../../src/ui/key-feed.ts";
import { selectKeys } from "../../../src/ui/select-keys.ts";
import { CONFIRM_MS, hasHeldKeys, takeHeldKeys } from "../../../src/ui/typeahead.ts";
import { KEY } from "../../support/prompt-terminal.ts";

const OPTIONS = [{ value: "once", label: "Yes" }, { value: "session", label: "Yes, always" }, { value: "deny", label: "No" }];

function setUp() {
  const input = Object.assign(new PassThrough(), { isTTY: true, raw: false, setRawMode(mode: boolean) { input.raw = mode; return input; } });
  const output = new PassThrough();
  output.resume();
  const ask = () => withKeyFeed(input as unknown as FeedInput, (feed) => selectKeys({ message: "Run it?", options: OPTIONS, letters: { y: "once", n: "deny" }, input: feed, output }));
  return { input, output, ask, type: (s: string) => void input.write(s) };
}

test("two answers typed in one read (y Enter y Enter): each question gets one; nothing is left over", async () => {
  const { input, ask, type } = setUp();
  const first = ask();
  type("y\ry\r");
  expect((await first).answer).toBe("once");
  expect(hasHeldKeys(input)).toBe(true);
  // The second question, asked later (after the first command ran), reads what was typed for it.
  await Bun.sleep(CONFIRM_MS + 50);
  expect((await ask()).answer).toBe("once");
  expect(takeHeldKeys(input)).toEqual([]);
  expect(input.raw).toBe(false);
});

test("Enter Enter answers two questions with their first option; 2 then n answer with those", async () => {
  for (const [typed, answers] of [[`${KEY.enter}${KEY.enter}`, ["once", "once"]], [`${KEY.down}${KEY.enter}n`, ["session", "deny"]], ["2n", ["session", "deny"]]] as const) {
    const { input, ask, type } = setUp();
    const first = ask();
    type(typed);
    expect((await first).answer).toBe(answers[0]);
    await Bun.sleep(CONFIRM_MS + 50);
    expect((await ask()).answer).toBe(answers[1]);
    expect(takeHeldKeys(input)).toEqual([]);
  }
});

test("a lone Escape typed ahead cancels its own question only; the next key answers the next", async () => {
  const { input, ask, type } = setUp();
  const first = ask();
  type(`${KEY.escape}y`);
  expect(isCancel((await first).answer)).toBe(true);
  expect((await ask()).answer).toBe("once");
  expect(takeHeldKeys(input)).toEqual([]);
});

test("what follows the last answer is kept for the next reader, in order; a refusal's reason typed ahead reaches its question", async () => {
  const { input, output, ask, type } = setUp();
  const first = ask();
  type("ykeep this\x1b[D");
  expect((await first).answer).toBe("once");
  expect(takeHeldKeys(input)).toEqual(["k", "e", "e", "p", " ", "t", "h", "i", "s", "\x1b[D"]);
  // n, then the reason for the text question that follows it, in one read.
  const second = ask();
  type("nnot now\r");
  expect((await second).answer).toBe("deny");
  const reason = await withKeyFeed(input as unknown as FeedInput, (feed) => text({ message: "Why not?", input: feed, output }));
  expect(reason.answer).toBe("not now");
});

test("Ctrl+C typed right after an answer still stops the turn, and is not kept", async () => {
  const { input, ask, type } = setUp();
  const first = ask();
  type("y\x03");
  const r = await first;
  expect(r).toEqual({ answer: "once", ctrlC: true });
  expect(takeHeldKeys(input)).toEqual([]);
});

test("an Enter soon after a y pick, in a read of its own, confirms the pick; later, it answers the next question", async () => {
  const { ask, type } = setUp();
  const first = ask();
  type("y");
  expect((await first).answer).toBe("once");
  const second = ask();
  type("\r");
  await Bun.sleep(20);
  // Not answered by that Enter: the question is still open.
  let settled = false;
  void second.then(() => (settled = true));
  await Bun.sleep(20);
  expect(settled).toBe(false);
  await Bun.sleep(CONFIRM_MS);
  type("\r");
  expect((await second).answer).toBe("once");
});
