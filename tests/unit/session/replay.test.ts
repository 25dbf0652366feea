// A continued session's transcript (src/session/replay.ts): the person's prompts, the tool lines and the
// answers, the last turns only, every character escaped; and the prompt count a session is named by.
import { expect, test } from "bun:test";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { attachedFile, bunkerNote } from "../../../src/agent/history.ts";
import { countPrompts, replayTranscript, typedText } from "../../../src/session/replay.ts";
import { keptTodosNote, todoReminderText } from "../../../src/agent/todo.ts";
import { takeBackNote } from "../../../src/change/checkpoints.ts";

const user = (text: string): MessageParam => ({ role: "user", content: [{ type: "text", text }] });
const said = (text: string): MessageParam => ({ role: "assistant", content: [{ type: "text", text }] });
const call = (id: string, path: string): MessageParam => ({ role: "assistant", content: [{ type: "text", text: "Reading it." }, { type: "tool_use", id, name: "read_file", input: { path } }] });
const result = (id: string): MessageParam => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "1\tx" }] });
const opts = { summarize: (name: string, input: unknown) => `${name} ${(input as { path: string }).path}`, render: (text: string) => text };
const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");

test("each turn as it was shown live: the prompt after ›, a dim line per tool call, the answers", () => {
  const messages = [user("fix calc.js"), call("t1", "calc.js"), result("t1"), said("Fixed the sum."), user("thanks"), said("You're welcome.")];
  expect(strip(replayTranscript(messages, opts))).toBe(
    ["› fix calc.js", "Reading it.", "  read_file calc.js", "Fixed the sum.", "› thanks", "You're welcome.", ""].join("\n"),
  );
  // Prompts are the person's messages: tool results and bunker's own notes are not counted (the API's 6 messages).
  expect(countPrompts(messages)).toBe(2);
  expect(countPrompts([...messages, { role: "user", content: [bunkerNote("The person interrupted the reply.")] }])).toBe(2);
});

test("only the last turns, with how many earlier ones are not shown", () => {
  const messages = Array.from({ length: 14 }, (_, i) => [user(`prompt ${i + 1}`), said(`answer ${i + 1}`)]).flat();
  const shown = strip(replayTranscript(messages, { ...opts, turns: 10 }));
  expect(shown.split("\n")[0]).toBe("… 4 earlier turns not shown");
  expect(shown).toContain("› prompt 5\nanswer 5\n");
  expect(shown).not.toContain("prompt 4\n");
  expect(shown.trimEnd().endsWith("› prompt 14\nanswer 14")).toBe(true);
});

test("a long answer and a long prompt are cut, saying how much more there was", () => {
  const long = Array.from({ length: 20 }, (_, i) => `row ${i + 1}`).join("\n");
  const shown = strip(replayTranscript([user(`first\nsecond\nthird\nfourth\nfifth`), said(long)], { ...opts, answerRows: 12, promptLines: 3 }));
  expect(shown).toContain("› first\n  second\n  third\n  … (2 more lines)\n");
  expect(shown).toContain("row 12\n… (8 more lines of this answer)\n");
  expect(shown).not.toContain("row 13");
});

test("every character that does not show itself is escaped: prompts, tool lines and answers", () => {
  const messages: MessageParam[] = [
    user("look at \x1b[2Jthis\u202e"),
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "read_file", input: { path: "a\x07.txt" } }] },
    result("t1"),
  ];
  const shown = replayTranscript(messages, opts);
  expect(shown).not.toContain("\x1b[2J");
  expect(shown).not.toContain("\x07");
  expect(shown).not.toContain("\u202e");
  expect(strip(shown)).toContain("› look at \\x1b[2Jthis\\u202e");
  expect(strip(shown)).toContain("  read_file a\\x07.txt");
});

test("an attached image is named, not dropped; a conversation with no prompt shows nothing", () => {
  const withImage: MessageParam = { role: "user", content: [{ type: "text", text: "what is this?" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } }] };
  expect(strip(replayTranscript([withImage, said("A cat.")], opts))).toBe("› what is this?\n  [image]\nA cat.\n");
  expect(replayTranscript([], opts)).toBe("");
});

test("a file attached with @ is named in the prompt, not replayed whole", () => {
  const prompt: MessageParam = { role: "user", content: [{ type: "text", text: "fix @calc.js" }, attachedFile("calc.js", "1\tconst x = 1;\n2\tconst y = 2;")] };
  expect(strip(replayTranscript([prompt, said("Fixed.")], opts))).toBe("› fix @calc.js\n  [calc.js attached]\nFixed.\n");
  expect(countPrompts([prompt])).toBe(1);
});

test("bunker's todo reminder and the plan /clear keep-todos carried are not shown or counted as the person's prompts (new user 12's N12-01)", () => {
  const reminded: MessageParam = { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "1\tx" }, { type: "text", text: todoReminderText([{ id: "1", text: "fix it", status: "pending" }]) }] };
  const kept = user(`go on\n\n${keptTodosNote([{ id: "1", text: "fix it", status: "in_progress" }])}`);
  const messages = [user("run something noisy"), call("t1", "a.txt"), reminded, said("Done."), kept, said("Continuing with plan.")];
  expect(strip(replayTranscript(messages, opts))).toBe(["› run something noisy", "Reading it.", "  read_file a.txt", "Done.", "› go on", "Continuing with plan.", ""].join("\n"));
  expect(countPrompts(messages)).toBe(2);
});

test("what the person typed in a message, for /rewind N conversation to put back in the input line: not the files attached, the kept plan, bunker's notes or tool results (N12-19)", () => {
  const attached: MessageParam = { role: "user", content: [{ type: "text", text: "fix @calc.js" }, attachedFile("calc.js", "1\tconst x = 1;"), bunkerNote("The person took back file changes.")] };
  expect(typedText(attached)).toBe("fix @calc.js");
  expect(typedText(user(`go on\n\n${keptTodosNote([{ id: "1", text: "fix it", status: "in_progress" }])}`))).toBe("go on");
  const afterResults: MessageParam = { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "1\tx" }, { type: "text", text: "two\nlines" }] };
  expect(typedText(afterResults)).toBe("two\nlines");
  expect(typedText({ role: "user", content: "plain" })).toBe("plain");
  expect(typedText(undefined)).toBe("");
});

test("a failed call has the first line of how under it; an /undo between two messages is said where it happened (N12-22)", () => {
  const failed: MessageParam = { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "\nexit code 128\nfatal: Unable to create '.git/index.lock'", is_error: true }] };
  const turn = { number: 1, turn: 0, at: 0, prompt: "fix it", files: ["calc.js"], added: 1, removed: 1 };
  const undone: MessageParam = { role: "user", content: [bunkerNote(takeBackNote(turn, ["calc.js"], "/undo")), { type: "text", text: "try again" }] };
  const messages = [user("fix it"), call("t1", "calc.js"), failed, said("It failed."), undone, said("Trying.")];
  expect(strip(replayTranscript(messages, opts))).toBe(
    ["› fix it", "Reading it.", "  read_file calc.js", "  ✗ exit code 128", "It failed.", '/undo took back turn 1 ("fix it"): calc.js.', "› try again", "Trying.", ""].join("\n"),
  );
  expect(countPrompts(messages)).toBe(2);
});
