// Journals of headless sessions (sessions.db.pending/) that cannot be read
// are set aside, said once, and no longer counted or read at every start; a
// FIFO planted under a journal's name does not hang bunker. Real binary, the
// scripted server.
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply } from "../support/fake-anthropic/steps.ts";
import { endToEnd, runHeadless } from "../support/cli.ts";

const e2e = endToEnd("bunker-session-journals-");

test("a damaged journal and a FIFO named as one: the run that opens the store goes on, sets both aside and says so once each; the next says nothing", async () => {
  e2e.serve([reply("One."), reply("Two.")]);
  const { root, env } = e2e.workspace();
  const pending = join(env.HOME!, ".local", "state", "bunker", "sessions.db.pending");
  mkdirSync(pending, { recursive: true });
  writeFileSync(join(pending, "aaaaaaaaaa.999999999-1.jsonl"), "not a journal line\n");
  expect(Bun.spawnSync(["mkfifo", join(pending, "bbbbbbbbbb.999999999-1.jsonl")]).exitCode).toBe(0);
  // -c opens the store, which folds what waits (before, reading the FIFO blocked bunker for good).
  const first = await runHeadless(root, env, ["-p", "hi", "-c"]);
  expect(first.code).toBe(0);
  expect(first.stdout).toBe("One.\n");
  const said = first.stderr.split("\n").filter((l) => l.includes("A saved headless session could not be read"));
  expect(said).toHaveLength(2);
  expect(said.join("\n")).toContain("(its lines are damaged, or written by a newer bunker): it is kept as");
  expect(said.join("\n")).toContain("(bbbbbbbbbb.999999999-1.jsonl is a named pipe (FIFO), not a regular file; bunker did not read it)");
  const kept = readdirSync(pending).filter((n) => n.includes(".unread-"));
  expect(kept).toHaveLength(2);
  const second = await runHeadless(root, env, ["-p", "hi", "-c"]);
  expect(second.code).toBe(0);
  expect(second.stderr).not.toContain("could not be read");
  expect(readdirSync(pending).filter((n) => n.includes(".unread-")).sort()).toEqual(kept.sort());
}, 30_000);

test("bunker --resume (listed, no terminal) says once what it set aside", async () => {
  e2e.serve([reply("One.")]);
  const { root, env } = e2e.workspace();
  const pending = join(env.HOME!, ".local", "state", "bunker", "sessions.db.pending");
  mkdirSync(pending, { recursive: true });
  writeFileSync(join(pending, "cccccccccc.999999999-1.jsonl"), "not a journal line\n");
  const listed = await runHeadless(root, env, ["--resume"]);
  expect(listed.code).toBe(0);
  expect(listed.stdout).toStartWith("No saved sessions in");
  expect(listed.stderr).toContain(`bunker: A saved headless session could not be read (its lines are damaged, or written by a newer bunker): it is kept as ${join(pending, "cccccccccc.999999999-1.jsonl.unread-")}`);
  expect((await runHeadless(root, env, ["--resume"])).stderr).toBe("");
});
