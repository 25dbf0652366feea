// Keys typed ahead of a question are never its answer: a question is
// answered only by keys pressed while it is on screen, so nothing is approved
// unseen. What follows an answer in the same read is kept, in order, for the
// input line (or a free-text question that may take it); nothing is lost.
import { expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { isCancel, text } from "@clack/prompts";
import { holdWaitingKeys, withKeyFeed, type FeedInput } from "../../../src/ui/key-feed.ts";
import { selectKeys } from "../../../src/ui/select-keys.ts";
import { CLOSED_MS, CONFIRM_MS, noteTyping, QUIET_MS, takeHeldKeys } from "../../../src/ui/typeahead.ts";
import { KEY } from "../../support/prompt-terminal.ts";
import type { KeyToken } from "../../../src/ui/keys.ts";

const OPTIONS = [{ value: "once", label: "Yes" }, { value: "session", label: "Yes, always" }, { value: "deny", label: "No" }];

function setUp() {
  const input = Object.assign(new PassThrough(), { isTTY: true, raw: false, setRawMode(mode: boolean) { input.raw = mode; return input; } });
  const output = new PassThrough();
  output.resume();
  const ask = () => withKeyFeed(input as unknown as FeedInput, (feed) => selectKeys({ message: "Run it?", options: OPTIONS, letters: { y: "once", n: "deny" }, input: feed, output }));
  return { input, output, ask, type: (s: string) => void input.write(s) };
}

/** Whether `answer` is still waiting after `ms`. */
async function stillOpen(answer: Promise<unknown>, ms = 100): Promise<boolean> {
  let settled = false;
  void answer.then(() => (settled = true));
  await Bun.sleep(ms);
  return !settled;
}

test("two answers typed in one read (y Enter y Enter): the first question gets its own; the second, asked later, is not answered by the keys typed before it was shown; they are kept, in order", async () => {
  const { input, ask, type } = setUp();
  const first = ask();
  type("y\ry\r");
  expect((await first).answer).toBe("once");
  // The second question, asked later (after the first command ran): only a key pressed now answers it.
  await Bun.sleep(CONFIRM_MS + 50);
  const second = ask();
  expect(await stillOpen(second)).toBe(true);
  // Drawn within a second of the first closing: it takes a key after a pause (a key for the first may still be coming).
  await Bun.sleep(QUIET_MS);
  type("n");
  expect((await second).answer).toBe("deny");
  expect(takeHeldKeys(input)).toEqual(["y", "\r"]);
  expect(input.raw).toBe(false);
});

test("Enter Enter, Down Enter n, 2n typed in one read: each answers the question on screen only; the rest waits for the input line", async () => {
  for (const [typed, answer, kept] of [[`${KEY.enter}${KEY.enter}`, "once", ["\r"]], [`${KEY.down}${KEY.enter}n`, "session", ["n"]], ["2n", "session", ["n"]]] as const) {
    const { input, ask, type } = setUp();
    const first = ask();
    type(typed);
    expect((await first).answer).toBe(answer);
    await Bun.sleep(CONFIRM_MS + 50);
    const second = ask();
    expect(await stillOpen(second)).toBe(true);
    await Bun.sleep(QUIET_MS);
    type("y");
    expect((await second).answer).toBe("once");
    expect(takeHeldKeys(input)).toEqual([...kept]);
  }
});

test("a lone Escape typed ahead cancels its own question only; the y after it waits for the input line", async () => {
  const { input, ask, type } = setUp();
  const first = ask();
  type(`${KEY.escape}y`);
  expect(isCancel((await first).answer)).toBe(true);
  const second = ask();
  expect(await stillOpen(second)).toBe(true);
  await Bun.sleep(QUIET_MS);
  type("n");
  expect((await second).answer).toBe("deny");
  expect(takeHeldKeys(input)).toEqual(["y"]);
});

test("what follows the last answer is kept for the next reader, in order; a refusal's reason is what is typed once its question is shown", async () => {
  const { input, output, ask, type } = setUp();
  const first = ask();
  type("ykeep this\x1b[D");
  expect((await first).answer).toBe("once");
  expect(takeHeldKeys(input)).toEqual(["k", "e", "e", "p", " ", "t", "h", "i", "s", "\x1b[D"]);
  // n, and more in the same read: the more waits for the input line, not for the reason.
  const second = ask();
  await Bun.sleep(QUIET_MS);
  type("nx");
  expect((await second).answer).toBe("deny");
  // The reason goes on with that "No": it takes keys at once.
  const reason = withKeyFeed(input as unknown as FeedInput, (feed) => text({ message: "Why not?", input: feed, output }), { continues: true });
  type("not now\r");
  expect((await reason).answer).toBe("not now");
  expect(takeHeldKeys(input)).toEqual(["x"]);
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
  // Later, after a pause: an answer to the question on screen.
  await Bun.sleep(QUIET_MS);
  type("\r");
  expect((await second).answer).toBe("once");
});

test("a question drawn while the person types their next message takes no key until they pause: the letters go on into the message; Escape still refuses", async () => {
  const { input, ask, type } = setUp();
  noteTyping(input);
  const first = ask();
  // "by the way, yes" typed on at full speed: no y, n or Enter in it answers, nothing moves the choice.
  for (const ch of "yes, 2\r") {
    type(ch);
    await Bun.sleep(40);
  }
  expect(await stillOpen(first)).toBe(true);
  expect(takeHeldKeys(input)).toEqual(["y", "e", "s", ",", " ", "2", "\r"]);
  // A pause, then a key: that one answers.
  await Bun.sleep(QUIET_MS + 50);
  type("n");
  expect((await first).answer).toBe("deny");

  noteTyping(input);
  const second = ask();
  type("ab");
  await Bun.sleep(40);
  type(KEY.escape);
  expect(isCancel((await second).answer)).toBe(true);
  expect(takeHeldKeys(input)).toEqual(["a", "b"]);
});

test("without typing before it, a question takes the first key; vim's j and k do not move its choice", async () => {
  const { ask, type } = setUp();
  const first = ask();
  type("jj\r");
  expect((await first).answer).toBe("once");
});

test("keys waiting in the terminal before a question nobody was reading for (start-up): held for the input line; the question drawn next takes none until a pause", async () => {
  const { input, ask, type } = setUp();
  // Typed before anything read the terminal: they wait there, and come with the first read.
  type("yes");
  await holdWaitingKeys(input as unknown as FeedInput);
  expect(takeHeldKeys(input)).toEqual(["y", "e", "s"]);
  const question = ask();
  type(" please");
  expect(await stillOpen(question, QUIET_MS / 2)).toBe(true);
  await Bun.sleep(QUIET_MS);
  type("n");
  expect((await question).answer).toBe("deny");
  expect(takeHeldKeys(input)).toEqual([" ", "p", "l", "e", "a", "s", "e"]);
});

test("a key meant for a question that was withdrawn as it was pressed never answers the next one: held as text until the person pauses", async () => {
  const { input, ask, type } = setUp();
  // A network question whose command ends before the person answers it.
  const withdraw = new AbortController();
  const net = withKeyFeed(input as unknown as FeedInput, (feed) => selectKeys({ message: "Allow net access?", options: OPTIONS, letters: { y: "once" }, input: feed, output: new PassThrough(), signal: withdraw.signal }));
  await Bun.sleep(50);
  withdraw.abort("the command ended");
  expect(isCancel((await net).answer)).toBe(true);
  // The next question ("Run this command?") is drawn at once; the y meant for the first one lands on it.
  const run = ask();
  await Bun.sleep(30);
  type("y");
  expect(await stillOpen(run, QUIET_MS / 2)).toBe(true);
  expect(takeHeldKeys(input)).toEqual(["y"]);
  // A fresh answer, after a pause, is taken.
  await Bun.sleep(QUIET_MS);
  type("n");
  expect((await run).answer).toBe("deny");
});

test("a second after the last question closed, a new one takes the first key again", async () => {
  const { ask, type } = setUp();
  const first = ask();
  type("y");
  expect((await first).answer).toBe("once");
  await Bun.sleep(CLOSED_MS + 50);
  const second = ask();
  type("n");
  expect((await second).answer).toBe("deny");
});

test("Alt+B typed on into the message as a question appears (one read, as terminals send it) is Alt+B for the input line: it does not refuse the question", async () => {
  const { input, ask, type } = setUp();
  noteTyping(input);
  const question = ask();
  type("ab");
  await Bun.sleep(40);
  type("\x1bb");
  expect(await stillOpen(question)).toBe(true);
  expect(takeHeldKeys(input)).toEqual(["a", "b", "\x1bb"]);
  await Bun.sleep(QUIET_MS + 50);
  type("n");
  expect((await question).answer).toBe("deny");
});

test("Alt+F waiting in the terminal before a start-up question is held as Alt+F, not as an Escape and an f", async () => {
  const { input, type } = setUp();
  type("ab\x1bf");
  await holdWaitingKeys(input as unknown as FeedInput);
  type("\x1bf");
  await holdWaitingKeys(input as unknown as FeedInput);
  expect(takeHeldKeys(input)).toEqual(["a", "b", "\x1b", "f", "\x1bf"]);
});

test("a question that names its answer keys: a first key that is none of them starts typing, and it and the keys after it (Enter too) go to the input line until a pause", async () => {
  const { input, output } = setUp();
  const answers = (t: KeyToken) => t.key?.name === "enter" || t.raw === "1";
  const ask = () => withKeyFeed(input as unknown as FeedInput, (feed) => selectKeys({ message: "Start it?", options: OPTIONS, initial: "deny", input: feed, output }), { answers });
  const question = ask();
  for (const ch of "make it so\r1") {
    input.write(ch);
    await Bun.sleep(30);
  }
  expect(await stillOpen(question)).toBe(true);
  expect(takeHeldKeys(input)).toEqual([..."make it so", "\r", "1"]);
  // After a pause, Enter alone: the option the cursor started on.
  await Bun.sleep(QUIET_MS + 50);
  input.write("\r");
  expect((await question).answer).toBe("deny");
  // Without typing first, a number answers at once.
  await Bun.sleep(CLOSED_MS);
  const next = ask();
  input.write("1");
  expect((await next).answer).toBe("once");
});

test("a number that only moves, followed in its own read moments later by text: it was the message's start; it goes to the input line with the text and the cursor goes back (new user: \"1 more thing\")", async () => {
  const { input, output, type } = setUp();
  const consentish = (t: KeyToken) => t.key?.name === "enter" || (t.key?.name === "text" && /^[1-3]$/.test(t.raw));
  const answer = withKeyFeed(input as unknown as FeedInput, (feed) => selectKeys({ message: "Start it?", options: OPTIONS, initial: "session", numbersMove: true, input: feed, output }), { answers: consentish, undoMove: "2" });
  await Bun.sleep(QUIET_MS);
  type("1");
  await Bun.sleep(60);
  type(" more thing");
  // The person's Enter after a pause picks where the question was drawn, not where the 1 moved it.
  await Bun.sleep(QUIET_MS + 100);
  type(KEY.enter);
  expect((await answer).answer).toBe("session");
  expect(takeHeldKeys(input).join("")).toBe("1 more thing");
  // A number with a pause after it was meant: it stays a move.
  const { input: input2, output: output2, type: type2 } = setUp();
  const meant = withKeyFeed(input2 as unknown as FeedInput, (feed) => selectKeys({ message: "Start it?", options: OPTIONS, initial: "session", numbersMove: true, input: feed, output: output2 }), { answers: consentish, undoMove: "2" });
  await Bun.sleep(QUIET_MS);
  type2("1");
  await Bun.sleep(QUIET_MS + 100);
  type2(KEY.enter);
  expect((await meant).answer).toBe("once");
});
