// Whether the writer of a journal or a running turn is still running: a pid
// alone is not enough, since pids are reused (src/fs/process-id.ts).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { idRunning, isRunning, processStart, selfId } from "../../../src/fs/process-id.ts";
import { until } from "../../support/wait.ts";

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

test.skipIf(process.platform !== "linux")("a process that has exited but is not yet collected by its parent (a zombie) is not running", async () => {
  // `sleep 30` takes over the shell and never waits: the backgrounded sleep, ending after that exec (a shell may collect
  // a job that ends before it), stays a zombie until the group ends.
  const parent = Bun.spawn(["sh", "-c", "sleep 0.3 & echo $!; exec sleep 30"], { stdout: "pipe" });
  try {
    // Only the first line: the pipe stays open while `sleep` runs.
    const { value } = await parent.stdout.getReader().read();
    const pid = Number(new TextDecoder().decode(value).split("\n")[0]);
    await until(() => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z"), "the child to exit uncollected");
    expect(isRunning(pid, null)).toBe(false);
    expect(idRunning(`${pid}:${processStart(pid)}`)).toBe(false);
  } finally {
    parent.kill("SIGKILL");
  }
});
