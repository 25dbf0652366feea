// Whether Ctrl+Z can stop bunker as a shell job (src/ui/job-control.ts): only with a job-control shell above it.
// (The case where one is, bunker started from an interactive bash, runs in tmux: tests/e2e/repl-screen.test.ts.)
import { expect, test } from "bun:test";
import { canSuspend } from "../../../src/ui/job-control.ts";

test("a process in its parent's own process group (as under a test runner, a pane's own command, ssh) cannot suspend", () => {
  const child = Bun.spawnSync(["bun", "-e", `import { canSuspend } from ${JSON.stringify(`${import.meta.dir}/../../../src/ui/job-control.ts`)}; console.log(canSuspend())`], { stdout: "pipe" });
  expect(child.stdout.toString().trim()).toBe("false");
  // (This test process itself may be in a group of its own under bun test --parallel: only its answer's type is sure.)
  expect(typeof canSuspend()).toBe("boolean");
});
