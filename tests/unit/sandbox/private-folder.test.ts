import { afterAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { keepPrivateIn, privateFolder, processFolder } from "../../../src/sandbox/private-folder.ts";
import { processStart } from "../../../src/fs/process-id.ts";
import { tempDir } from "../../support/context.ts";
import { asPerson } from "../../support/run-sandboxed-as.ts";

const state = tempDir("bunker-private-");
afterAll(() => rmSync(state, { recursive: true, force: true }));

test("private files go in the state folder once it is known", () => {
  keepPrivateIn(join(state, "state"));
  expect(privateFolder()).toBe(join(state, "state"));
});

test("a process folder is this process's own, owner-only; one left by a bunker that is gone is removed, a running one's kept", () => {
  const parent = join(state, "state");
  mkdirSync(join(parent, "bunker-x-999999999-1"), { recursive: true });
  // The parent of this test (bun) is running: its folder stays.
  const live = `bunker-x-${process.ppid}-${processStart(process.ppid)}`;
  mkdirSync(join(parent, live));
  const dir = processFolder("bunker-x");
  expect(dir).toBe(join(parent, `bunker-x-${process.pid}-${processStart(process.pid)}`));
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(readdirSync(parent).sort()).toEqual([live, `bunker-x-${process.pid}-${processStart(process.pid)}`].sort());
  expect(existsSync(join(parent, "bunker-x-999999999-1"))).toBe(false);
});

test.skipIf(process.getuid?.() !== 0)("a folder another user's bunker left in a shared $TMPDIR is left alone, and this bunker's own is made all the same", () => {
  // /tmp as it is: sticky, everyone's; the stale folder root's (a bunker of root's that was killed).
  const shared = tempDir("bunker-private-shared-");
  chmodSync(shared, 0o1777);
  mkdirSync(join(shared, "bunker-x-999999999-1"));
  writeFileSync(join(shared, "bunker-x-999999999-1", "list"), "x");
  const code = `const { processFolder } = require(${JSON.stringify(join(import.meta.dir, "../../../src/sandbox/private-folder.ts"))}); console.log(processFolder("bunker-x"));`;
  const r = Bun.spawnSync(asPerson([process.execPath, "-e", code]), { env: { PATH: process.env.PATH, TMPDIR: shared }, stdout: "pipe", stderr: "pipe" });
  expect(r.stderr.toString()).toBe("");
  expect(r.exitCode).toBe(0);
  expect(r.stdout.toString().trim()).toStartWith(join(shared, "bunker-x-"));
  expect(existsSync(join(shared, "bunker-x-999999999-1", "list"))).toBe(true);
});

test("a state folder that cannot be made: this process's folders go in $TMPDIR instead (reviewer's R10-13)", () => {
  keepPrivateIn("/etc/passwd/state/bunker");
  const dir = processFolder("bunker-y");
  expect(dir.startsWith((process.env.TMPDIR || "/tmp").replace(/(.)\/+$/, "$1") + "/bunker-y-")).toBe(true);
  expect(existsSync(dir)).toBe(true);
});
