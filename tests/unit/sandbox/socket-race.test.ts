// A socket masked before a command that goes away before bubblewrap starts (another program's, under a wide read
// grant such as --allow-read=/): bwrap cannot make the mount point in the read-only folder, and the command failed
// without running. It is looked at again and run once more.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { createRunBashTool } from "../../../src/tools/run-bash.ts";
import type { ToolOutput } from "../../../src/tools/tool.ts";
import { makeContext } from "../../support/context.ts";
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
