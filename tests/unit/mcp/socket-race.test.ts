// An MCP server's start had the race 0e6bf22 fixed for commands: a socket masked for it that goes away before
// bubblewrap starts (another program's, under a read grant that shows it) leaves bwrap unable to make the mount point
// in the read-only folder, and the server "did not start". It is looked at again and started once more.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { parseMcpServers } from "../../../src/mcp/config.ts";
import { McpConnection } from "../../../src/mcp/connection.ts";
import { detectSandbox, planSandbox } from "../../../src/sandbox/detect.ts";
import { socketRaceFixture } from "../../support/socket-race.ts";
import { testServer } from "../../support/mcp.ts";
import { unseenDir } from "../../support/context.ts";

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

// Reviewer's R12-04, for servers: whether bwrap started the server is read from bwrap's status report, not from what
// the server prints. A server that moved a masked socket's folder and printed bwrap's error line for it was started again.
describe.skipIf(!usable)("an MCP server that prints a forged bwrap setup error and exits", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test("is started once, and said to have exited", async () => {
    const base = unseenDir("bunker-mcp-forged-bwrap-");
    dirs.push(base);
    const root = join(base, "ws");
    const notes = join(base, "notes");
    mkdirSync(root, { recursive: true });
    mkdirSync(join(notes, "s"), { recursive: true });
    const server = createServer();
    await new Promise<void>((ok) => server.listen(join(notes, "s", "x.sock"), ok));
    const script = `cd ${notes} && mv s s2; echo run >> count; printf 'bwrap: Can%st create file at %s: Read-only file system\\n' "'" "$PWD/s/x.sock" >&2; exit 1`;
    const [def] = parseMcpServers({ c: { command: "/bin/sh", args: ["-c", script], write: [notes] } }, { source: "user", file: "f", root, home: join(base, "home"), env: {}, defaultTimeoutMs: 5000 }).servers;
    const said: string[] = [];
    const conn = new McpConnection(
      def!,
      { root, plan: planSandbox("on", detectSandbox()), stateDir: join(base, "state"), allowNetAll: false, denyHosts: [], denyAllNet: false, env: process.env, home: join(base, "home") },
      { onState: (_c, line) => line && said.push(line) },
      60_000,
    );
    try {
      await conn.start().catch(() => undefined);
      expect(readFileSync(join(notes, "count"), "utf8")).toBe("run\n");
      expect(conn.state).toBe("failed");
    } finally {
      await conn.stop();
      server.close();
    }
  }, 90_000);
});
