// Red team 5, F11: bare --allow-net shares the machine's network namespace,
// and with it every abstract Unix socket (X11, a session bus). Real runs: a
// host service on an abstract socket is reached unconfined (the control) and
// refused from the sandbox under bare --allow-net; the network itself, and
// the command's own abstract sockets, still work there.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { parseMcpServers } from "../../../src/mcp/config.ts";
import { launchStdio } from "../../../src/mcp/sandbox.ts";
import { detectSandbox, planSandbox } from "../../../src/sandbox/detect.ts";
import { ABSTRACT_SCOPE_ABI, abstractSocketsNotice, canScopeAbstractSockets, keepingFd, runScoped, scopedArgv } from "../../../src/sandbox/landlock.ts";
import { runAllowed } from "../../support/confined.ts";
import { unseenDir } from "../../support/context.ts";

const base = unseenDir("bunker-landlock-");
const root = join(base, "ws");
const home = join(base, "home");
mkdirSync(root);
mkdirSync(home);
const env = { PATH: "/usr/bin:/bin", HOME: home };

/** A service of the person's on an abstract socket; what it was sent, and how often it was reached. */
const received: string[] = [];
const service: Server = createServer((c) => {
  c.on("data", (d) => received.push(d.toString()));
  c.end("hello from the host\n");
});
const NAME = `bunker-test-${process.pid}`;
await new Promise<void>((r) => service.listen(`\0${NAME}`, r));
/** An ordinary loopback server, as a command under --allow-net would use the network. */
const web = createServer((c) => c.end("HTTP/1.0 200 OK\r\n\r\nloopback ok\n"));
await new Promise<void>((r) => web.listen(0, "127.0.0.1", r));
const webPort = (web.address() as { port: number }).port;
afterAll(() => {
  service.close();
  web.close();
  rmSync(base, { recursive: true, force: true });
});

const connect = `python3 -c 'import socket;s=socket.socket(socket.AF_UNIX);s.connect("\\0${NAME}");s.sendall(b"from the command");print(s.recv(100).decode().strip())' 2>&1 | tail -1`;

describe.skipIf(detectSandbox().kind !== "bubblewrap" || !canScopeAbstractSockets())("bare --allow-net: the machine's abstract sockets stay out of reach", () => {
  test("control: unconfined, the command reaches the host's abstract socket", async () => {
    received.length = 0;
    expect(await runAllowed(root, connect, { env, home, sandbox: "off", allowNet: true })).toContain("hello from the host");
    expect(received).toEqual(["from the command"]);
  });

  test("red team 5, F11: in the sandbox with bare --allow-net the connection is refused and the service hears nothing", async () => {
    received.length = 0;
    const out = await runAllowed(root, connect, { env, home, allowNet: true });
    expect(out).toContain("PermissionError: [Errno 1] Operation not permitted");
    expect(out).not.toContain("hello from the host");
    expect(received).toEqual([]);
  });

  test("the network still works: a loopback server on the host, and an abstract socket the command makes itself", async () => {
    const out = await runAllowed(root, `exec 3<>/dev/tcp/127.0.0.1/${webPort}; printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3; tail -1 <&3; python3 -c '
import os, socket
s = socket.socket(socket.AF_UNIX); s.bind("\\0own"); s.listen(1)
if os.fork() == 0:
    c = socket.socket(socket.AF_UNIX); c.connect("\\0own"); c.sendall(b"own socket ok"); os._exit(0)
print(s.accept()[0].recv(20).decode())'`, { env, home, allowNet: true });
    expect(out).toContain("loopback ok");
    expect(out).toContain("own socket ok");
  });

  test("an MCP server under bare --allow-net is started the same way: the host's abstract socket refused", async () => {
    received.length = 0;
    const raw = { command: "/usr/bin/python3", args: ["-c", `import socket;s=socket.socket(socket.AF_UNIX);s.connect("\\0${NAME}");print(s.recv(100).decode())`] };
    const def = parseMcpServers({ s: raw }, { source: "user", file: "f", root, home, env: {}, defaultTimeoutMs: 1 }).servers[0]!;
    const l = await launchStdio(def, { root, plan: planSandbox("on", detectSandbox()), stateDir: join(base, "state"), allowNetAll: true, denyHosts: [], denyAllNet: false, env, home });
    expect(l.network).toBe("all");
    const p = Bun.spawn([l.command, ...l.args], { env: l.env, cwd: l.cwd, stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    await l.close();
    // Both walls hold: the Landlock domain around bwrap, and the server's filter, which refuses the socket itself
    // (no-unix-sockets.ts) before Landlock's scope would refuse its connection (Errno 1).
    expect([l.command, ...l.args]).toContain("__scope-abstract");
    expect(err).toContain("PermissionError: [Errno 13] Permission denied");
    expect(out).not.toContain("hello from the host");
    expect(received).toEqual([]);
  });
});

describe("the wrapper", () => {
  test("bwrap's command line is wrapped in bunker's own subcommand", () => {
    const argv = scopedArgv(["/usr/bin/bwrap", "--", "sh"]);
    expect(argv.slice(-5)).toEqual(["__scope-abstract", "--", "/usr/bin/bwrap", "--", "sh"]);
  });

  test("a malformed call runs nothing and exits 126", () => {
    expect(runScoped(["/bin/true"])).toBe(126);
    expect(runScoped(["--", "true"])).toBe(126);
  });

  test("the start-up note says so when the kernel cannot scope abstract sockets, and only then", () => {
    expect(abstractSocketsNotice(ABSTRACT_SCOPE_ABI)).toBeNull();
    expect(abstractSocketsNotice(3)).toBe(
      "Bare --allow-net shares this machine's network with commands and MCP servers, and this kernel's Landlock (ABI 3; 6 is needed, Linux 6.12) cannot keep them from its abstract Unix sockets (an X11 display, a session bus): they can reach those. Grant hosts by name (--allow-net=HOST, and a server's \"net\" list) to give them a network of their own.",
    );
    expect(abstractSocketsNotice(0)).toContain("(no Landlock; 6 is needed, Linux 6.12)");
  });

});

describe("keepingFd", () => {
  test("asks the wrapper to hand a descriptor on, and leaves other command lines alone", () => {
    const argv = scopedArgv(["/usr/bin/bwrap", "--", "sh"]);
    const kept = keepingFd(argv, 4);
    expect(kept.slice(kept.indexOf("__scope-abstract"), kept.indexOf("__scope-abstract") + 4)).toEqual(["__scope-abstract", "--keep-fd", "4", "--"]);
    expect(keepingFd(["/usr/bin/bwrap", "--", "sh"], 4)).toEqual(["/usr/bin/bwrap", "--", "sh"]);
  });
});
