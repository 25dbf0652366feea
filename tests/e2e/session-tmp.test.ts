// A session's commands share one /tmp and /var/tmp (new user 11's N11-22): `build > /tmp/out` and then `cat /tmp/out`
// found nothing, each command having an empty /tmp of its own, unlike Claude Code and Codex. It is a private folder of
// bunker's, never the machine's /tmp, removed when bunker exits; a line that runs unasked because it only reads sees
// it read-only, and nothing a command started outlives it to serve the next one through it.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { BUNKER, endToEnd, quitWithCtrlD, runHeadless, toolResults, waitForCount } from "../support/cli.ts";
import { tmuxAvailable } from "../support/tmux.ts";
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

describe.skipIf(!usable)("the session's /tmp has a size limit (on disk, so watched: session-tmp.ts)", () => {
  test("a command that makes /tmp grow past the limit is stopped with a status that says so; bunker goes on; while it is over, a command that adds to it is stopped, one that removes files there runs, and one that stays under the limit after it works", async () => {
    fake = runs.start([]);
    const { root, env } = runs.workspace("bunker-session-tmp-", fake.url);
    fake.push(
      reply([
        // 1 MB every 50 ms: 100 MB in about 5 s, against a limit of 20 MB.
        run("for i in $(seq 1 100); do head -c 1048576 /dev/zero > /tmp/f$i; sleep 0.05; done; echo finished"),
        // Over the limit still: a command that adds to it is stopped at its first look.
        run("head -c 1048576 /dev/zero > /tmp/more; sleep 2; echo added"),
        run("ls /tmp | wc -l; rm -f /tmp/f* /tmp/more; echo cleaned"),
        run("head -c 5000000 /dev/zero > /tmp/small && echo ok"),
      ]),
      reply("Done."),
    );
    const r = await runHeadless(root, { ...env, BUNKER_SESSION_TMP_MB: "20" }, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [filled, more, cleaned, small] = toolResults(fake.requests[1]);
    expect(filled!.is_error).toBe(true);
    expect(filled!.content).toMatch(/^stopped by bunker: the session's \/tmp and \/var\/tmp grew to \d+ MB, past their limit of 20 MB, so the command and its children were stopped\./);
    expect(filled!.content).toContain("remove what is not needed (rm -rf /tmp/NAME)");
    expect(filled!.content).not.toContain("finished");
    expect(more!.content).toMatch(/^stopped by bunker: the session's \/tmp and \/var\/tmp grew to/);
    expect(more!.content).not.toContain("added");
    // Stopped near the limit, not at the end of the loop.
    const files = Number(/^\d+$/m.exec(cleaned!.content)?.[0]);
    expect(files).toBeGreaterThan(15);
    expect(files).toBeLessThan(60);
    expect(cleaned!.content).toContain("cleaned");
    expect(small!.content).toBe("exit code 0\n\nok");
  });

  test("a command quicker than the first look that leaves /tmp past the limit is reported failed when it ends, and so is each that adds to it while it is over; removing files works (reviewer's R13-02, R13-09)", async () => {
    fake = runs.start([]);
    const { root, env } = runs.workspace("bunker-session-tmp-fast-", fake.url);
    fake.push(reply([run("head -c 30000000 /dev/zero > /tmp/a && echo one"), run("head -c 3000000 /dev/zero > /tmp/b && echo two"), run("rm -f /tmp/a /tmp/b; echo cleaned")]), reply("Done."));
    const r = await runHeadless(root, { ...env, BUNKER_SESSION_TMP_MB: "20" }, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [one, two, cleaned] = toolResults(fake.requests[1]);
    expect(one!.is_error).toBe(true);
    expect(one!.content).toMatch(/^failed by bunker \(the command itself exited 0\): it left the session's \/tmp and \/var\/tmp at 29 MB, past their limit of 20 MB/);
    expect(one!.content).toContain("\n\none");
    expect(two!.is_error).toBe(true);
    expect(two!.content).toMatch(/^(failed|stopped) by bunker/);
    expect(cleaned!.content).toBe("exit code 0\n\ncleaned");
    expect(cleaned!.is_error).toBeFalsy();
  });
});

const e2e = endToEnd("bunker-session-tmp-");
describe.skipIf(!usable || !tmuxAvailable)("/clear empties the session's /tmp (in a real terminal)", () => {
  test("a file a command left in /tmp is there for the next command, and gone after /clear, which says so", async () => {
    const marker = `c${process.pid}${Date.now()}`;
    const served = e2e.serve([
      reply([run(`echo kept > /tmp/${marker} && echo wrote`)]),
      reply("Wrote it."),
      reply([run(`cat /tmp/${marker}`)]),
      reply("Read it."),
      reply([run(`cat /tmp/${marker} || echo no-file; ls -A /tmp`)]),
      reply("Looked again."),
    ]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "--allow-run", "write it"], { cwd: root, env });
    await waitForCount(tmux, "Wrote it.", 1);
    tmux.keys(["read it", "Enter"]);
    await waitForCount(tmux, "Read it.", 1);
    tmux.keys(["/clear", "Enter"]);
    const screen = await waitForCount(tmux, "The commands' shared /tmp was emptied.", 1);
    expect(screen).toContain("Conversation cleared");
    tmux.keys(["look again", "Enter"]);
    await waitForCount(tmux, "Looked again.", 1);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    const results = served.requests.flatMap((req) => toolResults(req));
    expect(results.map((x) => x.content)).toEqual(["exit code 0\n\nwrote", "exit code 0\n\nkept", expect.stringContaining("no-file")]);
    // Nothing else is there either (the workspace is under the test's /tmp, so its folder shows; so does bunker's own
    // checkout when it is under /tmp, bound in for the mount checker).
    const shownAnyway = (n: string) => root.startsWith(`/tmp/${n}`) || import.meta.dir.startsWith(`/tmp/${n}/`);
    expect(results[2]!.content.split("no-file\n")[1]!.split("\n").filter((n) => !shownAnyway(n))).toEqual([]);
  });
});
