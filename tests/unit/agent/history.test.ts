// The conversation's shape: bunker's own notes to the model are told apart from
// the person's words, and going back to before a turn keeps what came before
// its prompt in the same message (an earlier turn's last results, a note).
import { expect, test } from "bun:test";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { bunkerNote, History, holdsPrompt, isBunkerNote, messagesBefore } from "../../../src/agent/history.ts";

const result = { type: "tool_result" as const, tool_use_id: "t1", content: "Interrupted by the user.", is_error: true };

test("a note of bunker's is bracketed and known as one; the person's text, even in brackets, is not", () => {
  expect(bunkerNote("The person took back file changes with /undo")).toEqual({ type: "text", text: "[The person took back file changes with /undo]" });
  expect(isBunkerNote(bunkerNote("The person interrupted your reply"))).toBe(true);
  expect(isBunkerNote({ type: "text", text: "[link](url) please" })).toBe(false);
  expect(holdsPrompt({ role: "user", content: [result, bunkerNote("The person interrupted this turn")] })).toBe(false);
  expect(holdsPrompt({ role: "user", content: [result, { type: "text", text: "try again" }] })).toBe(true);
  expect(holdsPrompt({ role: "assistant", content: "hi" })).toBe(false);
});

test("back to before a turn whose prompt joined an interrupted round's results: the results stay, answering the calls", () => {
  const history = new History();
  history.addUser("first");
  history.addAssistant([{ type: "tool_use", id: "t1", name: "run_bash", input: { command: "sleep 9" } }]);
  history.addUser([result, bunkerNote("The person interrupted this turn during tool use")]);
  const turn = history.messages.length - 1;
  history.addUser("second");
  history.addAssistant("ok");
  const before: MessageParam[] = messagesBefore(history.messages, turn);
  expect(before).toHaveLength(3);
  expect(before[2]).toEqual({ role: "user", content: [result, bunkerNote("The person interrupted this turn during tool use")] });
  history.truncateTurn(turn);
  expect(history.messages).toEqual(before);
  // A turn that began a message of its own: everything from it goes.
  expect(messagesBefore(before, 1)).toEqual([{ role: "user", content: [{ type: "text", text: "first" }] }]);
});
