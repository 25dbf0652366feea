// Whether the writer of a journal or a running turn is still running: a pid
// alone is not enough, since pids are reused (src/fs/process-id.ts).
import { expect, test } from "bun:test";
import { idRunning, isRunning, processStart, selfId } from "../../../src/fs/process-id.ts";

test("this process is running, under its own id", () => {
  expect(selfId()).toBe(`${process.pid}:${processStart(process.pid)}`);
  expect(idRunning(selfId())).toBe(true);
  expect(isRunning(process.pid, null)).toBe(true);
});

test("a process that has exited is not running", async () => {
  const child = Bun.spawn(["true"]);
  const id = `${child.pid}:${processStart(child.pid)}`;
  await child.exited;
  // Reaped: its /proc entry is gone (or, were the pid reused, its start time differs).
  expect(idRunning(id)).toBe(false);
});

test.skipIf(process.platform !== "linux")("a pid that is running but started at another time is another process (a reused pid)", () => {
  expect(isRunning(process.pid, "1")).toBe(false);
  expect(idRunning(`${process.pid}:not-its-start`)).toBe(false);
});

test.each([0, -1, 1.5, Number.NaN])("%p is no process", (pid) => {
  expect(isRunning(pid, null)).toBe(false);
});
