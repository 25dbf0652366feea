// What a continued session shows under "Last reply:" (src/repl.ts): the
// model's last words, so the person knows what "continue" will continue.
// The prompt loop itself runs in a real terminal in tests/e2e/repl-*.test.ts.
import { expect, test } from "bun:test";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { lastReply } from "../../src/repl.ts";

const user = (text: string): MessageParam => ({ role: "user", content: text });
const said = (text: string): MessageParam => ({ role: "assistant", content: [{ type: "text", text }] });
const called: MessageParam = { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } }] };
const answered: MessageParam = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "x" }] };

test.each([
  ["the last answer, not an earlier one", [user("a"), said("First."), user("b"), said("Second.")], "Second."],
  ["a turn that ended on a tool call shows the answer before it", [user("a"), said("Looked."), user("b"), called, answered], "Looked."],
  ["the answer given as a plain string", [user("a"), { role: "assistant", content: "Plain." } as MessageParam], "Plain."],
  ["text blocks around a tool call are joined and trimmed", [user("a"), { role: "assistant", content: [{ type: "text", text: "Reading " }, called.content[0], { type: "text", text: "a.ts.\n" }] } as MessageParam], "Reading a.ts."],
  ["nothing said yet: nothing to show", [user("a"), called, answered], ""],
  ["no conversation", [], ""],
] as [string, MessageParam[], string][])("%s", (_name, messages, shown) => {
  expect(lastReply(messages)).toBe(shown);
});

test("a long answer is cut to its last 8 lines, marked with … where it was cut", () => {
  const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
  expect(lastReply([user("a"), said(lines.join("\n"))])).toBe(["…", ...lines.slice(4)].join("\n"));
  expect(lastReply([user("a"), said(lines.slice(0, 8).join("\n"))])).toBe(lines.slice(0, 8).join("\n"));
});
