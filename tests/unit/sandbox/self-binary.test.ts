// bunker's binary as its sandboxes get it: handed to bwrap by descriptor, the file this process started from.
import { expect, test } from "bun:test";
import { fstatSync, statSync } from "node:fs";
import { inheritedFds, SANDBOX_SELF, SELF_FD, selfBinaryArgs, hostSelf } from "../../../src/sandbox/self-binary.ts";

test("a spawn whose bwrap binds the binary hands on one descriptor, of the running program's own file; any other spawn none", () => {
  expect(inheritedFds(["bwrap", "--ro-bind", "/usr", "/usr", "--", "sh", "-c", "true"])).toEqual([]);
  const argv = ["bunker", "__scope-abstract", "--", "bwrap", ...selfBinaryArgs(), "--", SANDBOX_SELF, "__check-mounts"];
  expect(selfBinaryArgs()).toEqual(["--ro-bind-fd", String(SELF_FD), SANDBOX_SELF]);
  const fds = inheritedFds(argv);
  expect(fds).toHaveLength(1);
  const running = statSync(process.execPath);
  expect(fstatSync(fds[0]!).ino).toBe(running.ino);
  // The same descriptor every time (opened once).
  expect(inheritedFds(argv)).toEqual(fds);
});

test("on the host the binary is started by this process's /proc link, which leads to its file whatever its path holds now", () => {
  expect(hostSelf()).toBe(`/proc/${process.pid}/exe`);
  expect(statSync(hostSelf()).ino).toBe(statSync(process.execPath).ino);
});
