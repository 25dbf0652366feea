// Store growth of checkpoints: 1,000 edits of a 100 KB file, each kept for
// /undo with its before and after bytes, through Checkpoints.record.
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Checkpoints } from "../../src/change/checkpoints.ts";
import { SessionStore } from "../../src/session/store.ts";
import type { BenchRow } from "./types.ts";

/** Bytes the store file grew by over `edits` one-spot edits of a `size`-byte text file. */
export function measureStoreGrowth(edits = 1000, size = 100_000): { grown: number; ms: number } {
  const dbPath = join(mkdtempSync(join(tmpdir(), "bunker-growth-")), "sessions.db");
  const words = ["alpha", "beta", "gamma", "delta", "const", "return", "function", "x", "42", "if"];
  let text = Array.from({ length: size / 4 }, (_, i) => words[(i * 7919) % 10]).join(" ").slice(0, size);
  SessionStore.open(dbPath).close();
  const start = Bun.file(dbPath).size;
  const store = SessionStore.open(dbPath);
  const history: MessageParam[] = [{ role: "user", content: "edit" }];
  const cp = new Checkpoints(store, () => "growth", () => history);
  const enc = new TextEncoder();
  const t0 = performance.now();
  for (let i = 0; i < edits; i++) {
    const before = enc.encode(text);
    const at = (i * 104_729) % (text.length - 20);
    text = `${text.slice(0, at)}edit${i}${text.slice(at + 6)}`;
    cp.record("edit_file", [{ real: "/w/big.txt", display: "big.txt", before, after: enc.encode(text), beforeMode: 0o644, afterMode: 0o644, added: 1, removed: 1 }], (l) => {
      throw new Error(l);
    });
  }
  const ms = performance.now() - t0;
  store.close(); // checkpoints the WAL into the file
  return { grown: Bun.file(dbPath).size - start, ms };
}

export async function bench(): Promise<BenchRow[]> {
  const { grown, ms } = measureStoreGrowth();
  return [
    { name: "checkpoints: store growth for 1,000 edits of a 100 KB file", value: Math.round((grown / 1024 / 1024) * 100) / 100, unit: "MiB", target: "< 5 MB", ok: grown < 5_000_000 },
    { name: "checkpoints: keeping one edit (before + after) of a 100 KB file", value: Math.round((ms / 1000) * 100) / 100, unit: "ms" },
  ];
}
