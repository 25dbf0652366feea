// The intent journal of a multi-file commit (src/fs/journal.ts): kept in the
// state directory, readable by the next start, and only a dead writer's
// journal is taken up for recovery (a running bunker's is left alone).
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Journal, orphanedJournals, type JournalEntry } from "../../../src/fs/journal.ts";
import { tempDir } from "../../support/context.ts";

const steps = [{ op: "delete" as const, target: "/ws/a.ts", backup: "/ws/.a.ts.bak" }];

test("a journal is written, private, for its workspace; done removes it", () => {
  const dir = join(tempDir("bunker-journal-"), "journal");
  const j = Journal.begin(dir, "/ws", "apply_patch", steps, []);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(statSync(j.path).mode & 0o777).toBe(0o600);
  const saved = JSON.parse(readFileSync(j.path, "utf8")) as JournalEntry;
  expect(saved).toMatchObject({ v: 1, pid: process.pid, root: "/ws", label: "apply_patch", phase: "prepare", steps });
  j.entry.phase = "commit";
  j.flush();
  expect((JSON.parse(readFileSync(j.path, "utf8")) as JournalEntry).phase).toBe("commit");
  expect(readdirSync(dir)).toEqual([j.path.slice(dir.length + 1)]);
  j.done();
  expect(readdirSync(dir)).toEqual([]);
});

test("a running writer's journal is not an orphan; a dead writer's is, for its own workspace only", () => {
  const dir = join(tempDir("bunker-journal-"), "journal");
  const live = Journal.begin(dir, "/ws", "edit_file", steps, []);
  expect(orphanedJournals(dir, "/ws")).toEqual([]);
  // The same journal as a killed bunker leaves it: its pid is no longer running as that process.
  live.entry.started = "not-this-process";
  live.flush();
  expect(orphanedJournals(dir, "/ws").map((o) => o.path)).toEqual([live.path]);
  expect(orphanedJournals(dir, "/other")).toEqual([]);
});

test("an unreadable journal is left for a person; a half-written first journal of a dead writer is removed; no folder is no journals", () => {
  const dir = join(tempDir("bunker-journal-"), "journal");
  const j = Journal.begin(dir, "/ws", "write_file", steps, []);
  const prefix = j.path.slice(dir.length + 1).split("-")[0]!;
  writeFileSync(join(dir, `${prefix}-1-broken.json`), "{ not json");
  writeFileSync(join(dir, `${prefix}-999999999-half.json.tmp`), "{");
  j.done();
  expect(orphanedJournals(dir, "/ws")).toEqual([]);
  expect(readdirSync(dir)).toEqual([`${prefix}-1-broken.json`]);
  expect(orphanedJournals(join(dir, "none"), "/ws")).toEqual([]);
});
