// The intent journal of a multi-file commit (src/fs/journal.ts): kept in the
// state directory, readable by the next start, and only a dead writer's
// journal is taken up for recovery (a running bunker's is left alone).
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Journal, journalProblem, journalsToRecover, KEEP_REFUSED_MS, sideFileName, type JournalEntry } from "../../../src/fs/journal.ts";

const orphanedJournals = (dir: string, root: string) => journalsToRecover(dir, root).recover;
import { tempDir } from "../../support/context.ts";

const steps = [{ op: "delete" as const, target: "/ws/a.ts", backup: `/ws/${sideFileName("/ws/a.ts", 12, "ab3", "bak")}` }];

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

test("an unreadable journal is set aside for a person; a half-written first journal of a dead writer is removed; no folder is no journals", () => {
  const dir = join(tempDir("bunker-journal-"), "journal");
  const j = Journal.begin(dir, "/ws", "write_file", steps, []);
  const prefix = j.path.slice(dir.length + 1).split("-")[0]!;
  writeFileSync(join(dir, `${prefix}-1-broken.json`), "{ not json");
  writeFileSync(join(dir, `${prefix}-999999999-half.json.tmp`), "{");
  j.done();
  const before = Date.now();
  const found = journalsToRecover(dir, "/ws");
  expect(found.recover).toEqual([]);
  // Kept for a person under another name (dated), so that it is not read (nor said) again at every start.
  expect(found.refused).toEqual([{ path: join(dir, `${prefix}-1-broken.json`), keptAs: expect.stringMatching(/-1-broken\.json\.refused-\d+$/), why: "it is damaged" }]);
  const kept = readdirSync(dir);
  expect(kept).toEqual([found.refused[0]!.keptAs!.slice(dir.length + 1)]);
  expect(Number(kept[0]!.split("refused-")[1])).toBeGreaterThanOrEqual(before);
  expect(journalsToRecover(dir, "/ws")).toEqual({ recover: [], refused: [] });
  // Removed once kept 30 days; a younger one stays.
  writeFileSync(join(dir, `${prefix}-2-old.json.refused-${Date.now() - KEEP_REFUSED_MS - 60_000}`), "{");
  journalsToRecover(dir, "/ws");
  expect(readdirSync(dir)).toEqual(kept);
  expect(orphanedJournals(join(dir, "none"), "/ws")).toEqual([]);
});

test("a journal is bunker's only when every path lies inside its workspace and every temp and backup file is beside its file under bunker's name", () => {
  const side = (target: string, ext: "tmp" | "bak") => `${target.slice(0, target.lastIndexOf("/"))}/${sideFileName(target, 7, "k2x9", ext)}`;
  const entry = (over: Partial<JournalEntry>): JournalEntry => ({ v: 1, pid: 7, started: "x", root: "/ws", label: "apply_patch", at: 1, phase: "commit", steps: [], dirs: [], ...over });
  const write = (target: string) => ({ op: "write" as const, target, tmp: side(target, "tmp"), backup: side(target, "bak"), hash: "h" });
  expect(journalProblem(entry({ steps: [write("/ws/src/a.ts")], dirs: ["/ws/src"] }), "/ws")).toBeNull();
  expect(journalProblem(entry({ steps: [{ op: "move", from: "/ws/a", fromBackup: side("/ws/a", "bak"), target: "/ws/b/c", tmp: side("/ws/b/c", "tmp"), hash: "h" }] }), "/ws")).toBeNull();
  for (const [steps, dirs, why] of [
    [[write("/home/u/.bashrc")], [], "it names /home/u/.bashrc, outside the workspace"],
    [[write("/ws/../etc/passwd")], [], "it names /ws/../etc/passwd, outside the workspace"],
    [[write("/ws")], [], "it names /ws, outside the workspace"],
    [[{ ...write("/ws/a.ts"), tmp: "/home/u/.ssh/id_ed25519" }], [], "its temporary files for /ws/a.ts are not bunker's"],
    [[{ ...write("/ws/a.ts"), backup: "/ws/other.ts" }], [], "its temporary files for /ws/a.ts are not bunker's"],
    [[{ ...write("/ws/a.ts"), tmp: side("/ws/b.ts", "tmp") }], [], "its temporary files for /ws/a.ts are not bunker's"],
    [[{ op: "delete", target: "/ws/a.ts", backup: side("/ws/a.ts", "tmp") }], [], "its temporary files for /ws/a.ts are not bunker's"],
    [[{ op: "move", from: "/etc/hosts", fromBackup: side("/etc/hosts", "bak"), target: "/ws/b", tmp: side("/ws/b", "tmp"), hash: "h" }], [], "it names /etc/hosts, outside the workspace"],
    [[write("/ws/a.ts")], ["/tmp"], "it names /tmp, outside the workspace"],
    [[write("/ws/a.ts")], ["/ws/elsewhere"], "it names a folder, /ws/elsewhere, that holds none of its files"],
    [[{ op: "chmod", target: "/ws/a.ts" }], [], "it is damaged"],
    [[], [], "it is damaged"],
  ] as [JournalEntry["steps"], string[], string][]) {
    expect(journalProblem(entry({ steps, dirs }), "/ws")).toBe(why);
  }
  expect(journalProblem(entry({ v: 2 as 1, steps: [write("/ws/a")] }), "/ws")).toBe("it was written by another version of bunker");
  expect(journalProblem("[]", "/ws")).toBe("it is not a journal");
});
