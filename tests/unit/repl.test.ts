// What a continued session shows before its prompt (src/repl.ts): which session, how many prompts, and the
// conversation so far (src/session/replay.ts decides the transcript; this is how the REPL puts it together).
// The prompt loop itself runs in a real terminal in tests/e2e/repl-*.test.ts and tests/e2e/session.test.ts.
import { expect, test } from "bun:test";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { resumedTranscript } from "../../src/repl.ts";

test("the session, its prompts and todos, then the transcript with tool lines as their tools summarise them", async () => {
  const messages: MessageParam[] = [
    { role: "user", content: [{ type: "text", text: "read a.ts" }] },
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "read_file", input: { path: "a.ts" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "1\tx" }] },
    { role: "assistant", content: [{ type: "text", text: "It holds **x**." }] },
  ];
  const app = {
    agent: { history: { messages } },
    session: { todos: [{}, {}] },
    recorder: { id: "abcdefghij" },
    summarizeCall: async (name: string, input: unknown) => `${name} ${(input as { path: string }).path}`,
  } as unknown as Parameters<typeof resumedTranscript>[0];
  const shown = (await resumedTranscript(app, undefined)).replace(/\x1b\[[0-9;]*m/g, "");
  expect(shown).toBe("Continuing session abcdefghij (1 prompt, 2 todos).\n› read a.ts\n  read_file a.ts\nIt holds **x**.\n");
});
