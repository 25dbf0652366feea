// The stream-json event shapes, one by one (the whole run: tests/e2e/stream-json.test.ts).
import { describe, expect, test } from "bun:test";
import { emptyUsage } from "../../src/agent/usage.ts";
import { resultEvent, StreamJsonLines, toolResultsEvent, type ResultInfo } from "../../src/stream-json.ts";

const base: ResultInfo = {
  end: "done", isError: false, text: "ok", turns: 2, durationMs: 12.6, apiMs: 7.2, sessionId: "abc", model: "m",
  usage: emptyUsage(), costUSD: 0.5, permissionDenials: [],
};

describe("stream-json events", () => {
  test("a tool_result always says is_error, true or false", () => {
    const e = toolResultsEvent([{ type: "tool_result", tool_use_id: "t1", content: "fine" }, { type: "tool_result", tool_use_id: "t2", content: "no", is_error: true }], "abc");
    expect(e).toEqual({
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "fine", is_error: false }, { type: "tool_result", tool_use_id: "t2", content: "no", is_error: true }] },
      parent_tool_use_id: null,
      session_id: "abc",
    });
  });

  test("the result's subtype follows how the turn ended; an unsaved session's session_id is null, the key always there (N13-03)", () => {
    expect(resultEvent(base)).toMatchObject({ subtype: "success", is_error: false, num_turns: 2, duration_ms: 13, duration_api_ms: 7, session_id: "abc", total_cost_usd: 0.5 });
    expect(resultEvent({ ...base, end: "max_turns", isError: true })).toMatchObject({ subtype: "error_max_turns" });
    const failed = resultEvent({ ...base, end: "error", isError: true, error: "API error 500", sessionId: null }) as Record<string, unknown>;
    expect(failed).toMatchObject({ subtype: "error_during_execution", error: "API error 500" });
    expect(failed).toHaveProperty("session_id", null);
  });

  test("init goes out first: with the session's id at the first reply, what came before after it; without a reply, with no id, before the result", () => {
    const setUp = () => {
      const out: Record<string, unknown>[] = [];
      const lines = new StreamJsonLines((e) => out.push(e as Record<string, unknown>), (id) => ({ type: "init", session_id: id }), () => "s1");
      return { out, lines };
    };
    const ok = setUp();
    ok.lines.write((id) => ({ type: "retry", session_id: id }));
    expect(ok.out).toEqual([]);
    ok.lines.saved();
    ok.lines.write((id) => ({ type: "assistant", session_id: id }));
    ok.lines.result((id) => ({ type: "result", session_id: id }), "s1");
    expect(ok.out).toEqual([
      { type: "init", session_id: "s1" },
      { type: "retry", session_id: "s1" },
      { type: "assistant", session_id: "s1" },
      { type: "result", session_id: "s1" },
    ]);

    const failed = setUp();
    failed.lines.write((id) => ({ type: "retry", session_id: id }));
    failed.lines.result((id) => ({ type: "result", session_id: id }), null);
    expect(failed.out).toEqual([
      { type: "init", session_id: null },
      { type: "retry", session_id: null },
      { type: "result", session_id: null },
    ]);
  });
});
