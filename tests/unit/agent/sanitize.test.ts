// A reply goes back to the API unchanged unless the API would reject it: then
// the bad block is repaired or its call refused, so the session survives.
import { describe, expect, test } from "bun:test";
import type { ContentBlock } from "@anthropic-ai/sdk/resources/messages";
import { sanitizeReply } from "../../../src/agent/sanitize.ts";

const text = (t: string): ContentBlock => ({ type: "text", text: t, citations: null }) as ContentBlock;
const use = (id: unknown, name: unknown, input: unknown): ContentBlock => ({ type: "tool_use", id, name, input }) as ContentBlock;

describe("sanitizeReply", () => {
  test("a valid reply comes back as it was, with nothing refused or changed", () => {
    const content = [text("Reading."), use("toolu_1", "read_file", { path: "a.txt" })];
    const r = sanitizeReply(content);
    expect(r.content).toEqual(content);
    expect(r.refused.size).toBe(0);
    expect(r.changes).toEqual([]);
  });

  test("whitespace-only text is dropped (the API rejects empty text blocks)", () => {
    const r = sanitizeReply([text("  \n"), text("kept")]);
    expect(r.content).toEqual([text("kept")]);
    expect(r.changes).toEqual(["dropped an empty text block"]);
  });

  test("an invalid id, or one already used in the conversation or the reply, gets a fresh unique id", () => {
    const r = sanitizeReply([use("bad id!", "read_file", {}), use("toolu_old", "read_file", {}), use("toolu_2", "grep", {}), use("toolu_2", "glob", {})], new Set(["toolu_old"]));
    const ids = r.content.map((b) => (b as { id: string }).id);
    expect(ids[2]).toBe("toolu_2");
    for (const k of [0, 1, 3]) expect(ids[k]).toMatch(/^toolu_bunker_[0-9a-f]{20}$/);
    expect(new Set(ids).size).toBe(4);
    expect(r.changes).toHaveLength(3);
    expect(r.changes[1]).toContain('"toolu_old" was repeated');
    expect(r.refused.size).toBe(0);
  });

  for (const [input, says] of [
    [null, "its input must be a JSON object, not null"],
    [[1, 2], "its input must be a JSON object, not an array"],
    ["path=a.txt", "its input must be a JSON object, not a string"],
  ] as const) {
    test(`input ${JSON.stringify(input)} is not run: it keeps {} and is answered with an error`, () => {
      const r = sanitizeReply([use("toolu_x", "read_file", input)]);
      expect(r.content).toEqual([use("toolu_x", "read_file", {})]);
      expect(r.refused.get("toolu_x")).toBe(`Error: this read_file call was not run: ${says}. Call the tool again with a JSON object matching its schema.`);
    });
  }

  test("input nested past 64 levels is refused without overflowing the stack", () => {
    let deep: Record<string, unknown> = {};
    const top = deep;
    for (let i = 0; i < 100_000; i++) deep = (deep.a = {}) as Record<string, unknown>;
    const r = sanitizeReply([use("toolu_d", "grep", top)]);
    expect(r.refused.get("toolu_d")).toContain("nested more than 64 levels deep");
  });

  test("an invalid tool name is refused under a valid placeholder name", () => {
    const r = sanitizeReply([use("toolu_n", "rm -rf /", { a: 1 })]);
    expect(r.content).toEqual([use("toolu_n", "invalid_tool_name", {})]);
    expect(r.refused.get("toolu_n")).toContain("its tool name is not a valid name");
  });
});
