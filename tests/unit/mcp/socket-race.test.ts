// An MCP server's start had the race 0e6bf22 fixed for commands: a socket masked for it that goes away before
// bubblewrap starts (another program's, under a read grant that shows it) leaves bwrap unable to make the mount point
// in the read-only folder, and the server "did not start". It is looked at again and started once more.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { parseMcpServers } from "../../../src/mcp/config.ts";
import { McpConnection } from "../../../src/mcp/connection.ts";
import { detectSandbox, planSandbox } from "../../../src/sandbox/detect.ts";
import { socketRaceFixture } from "../../support/socket-race.ts";
import { testServer } from "../../support/mcp.ts";

const usable = detectSandbox().kind === "bubblewrap";

describe.skipIf(!usable)("a socket masked for an MCP server that vanishes before bwrap starts", () => {
  const race = socketRaceFixture();
  afterAll(() => race.cleanUp());

  test("the server still starts, with a fresh look at the sockets", async () => {
    const { base, root, shared, sock } = await race.make("bunker-mcp-socket-race-");
    const [def] = parseMcpServers({ c: testServer(["--name", "c"]) }, { source: "user", file: "f", root, home: join(base, "home"), env: {}, defaultTimeoutMs: 5000 }).servers;
    const said: string[] = [];
    const conn = new McpConnection(
      def!,
      {
        root, plan: planSandbox("on", detectSandbox()), stateDir: join(base, "state"), allowNetAll: false, denyHosts: [], denyAllNet: false,
        env: process.env, home: join(base, "home"), grantedRead: [shared],
        // The other program's socket goes away after the look, before bwrap starts.
        beforeSpawn: () => rmSync(sock, { force: true }),
      },
      { onState: (_c, line) => line && said.push(line) },
      60_000,
    );
    try {
      await conn.start();
      expect(said.filter((l) => l.includes("bwrap"))).toEqual([]);
      expect(conn.state).toBe("ready");
    } finally {
      await conn.stop();
    }
  }, 90_000);
});
