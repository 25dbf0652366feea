// Red team 8's F11: a read-only mount does not stop connect(). A socket in the workspace (a project's database) or in
// a granted folder (the person's tmux under --allow-read=/tmp) let a command drive the program behind it. Real runs:
// a service on a Unix socket is reached unconfined (the control) and refused from the sandbox, in the workspace and
// in a granted folder, in every network mode; a grant naming the socket itself reaches it; the host's abstract
// sockets are out of reach in every mode too.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { detectSandbox, planSandbox, confine } from "../../../src/sandbox/detect.ts";
import { canScopeAbstractSockets } from "../../../src/sandbox/landlock.ts";
import { findSockets, liveSockets, SOCKET_LIMITS, socketsMasked } from "../../../src/sandbox/sockets.ts";
import { commandSandboxSpec } from "../../../src/tools/run-bash.ts";
import { runAllowed } from "../../support/confined.ts";
import { unseenDir } from "../../support/context.ts";

const base = unseenDir("bunker-sockets-");
const root = join(base, "ws");
const home = join(base, "home");
const shared = join(base, "shared"); // a folder the person grants for reading, holding someone's socket
for (const d of [root, home, join(root, ".pg"), join(shared, "tmux-1000")]) mkdirSync(d, { recursive: true });
const env = { PATH: "/usr/bin:/bin", HOME: home };

/** A service of the person's on a Unix socket: what it was sent. */
const heard: string[] = [];
const servers: Server[] = [];
async function serve(path: string): Promise<void> {
  const s = createServer((c) => {
    c.on("data", (d) => heard.push(`${path}: ${d}`));
    c.end("hello from the host\n");
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(path, r));
}
const dbSocket = join(root, ".pg", ".s.PGSQL.5432");
const tmuxSocket = join(shared, "tmux-1000", "default");
const ABSTRACT = `bunker-sockets-test-${process.pid}`;
await serve(dbSocket);
await serve(tmuxSocket);
await serve(`\0${ABSTRACT}`);
afterAll(() => {
  for (const s of servers) s.close();
  rmSync(base, { recursive: true, force: true });
});

/** A client as psql is one: the path in its refusal. Kept in a granted-by-nothing folder the sandbox shows (the workspace). */
const client = join(root, "client.py");
writeFileSync(client, `import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    sys.exit('connection to server on socket "%s" failed: %s (%s)' % (sys.argv[1], e.strerror, type(e).__name__))
s.sendall(b"COPY TO PROGRAM")
print(s.recv(100).decode().strip())
`);
const connect = (to: string) => `python3 ${client} '${to}' 2>&1 | tail -1`;
const connectAbstract = `python3 -c 'import socket;s=socket.socket(socket.AF_UNIX);s.connect("\\0${ABSTRACT}");s.sendall(b"abstract");print(s.recv(100).decode().strip())' 2>&1 | tail -1`;
const usable = detectSandbox().kind === "bubblewrap" && Bun.which("python3") !== null;

describe.skipIf(!usable)("Unix sockets in what a command sees are masked (red team 8 F11)", () => {
  test("control: unconfined, the command reaches both services", async () => {
    heard.length = 0;
    expect(await runAllowed(root, `${connect(dbSocket)}; ${connect(tmuxSocket)}`, { env, home, sandbox: "off", readPaths: [shared] })).toContain("hello from the host");
    expect(heard).toEqual([`${dbSocket}: COPY TO PROGRAM`, `${tmuxSocket}: COPY TO PROGRAM`]);
  });

  test("the workspace's database socket is refused, and the result says how to grant it", async () => {
    heard.length = 0;
    const out = await runAllowed(root, `${connect(dbSocket)}; exit 2`, { env, home });
    expect(out).toContain("Connection refused (ConnectionRefusedError)");
    expect(out).not.toContain("no network of its own");
    expect(out).toContain(`${dbSocket} is a Unix socket, and the sandbox keeps commands from the sockets in the workspace and granted folders`);
    expect(out).toContain(`--allow-read=${dbSocket}`);
    expect(heard).toEqual([]);
  });

  test("a socket in a folder granted for reading (--allow-read=/tmp's tmux) is refused, with and without the proxy and under bare --allow-net", async () => {
    for (const allowNet of [false, true]) {
      heard.length = 0;
      const out = await runAllowed(root, connect(tmuxSocket), { env, home, readPaths: [shared], allowNet });
      expect(out).toContain("ConnectionRefusedError");
      expect(heard).toEqual([]);
    }
    // The folder is shown all the same.
    expect(await runAllowed(root, `ls ${join(shared, "tmux-1000")}`, { env, home, readPaths: [shared] })).toContain("default");
  });

  test("a grant naming the socket itself lets commands connect to it", async () => {
    heard.length = 0;
    expect(await runAllowed(root, connect(dbSocket), { env, home, readPaths: [dbSocket] })).toContain("hello from the host");
    expect(await runAllowed(root, connect(tmuxSocket), { env, home, readPaths: [tmuxSocket] })).toContain("hello from the host");
    expect(heard.length).toBe(2);
  });

  test("a socket made after one command is masked for the next (a database started later)", async () => {
    const late = join(root, "run", "late.sock");
    mkdirSync(join(root, "run"));
    expect(await runAllowed(root, "ls run; echo listed", { env, home })).toContain("listed");
    await serve(late);
    heard.length = 0;
    expect(await runAllowed(root, connect(late), { env, home })).toContain("ConnectionRefusedError");
    expect(heard).toEqual([]);
  });

  test("a command that left more socket files than bunker masks one by one does not stop the next: their folder is hidden, the database socket still refused (red team 9 F08)", async () => {
    const left = join(root, ".cache", "s");
    const made = await runAllowed(root, `mkdir -p .cache/s && echo kept > .cache/s/notes.txt && python3 -c 'import socket
for i in range(70): socket.socket(socket.AF_UNIX).bind(".cache/s/%d.sock" % i)' && echo made`, { env, home });
    expect(made).toContain("made");
    try {
      heard.length = 0;
      const next = await runAllowed(root, `ls -A .cache/s | wc -l; ${connect(dbSocket)}`, { env, home });
      expect(next).not.toContain("not run");
      expect(next).toMatch(/exit code 0[^]*\n0\n[^]*ConnectionRefusedError/);
      expect(next).toContain(`note: the folder ${left}, full of Unix sockets, is hidden from this command`);
      expect(heard).toEqual([]);
    } finally {
      rmSync(join(root, ".cache"), { recursive: true, force: true });
    }
  });

  test("one socket in each of 65 folders does not stop the next command either: the folder above them is hidden (red team 9 F08, spread out)", async () => {
    const made = await runAllowed(root, `python3 -c 'import socket, os
for i in range(65):
    os.makedirs(".cache/s%d" % i)
    socket.socket(socket.AF_UNIX).bind(".cache/s%d/x.sock" % i)' && echo made`, { env, home });
    expect(made).toContain("made");
    try {
      heard.length = 0;
      const next = await runAllowed(root, `ls -A .cache | wc -l; ${connect(dbSocket)}`, { env, home });
      expect(next).not.toContain("not run");
      expect(next).toMatch(/exit code 0[^]*\n0\n[^]*ConnectionRefusedError/);
      expect(next).toContain(`note: the folder ${join(root, ".cache")}, full of Unix sockets, is hidden from this command`);
      expect(heard).toEqual([]);
    } finally {
      rmSync(join(root, ".cache"), { recursive: true, force: true });
    }
  });

  test("a folder full of sockets that holds something else hidden (bunker's state folder) is hidden whole, and the next command runs", async () => {
    const sessionsDir = join(root, ".state", "bunker");
    mkdirSync(sessionsDir, { recursive: true });
    writeFileSync(join(sessionsDir, "sessions.db"), "the person's sessions");
    try {
      const made = await runAllowed(root, `python3 -c 'import socket
for i in range(65): socket.socket(socket.AF_UNIX).bind(".state/%d.sock" % i)' && echo made`, { env, home, sessionsDir });
      expect(made).toContain("made");
      const next = await runAllowed(root, "ls -A .state | wc -l; cat .state/bunker/sessions.db", { env, home, sessionsDir });
      expect(next).not.toContain("bwrap");
      expect(next).toMatch(/\n0\n/);
      expect(next).not.toContain("the person's sessions");
      expect(next).toContain(`note: the folder ${join(root, ".state")}, full of Unix sockets, is hidden from this command`);
    } finally {
      rmSync(join(root, ".state"), { recursive: true, force: true });
    }
  });

  test("the host's abstract sockets are out of reach in every network mode: none, the proxy's, bare --allow-net", async () => {
    heard.length = 0;
    // No network at all (a line that only reads gets this namespace), built as run_bash builds it.
    const spec = commandSandboxSpec("ls", root, { sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false, env, home }, true, true);
    const argv = confine(planSandbox("on", detectSandbox()) as never, spec, ["sh", "-c", connectAbstract], "");
    const none = Bun.spawnSync(argv, { env, stdout: "pipe", stderr: "pipe" });
    expect(none.stdout.toString()).toContain("ConnectionRefusedError");
    // The proxy's mode: a network namespace of its own.
    expect(await runAllowed(root, connectAbstract, { env, home })).toContain("ConnectionRefusedError");
    // Bare --allow-net shares the machine's network: Landlock's scope keeps the host's abstract sockets out.
    if (canScopeAbstractSockets()) expect(await runAllowed(root, connectAbstract, { env, home, allowNet: true })).toContain("Operation not permitted");
    expect(heard).toEqual([]);
  });
});

describe("the look for sockets", () => {
  test("finds sockets at any depth, not in folders skipped (mounted over)", () => {
    const w = findSockets([root, shared], new Set([join(root, "run")]));
    expect(w.sockets.sort()).toEqual([dbSocket, tmuxSocket].sort());
  });

  test("past the look's bounds (a grant of /), the sockets this machine's programs listen on are masked where shown", () => {
    const spec = commandSandboxSpec("ls", root, { sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false, env, home, grants: grantsReading(shared) }, true, true);
    const r = socketsMasked(spec, { ...SOCKET_LIMITS, maxDirs: 1 });
    expect("spec" in r && r.spec.hidden).toEqual(expect.arrayContaining([dbSocket, tmuxSocket]));
    expect(liveSockets()).toEqual(expect.arrayContaining([dbSocket, tmuxSocket]));
  });

  test("past the bounds in the workspace, which a command may fill with folders to hide a socket it moved: not run", () => {
    const spec = commandSandboxSpec("make", root, { sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false, env, home }, true, false);
    const r = socketsMasked(spec, { ...SOCKET_LIMITS, maxWritableDirs: 2 });
    expect("refused" in r && r.refused).toContain(`${root}, which commands may write, holds more than 2 folders, and a socket past that could not be masked`);
    expect("spec" in socketsMasked(spec)).toBe(true);
  });

  test("more sockets than it masks one by one: not run", () => {
    const spec = commandSandboxSpec("ls", root, { sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false, env, home, grants: grantsReading(shared) }, true, true);
    const r = socketsMasked(spec, { ...SOCKET_LIMITS, maxSockets: 1 });
    expect("refused" in r && r.refused).toMatch(/there are \d+ sockets there \(in .*tmux-1000.*\), more than the 1 it masks one by one/);
    const ok = socketsMasked(spec);
    expect("spec" in ok && ok.spec.hidden).toContain(tmuxSocket);
  });
});

function grantsReading(path: string) {
  const { emptyGrants } = require("../../../src/perms/policy.ts") as typeof import("../../../src/perms/policy.ts");
  const g = emptyGrants();
  g.allow.read.paths.push(path);
  return g;
}
