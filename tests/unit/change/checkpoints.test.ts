// Checkpoints through the real tools and the real session store: /undo and
// /rewind put files back byte for byte, name and leave alone a file changed
// since, bring deleted files back with their mode; and the store stays small.
import { describe, expect, test } from "bun:test";
import { bunkerNote, History, messagesBefore } from "../../../src/agent/history.ts";
import { chmodSync, lstatSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Checkpoints, takeBackNote } from "../../../src/change/checkpoints.ts";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { SessionStore } from "../../../src/session/store.ts";
import { applyPatchTool } from "../../../src/tools/apply-patch.ts";
import { editFileTool } from "../../../src/tools/edit-file.ts";
import { readFileTool } from "../../../src/tools/read-file.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { writeFileTool } from "../../../src/tools/write-file.ts";
import { makeContext, tempDir, type TestContext } from "../../support/context.ts";
import { readTree, workspaceWith } from "../../support/tree.ts";
import { measureStoreGrowth } from "../../../scripts/bench/checkpoints.ts";

const registry = new ToolRegistry([readFileTool, editFileTool, writeFileTool, applyPatchTool]);

function setup(files: Record<string, string>) {
  const root = workspaceWith(files, "bunker-cp-");
  const store = SessionStore.open(join(tempDir("bunker-state-"), "sessions.db"));
  const history = new History();
  const checkpoints = new Checkpoints(store, () => "s1", () => history.messages);
  const grants = emptyGrants();
  grants.allow.write.workspace = true;
  const ctx = makeContext(root, { grants });
  ctx.changes!.onCommitted = (tool, f) => checkpoints.record(tool, f, (l) => { throw new Error(l); });
  /** A turn: the prompt goes into the history as the loop puts it (into a trailing note of bunker's), then the tools run. */
  const turn = async (prompt: string, calls: [string, Record<string, unknown>][]) => {
    checkpoints.onTurnStart();
    history.addUser(prompt);
    history.addAssistant("ok");
    for (const [name, input] of calls) {
      const r = await registry.run(name, input, ctx);
      if (r.isError) throw new Error(r.content);
    }
  };
  return { root, store, checkpoints, ctx, turn, history };
}

const read = (path: string): [string, Record<string, unknown>] => ["read_file", { path }];

describe("checkpoints", () => {
  test("/undo takes back the last turn byte for byte; /rewind to turn 1 takes back both, saying what it did", async () => {
    const original = "line one\r\nline two\r\n\tünïcode\r\n";
    const { root, checkpoints, ctx, turn } = setup({ "a.txt": original });
    await turn("change a", [read("a.txt"), ["edit_file", { path: "a.txt", old_string: "one", new_string: "ONE" }]]);
    const afterTurn1 = readFileSync(join(root, "a.txt"));
    await turn("add b and change a again", [["write_file", { path: "b.txt", content: "bee\n" }], ["edit_file", { path: "a.txt", old_string: "two", new_string: "TWO" }]]);

    const turns = checkpoints.turns();
    expect(turns.map((t) => [t.number, t.prompt, t.files, t.added, t.removed])).toEqual([
      [1, "change a", ["a.txt"], 1, 1],
      [2, "add b and change a again", ["b.txt", "a.txt"], 2, 1],
    ]);
    expect((await checkpoints.undo(ctx, turns[1]!, { force: false })).said).toBe('Took back turn 2 ("add b and change a again"): removed b.txt, restored a.txt.');
    expect(readFileSync(join(root, "a.txt"))).toEqual(afterTurn1);
    expect(readTree(root)).toEqual({ "a.txt": afterTurn1.toString("latin1") });

    await turn("again", [read("a.txt"), ["edit_file", { path: "a.txt", old_string: "ünïcode", new_string: "x" }]]);
    const all = checkpoints.turns();
    expect(all.map((t) => t.prompt)).toEqual(["change a", "again"]);
    expect((await checkpoints.undo(ctx, all[0]!, { force: false })).said).toBe('Took back turn 1 ("change a") and the turns after it: restored a.txt.');
    expect(readFileSync(join(root, "a.txt"), "latin1")).toBe(Buffer.from(original).toString("latin1"));
    expect(checkpoints.turns()).toEqual([]);
  });

  test("a file edited by hand since is named and left alone; force takes it back too, asked first even where writes are granted", async () => {
    const { root, checkpoints, ctx, turn } = setup({ "a.txt": "a\n", "b.txt": "b\n" });
    await turn("change both", [read("a.txt"), read("b.txt"), ["write_file", { path: "a.txt", content: "A\n" }], ["write_file", { path: "b.txt", content: "B\n" }]]);
    writeFileSync(join(root, "b.txt"), "B, and my own edit\n");
    const [t] = checkpoints.turns();
    expect((await checkpoints.undo(ctx, t!, { force: false })).said).toBe(
      'Took back turn 1 ("change both"): restored a.txt. Left alone, because it was changed after bunker\'s change (by you or a command): b.txt. Add "force" to take it back too.',
    );
    expect(readTree(root)).toEqual({ "a.txt": "a\n", "b.txt": "B, and my own edit\n" });
    const [left] = checkpoints.turns();
    expect(left!.files).toEqual(["b.txt"]);
    // Writes are granted (--allow-write), but force would lose the hand edit: not done unasked.
    const grants = emptyGrants();
    grants.allow.write.workspace = true;
    const loses = 'b.txt was changed after bunker\'s change (by you or a command); taking it back with "force" loses those changes';
    // Nobody to ask (--no-prompt, or no terminal): refused with what to do, the hand edit kept.
    const headless = makeContext(root, { grants, interactive: false });
    await expect(checkpoints.undo(headless, left!, { force: true })).rejects.toThrow(`${loses}. bunker asks before overwriting changes it did not make, and it is not asking (no terminal or --no-prompt): run it in a terminal to see what would be lost and confirm, or save those changes elsewhere first`);
    expect(readTree(root)).toEqual({ "a.txt": "a\n", "b.txt": "B, and my own edit\n" });
    // Asked, with the diff that shows the hand edit going, and what it loses; a no keeps it.
    const refusing = makeContext(root, { grants, answers: [{ answer: "deny" }] });
    await expect(checkpoints.undo(refusing, left!, { force: true })).rejects.toThrow("The person refused");
    expect(refusing.approver.asked).toHaveLength(1);
    expect(refusing.approver.asked[0]!.loses).toBe(loses);
    expect(refusing.approver.asked[0]!.files![0]!.diff).toContain("-B, and my own edit");
    expect(readTree(root)).toEqual({ "a.txt": "a\n", "b.txt": "B, and my own edit\n" });
    const confirming = makeContext(root, { grants, answers: [{ answer: "once" }] });
    expect((await checkpoints.undo(confirming, left!, { force: true })).said).toBe('Took back turn 1 ("change both"): restored b.txt.');
    expect(readTree(root)).toEqual({ "a.txt": "a\n", "b.txt": "b\n" });
    // Without a hand edit in the way, force asks nothing where writes are granted (ctx's grants).
    expect(ctx.approver.asked).toHaveLength(0);
  });

  test("a deleted file comes back with its mode; a moved file goes back to its old name; the person is asked with the diff", async () => {
    const { root, checkpoints, turn } = setup({ "run.sh": "#!/bin/sh\necho hi\n", "old/m.txt": "m\n" });
    chmodSync(join(root, "run.sh"), 0o750);
    await turn("tidy", [["apply_patch", { patch: "*** Begin Patch\n*** Delete File: run.sh\n*** Update File: old/m.txt\n*** Move to: new/m.txt\n@@\n-m\n+M\n*** End Patch\n" }]]);
    expect(readTree(root)).toEqual({ "new/": "<dir>", "new/m.txt": "M\n" });
    const asking = makeContext(root, { answers: [{ answer: "once" }] });
    const { said } = await checkpoints.undo(asking, checkpoints.turns()[0]!, { force: false });
    expect(said).toBe('Took back turn 1 ("tidy"): brought back run.sh, brought back old/m.txt, removed new/m.txt.');
    expect(asking.approver.asked).toHaveLength(1);
    expect(asking.approver.asked[0]!.files!.map((f) => `${f.kind} ${f.display}`)).toEqual(["create run.sh", "create old/m.txt", "delete new/m.txt"]);
    expect(readTree(root)).toEqual({ "old/": "<dir>", "old/m.txt": "m\n", "run.sh": "#!/bin/sh\necho hi\n" });
    expect(statSync(join(root, "run.sh")).mode & 0o777).toBe(0o750);
  });

  test("a moved file whose old name holds a new file since is kept where it is, not removed with its content nowhere on disk (red team 8)", async () => {
    const { root, checkpoints, ctx, turn } = setup({ "a.txt": "moved content\n" });
    await turn("rename", [["apply_patch", { patch: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n*** End Patch\n" }]]);
    expect(readTree(root)).toEqual({ "b.txt": "moved content\n" });
    writeFileSync(join(root, "a.txt"), "the person's new a\n");
    const { said } = await checkpoints.undo(ctx, checkpoints.turns()[0]!, { force: false });
    expect(said).toBe('Nothing of turn 1 ("rename") was taken back. Left alone, because it was changed after bunker\'s change (by you or a command): a.txt. Add "force" to take it back too. Kept b.txt: it holds what a file left alone held before, which would otherwise be nowhere on disk.');
    expect(readTree(root)).toEqual({ "a.txt": "the person's new a\n", "b.txt": "moved content\n" });
  });

  test("a file a command made a FIFO, a link to /dev/zero or a 2 GB sparse file is named and kept, never waited on; the rest is taken back", async () => {
    const files = { "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt": "d\n" };
    const { root, checkpoints, ctx, turn } = setup(files);
    await turn("change all", Object.keys(files).flatMap((name) => [read(name), ["write_file", { path: name, content: name.toUpperCase() }] as [string, Record<string, unknown>]]));
    // What a command (allowed to write the workspace) can do to the model's files before the person's /undo.
    rmSync(join(root, "a.txt"));
    expect(Bun.spawnSync(["mkfifo", join(root, "a.txt")]).exitCode).toBe(0);
    rmSync(join(root, "b.txt"));
    symlinkSync("/dev/zero", join(root, "b.txt"));
    truncateSync(join(root, "d.txt"), 2 ** 31);
    for (const force of [false, true]) {
      const t0 = performance.now();
      const { said } = await checkpoints.undo(ctx, checkpoints.turns()[0]!, { force });
      expect(performance.now() - t0).toBeLessThan(2000);
      const couldNot =
        "a.txt is a named pipe (FIFO), not a regular file; bunker did not read it; b.txt is a symbolic link; bunker did not follow it or read it; d.txt is 2.0 GB, more than the 64.0 MB bunker reads of it; bunker did not read it";
      expect(said).toBe(`${force ? 'Nothing of turn 1 ("change all") was taken back.' : 'Took back turn 1 ("change all"): restored c.txt.'} Not taken back (still kept for /undo): ${couldNot}.`);
      // Nothing of the person's (or the command's) was replaced, even with force.
      expect(lstatSync(join(root, "a.txt")).isFIFO()).toBe(true);
      expect(readlinkSync(join(root, "b.txt"))).toBe("/dev/zero");
      expect(statSync(join(root, "d.txt")).size).toBe(2 ** 31);
      expect(readFileSync(join(root, "c.txt"), "utf8")).toBe("c\n");
      expect(checkpoints.turns()[0]!.files).toEqual(["a.txt", "b.txt", "d.txt"]);
    }
  });

  test("turns keep their numbers (the person's Nth message) when others are taken back, and a note of bunker's before a prompt is not the prompt", async () => {
    const { root, checkpoints, ctx, turn, history } = setup({ "a.txt": "a\n" });
    await turn("write one", [["write_file", { path: "one.txt", content: "1\n" }]]);
    await turn("just a question", []);
    await turn("write three", [["write_file", { path: "three.txt", content: "3\n" }]]);
    await turn("write four", [["write_file", { path: "four.txt", content: "4\n" }]]);
    // Numbered by the person's messages: the question that changed nothing keeps its place.
    expect(checkpoints.turns().map((t) => [t.number, t.prompt])).toEqual([[1, "write one"], [3, "write three"], [4, "write four"]]);
    const three = checkpoints.turns()[1]!;
    const { restored } = await checkpoints.undo(ctx, three, { force: false });
    expect(restored).toEqual(["removed three.txt", "removed four.txt"]);
    // What bunker tells the model goes at the end, and the next prompt joins it (as the loop does).
    history.addUser([bunkerNote(takeBackNote(three, restored, "/rewind 3"))]);
    await turn("write five", [["write_file", { path: "five.txt", content: "5\n" }]]);
    // Turn 1 is still 1; the new turn is the person's fifth message, named by its own words, not the note's.
    const turns = checkpoints.turns();
    expect(turns.map((t) => [t.number, t.prompt])).toEqual([[1, "write one"], [5, "write five"]]);
    // Back to before turn 5: the note stays (the files are still taken back), the prompt goes.
    const before = messagesBefore(history.messages, turns[1]!.turn);
    expect(JSON.stringify(before.at(-1))).toContain("The person took back file changes with /rewind 3, to before their message 3");
    expect(JSON.stringify(before)).not.toContain("write five");
    expect(readTree(root)).toEqual({ "a.txt": "a\n", "one.txt": "1\n", "five.txt": "5\n" });
  });

  test("the note the model gets after a take-back names the files, the turn and how, and asks it to read them again", () => {
    const turn = { number: 2, turn: 2, at: 0, prompt: "change alpha", files: ["a.txt"], added: 1, removed: 1 };
    expect(takeBackNote(turn, ["restored a.txt"], "/undo")).toBe(
      'The person took back file changes with /undo, to before their message 2 ("change alpha"): restored a.txt. On disk this file no longer holds the changes made from that message on; read it again before relying on or editing it.',
    );
    expect(takeBackNote(turn, ["restored a.txt", "removed b.txt"], "bunker --undo")).toContain("removed b.txt. On disk these files no longer hold the changes made from that message on; read them again");
  });

  test("1,000 edits of a 100 KB file grow the store by less than 5 MB", () => {
    expect(measureStoreGrowth(1000, 100_000).grown).toBeLessThan(5_000_000);
  });
});
