// A socket masked before a command that goes away before bubblewrap starts (another program's, under a wide read
// grant such as --allow-read=/): bwrap cannot make the mount point in the read-only folder, and the command failed
// without running. It is looked at again and run once more.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { createRunBashTool } from "../../../src/tools/run-bash.ts";
import type { ToolOutput } from "../../../src/tools/tool.ts";
import { makeContext, unseenDir } from "../../support/context.ts";
import { socketRaceFixture } from "../../support/socket-race.ts";

const usable = detectSandbox().kind === "bubblewrap";

describe.skipIf(!usable)("a masked socket that vanishes before bwrap starts", () => {
  const race = socketRaceFixture();
  afterAll(() => race.cleanUp());

  test("the command still runs, once, with a fresh look at the sockets", async () => {
    const { base, root, shared, sock } = await race.make("bunker-socket-race-");
    const grants = emptyGrants();
    grants.allow.run.all = true;
    grants.allow.write.workspace = true;
    grants.allow.read.paths.push(shared);
    const ctx = makeContext(root, { grants });
    const tool = createRunBashTool({
      sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false, grants, env: { PATH: "/usr/bin:/bin" }, home: join(base, "home"), killGraceMs: 300,
      // The other program's socket goes away after the look, before bwrap starts.
      beforeStart: () => rmSync(sock, { force: true }),
    });
    const r = (await tool.run({ command: "echo ran >> runs.txt; cat runs.txt" }, ctx)) as Exclude<ToolOutput, string>;
    expect(r.content).not.toContain("bwrap:");
    expect(r.content).toStartWith("exit code 0");
    expect(r.content.match(/ran/g)?.length).toBe(1);
  });
});

// Reviewer's R12-04: the "nothing ran" decision was made from the command's own output. A command that moved a masked
// socket's folder away (the mask moves with it) and printed bwrap's error line for it was run a second time, unasked.
// Whether bwrap set the sandbox up is now read from bwrap's status descriptor, which the command cannot write.
describe.skipIf(!usable)("a command that prints a forged bwrap setup error", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  // With the network shared, bwrap runs under bunker's Landlock wrapper, which hands the status descriptor on.
  test.each([false, true])("runs exactly once (network shared: %p)", async (allowNet) => {
    const base = unseenDir("bunker-forged-bwrap-");
    dirs.push(base);
    const root = join(base, "ws");
    mkdirSync(join(root, "s"), { recursive: true });
    // A socket in the workspace, as a dev server leaves one: masked for the command.
    const server = createServer();
    await new Promise<void>((ok) => server.listen(join(root, "s", "x.sock"), ok));
    try {
      const grants = emptyGrants();
      grants.allow.run.all = true;
      grants.allow.write.workspace = true;
      const ctx = makeContext(root, { grants });
      const tool = createRunBashTool({ sandbox: "on", allowNet, allowEnv: [], gitWritable: false, grants, env: { PATH: "/usr/bin:/bin" }, home: join(base, "home"), killGraceMs: 300 });
      const command = `mv s s2; echo run >> count; printf 'bwrap: Can%st create file at %s: Read-only file system\\n' "'" "$PWD/s/x.sock"; exit 1`;
      const r = (await tool.run({ command }, ctx)) as Exclude<ToolOutput, string>;
      expect(r.content).toStartWith("exit code 1");
      expect(readFileSync(join(root, "count"), "utf8")).toBe("run\n");
    } finally {
      server.close();
    }
  });
});
