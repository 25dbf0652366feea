// A session's commands share one /tmp and /var/tmp (new user 11's N11-22): `build > /tmp/out` and then `cat /tmp/out`
// found nothing, each command having an empty /tmp of its own, unlike Claude Code and Codex. It is a private folder of
// bunker's, never the machine's /tmp, removed when bunker exits; a line that runs unasked because it only reads sees
// it read-only, and nothing a command started outlives it to serve the next one through it.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
import type { FakeAnthropic } from "../support/fake-anthropic.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";

const usable = detectSandbox().kind === "bubblewrap";
const runs = sandboxRuns();
let fake: FakeAnthropic | undefined;
const run = (command: string) => toolUse("run_bash", { command });

describe.skipIf(!usable)("one /tmp for a session's commands", () => {
  test("a file one command leaves in /tmp or /var/tmp is there for the next; nothing a command started outlives it; gone at exit", async () => {
    fake = runs.start([]);
    const { root, env, home } = runs.workspace("bunker-session-tmp-", fake.url);
    const marker = `m${process.pid}${Date.now()}`;
    fake.push(
      reply([
        run(`echo built > /tmp/out-${marker} && echo kept > /var/tmp/v-${marker} && echo wrote`),
        run(`cat /tmp/out-${marker} /var/tmp/v-${marker}`),
        // A background process left by one command: gone before the next (the sandbox ends with its command).
        run(`(sleep 30; echo late > /tmp/late-${marker}) & mkfifo /tmp/fifo-${marker}; echo started`),
        run(`ls /tmp; test -e /tmp/late-${marker} && echo LATE || echo no-late`),
      ]),
      reply("Done."),
    );
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const results = toolResults(fake.requests[1]);
    expect(results[0]!.content).toBe("exit code 0\n\nwrote");
    expect(results[2]!.content).toBe("exit code 0\n\nstarted");
    expect(results[1]!.content).toContain("built\nkept");
    expect(results[3]!.content).toContain(`fifo-${marker}`);
    expect(results[3]!.content).toContain("no-late");
    // Not the machine's /tmp, and nothing of it is left once bunker has exited.
    expect(existsSync(`/tmp/out-${marker}`)).toBe(false);
    const state = join(home, ".local/state/bunker");
    const left = existsSync(state) ? readdirSync(state).filter((n) => n.startsWith("bunker-tmp-")) : [];
    expect(left).toEqual([]);
  });
});
