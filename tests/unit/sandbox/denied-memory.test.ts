import { expect, test } from "bun:test";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deniedMemoryFile, KEEP_MS, MAX_KEPT, readRemembered, writeRemembered, type Remembered } from "../../../src/sandbox/denied-memory.ts";
import { tempDir } from "../../support/context.ts";

test("what one session remembers the next reads back, owner-only, one file per workspace", () => {
  const state = tempDir("bunker-denied-memory-");
  const file = deniedMemoryFile(state, "/work/project");
  expect(deniedMemoryFile(state, "/work/other")).not.toBe(file);
  const now = Date.now();
  writeRemembered(file, [["**/er/*", "1:2:3", now]], now);
  // Another rule's files are kept beside this one's; the same file again is one entry, seen last.
  writeRemembered(file, [["secrets/**", "4:5:6", now + 1], ["**/er/*", "1:2:3", now + 2]], now + 2);
  expect(readRemembered(file, now + 2).sort()).toEqual([["**/er/*", "1:2:3", now + 2], ["secrets/**", "4:5:6", now + 1]]);
  expect(statSync(file).mode & 0o777).toBe(0o600);
});

test("bounded: the newest MAX_KEPT, none unseen for longer than KEEP_MS; a damaged or foreign file is read as nothing", () => {
  const file = deniedMemoryFile(tempDir("bunker-denied-memory-"), "/w");
  const now = Date.now();
  const many: Remembered[] = Array.from({ length: MAX_KEPT + 10 }, (_, i) => ["r", `id${i}`, now - i]);
  writeRemembered(file, many, now);
  const kept = readRemembered(file, now);
  expect(kept).toHaveLength(MAX_KEPT);
  expect(kept.some((e) => e[1] === `id${MAX_KEPT + 5}`)).toBe(false);
  expect(readRemembered(file, now + KEEP_MS + MAX_KEPT + 20)).toEqual([]);
  writeFileSync(file, "{not json");
  expect(readRemembered(file)).toEqual([]);
  writeFileSync(file, JSON.stringify({ entries: [["r", 1, "x"], "y"] }));
  expect(readRemembered(file)).toEqual([]);
  expect(readRemembered(join(file, "..", "missing.json"))).toEqual([]);
});
