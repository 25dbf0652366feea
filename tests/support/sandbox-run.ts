// For tests that run the binary against the scripted server in the real
// sandbox: one server and a few folders where no sandbox looks (/srv), per
// test, stopped and removed after it.
import { afterEach } from "bun:test";
import { rmSync } from "node:fs";
import { unseenDir } from "./context.ts";
import { startFakeAnthropic, type FakeAnthropic } from "./fake-anthropic.ts";
import type { Step } from "./fake-anthropic/steps.ts";

export function sandboxRuns(): { start(steps: Step[]): FakeAnthropic; dir(prefix: string): string } {
  let fake: FakeAnthropic | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await fake?.stop();
    fake = undefined;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return {
    start: (steps) => (fake = startFakeAnthropic(steps)),
    dir(prefix) {
      const d = unseenDir(prefix);
      dirs.push(d);
      return d;
    },
  };
}
