// Saved sessions: what one save (after every round) and one load (-c) cost
// for a long conversation: 200 messages, about 1 MB of tool output.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { SessionStore } from "../../src/session/store.ts";
import { timeMedian, type BenchRow } from "./types.ts";

function conversation(rounds: number): MessageParam[] {
  const messages: MessageParam[] = [{ role: "user", content: "refactor the parser" }];
  for (let i = 0; i < rounds; i++) {
    messages.push({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "read_file", input: { path: `src/file${i}.ts` } }] });
    const body = Array.from({ length: 120 }, (_, k) => `${k + 1}\texport const value${k} = compute(${k}, "${i}");`).join("\n");
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: body }] });
  }
  return messages;
}

export async function bench(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "bunker-bench-sessions-"));
  try {
    const store = SessionStore.open(join(dir, "sessions.db"));
    const messages = conversation(100);
    const kb = JSON.stringify(messages).length / 1024;
    let version: number | null = null;
    const save = () => {
      const v = store.save("benchsess1", { root: "/ws", model: "m" }, { messages, todos: [] }, version);
      if (v === "conflict") throw new Error("conflict");
      version = v;
    };
    const saveMs = await timeMedian(30, save);
    const loadMs = await timeMedian(30, () => store.latest("/ws"));
    store.close();
    return [
      { name: `session save after a round (${messages.length} messages, ${Math.round(kb)} KB)`, value: Number(saveMs.toFixed(2)), unit: "ms", target: "< 20 ms", ok: saveMs < 20 },
      { name: "session load for -c (same conversation)", value: Number(loadMs.toFixed(2)), unit: "ms", target: "< 50 ms", ok: loadMs < 50 },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
