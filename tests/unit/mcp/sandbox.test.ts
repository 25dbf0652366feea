import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseMcpServers } from "../../../src/mcp/config.ts";
import { LaunchError, launchStdio, resolveProgram, serverGate, serverStateDir, type LaunchContext } from "../../../src/mcp/sandbox.ts";
import { distrustForHostPrograms } from "../../../src/sandbox/host-program.ts";
import { detectSandbox, planSandbox } from "../../../src/sandbox/detect.ts";
import { tempDir } from "../../support/context.ts";
import { BUN, MCP_SERVER_SCRIPT } from "../../support/mcp.ts";

const def = (raw: Record<string, unknown>, source: "user" | "project" = "user") =>
  parseMcpServers({ s: raw }, { source, file: "f", root: "/ws", home: "/h", env: {}, defaultTimeoutMs: 1 }).servers[0]!;

const context = (over: Partial<LaunchContext> = {}): LaunchContext => {
  const base = tempDir();
  return {
    root: base, plan: { confined: false }, stateDir: join(base, "state"), allowNetAll: false, denyHosts: [], denyAllNet: false,
    env: { PATH: process.env.PATH, HOME: "/h", GITHUB_TOKEN: "secret", LANG: "C" }, home: "/h", ...over,
  };
};

test("the gate lets a server reach only its own net list, less what is denied everywhere, and says why not", async () => {
  const gate = serverGate(def({ command: "x", net: ["api.example.com", "127.0.0.2:8080"] }), ["127.0.0.2:8080"]);
  expect(await gate.admit("api.example.com", 443)).toBeNull();
  expect(await gate.admit("evil.example", 443)).toBe('the MCP server s may reach only the hosts its "net" list in your settings.json grants (api.example.com, 127.0.0.2:8080)');
  expect(await gate.admit("127.0.0.2", 8080)).not.toBeNull();
  expect(gate.addressGranted("127.0.0.2", 8080)).toBe(false);
});

test("a bare --allow-net narrowed by --deny-net: every host but the denied, through the proxy; a loopback address only when its net list names it (red team 11's F06)", async () => {
  const gate = serverGate(def({ command: "x", net: ["127.0.0.2:8080"] }), ["pastebin.com", "127.0.0.3"], true);
  expect(await gate.admit("api.example.com", 443)).toBeNull();
  expect(await gate.admit("pastebin.com", 443)).toBe("pastebin.com:443 is denied (--deny-net or a net: deny rule)");
  expect(await gate.admit("127.0.0.3", 80)).toBe("127.0.0.3:80 is denied (--deny-net or a net: deny rule)");
  // "Every host" is no grant by address: the proxy refuses the machine's own and local addresses unless named.
  expect(gate.addressGranted("127.0.0.1", 5432)).toBe(false);
  expect(gate.addressGranted("127.0.0.2", 8080)).toBe(true);
  // What the consent question and /mcp say it gets.
  const { launchView } = await import("../../../src/mcp/sandbox.ts");
  const view = launchView(def({ command: BUN }), context({ plan: planSandbox("auto", detectSandbox()), allowNetAllBut: true, denyHosts: ["pastebin.com"] }));
  if (view.sandboxed) expect([view.network, view.deniedHosts]).toEqual(["all-but", ["pastebin.com"]]);
});

test("state directories: one per user server; a project's per workspace, apart from the user's", () => {
  expect(serverStateDir("/st", def({ command: "x" }), "/ws")).toBe("/st/mcp/s");
  const project = serverStateDir("/st", def({ command: "x" }, "project"), "/ws");
  expect(project).toMatch(/^\/st\/mcp\/project-[0-9a-f]{12}\/s$/);
  expect(serverStateDir("/st", def({ command: "x" }, "project"), "/other")).not.toBe(project);
});

test("unconfined: the program itself, secrets scrubbed from the environment except what the definition sets", async () => {
  const l = await launchStdio(def({ command: BUN, args: [MCP_SERVER_SCRIPT], env: { API_KEY: "given" } }), context());
  expect([l.command, ...l.args]).toEqual([BUN, MCP_SERVER_SCRIPT]);
  expect(l.env.GITHUB_TOKEN).toBeUndefined();
  expect(l.env.API_KEY).toBe("given");
  expect(l.env.LANG).toBe("C");
  expect(l.env.BUNKER_MCP_STATE_DIR).toBe(l.stateDir);
  expect(l.network).toBe("all");
  await l.close();
});

test.skipIf(detectSandbox().kind !== "bubblewrap")("in bubblewrap: workspace read-only, its state directory writable, no network, its own files shown", async () => {
  const ctx = context({ plan: planSandbox("on", detectSandbox()) });
  const l = await launchStdio(def({ command: BUN, args: [MCP_SERVER_SCRIPT] }), ctx);
  const argv = [l.command, ...l.args].join(" ");
  expect(argv).toContain(`--ro-bind ${ctx.root} ${ctx.root}`);
  expect(argv).toContain(`--bind ${l.stateDir} ${l.stateDir}`);
  expect(argv).not.toContain("--share-net");
  expect(argv).toContain(`-- ${BUN} ${MCP_SERVER_SCRIPT}`);
  expect(l.network).toBe("none");
});

test("a program that is not there, or --sandbox on without a sandbox: a LaunchError that says so", async () => {
  await expect(launchStdio(def({ command: "no-such-program-here" }), context())).rejects.toThrow('the program "no-such-program-here" was not found on PATH');
  await expect(launchStdio(def({ command: BUN }), context({ plan: { confined: false, refuse: "no sandbox here" } }))).rejects.toBeInstanceOf(LaunchError);
});

test.skipIf(detectSandbox().kind !== "bubblewrap")("a path named in the arguments is shown, unless it is a credential store (or a link to one), or, for a project's server, in the home directory", async () => {
  const base = tempDir();
  const home = join(base, "home");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  mkdirSync(join(home, "tools"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), "KEY");
  writeFileSync(join(home, "tools", "conf.json"), "{}");
  symlinkSync(join(home, ".ssh", "id_rsa"), join(base, "innocent.txt"));
  const args = [join(home, ".ssh", "id_rsa"), join(base, "innocent.txt"), join(home, "tools", "conf.json")];
  const shown = async (source: "user" | "project") => {
    // bun itself granted, where it lies outside the system directories (under /tmp): a project's server is not shown it.
    const ctx = context({ plan: planSandbox("on", detectSandbox()), home, env: { PATH: process.env.PATH, HOME: home }, grantedRead: [BUN] });
    const l = await launchStdio(def({ command: BUN, args }, source), ctx);
    return [l.command, ...l.args].join(" ");
  };
  for (const source of ["user", "project"] as const) {
    const argv = await shown(source);
    expect(argv).not.toContain(`--ro-bind ${join(home, ".ssh", "id_rsa")}`);
    expect(argv).not.toContain(`--ro-bind ${join(base, "innocent.txt")}`);
  }
  expect(await shown("user")).toContain(`--ro-bind ${join(home, "tools", "conf.json")}`);
  expect(await shown("project")).not.toContain(`--ro-bind ${join(home, "tools", "conf.json")}`);
});

test.skipIf(detectSandbox().kind !== "bubblewrap")("a project's server whose program lies outside the workspace, off PATH: not started, and the error says how to grant it", async () => {
  const ctx = context({ plan: planSandbox("on", detectSandbox()) });
  const program = join(tempDir(), "srv");
  writeFileSync(program, "#!/bin/sh\n", { mode: 0o755 });
  await expect(launchStdio(def({ command: program }, "project"), ctx)).rejects.toThrow(`the program ${program} lies outside the workspace, and a project's server is not shown it; grant it with "read": ["${program}"] under mcpServers.s in your settings.json, or --allow-read=${program}`);
  const granted = await launchStdio(def({ command: program }, "project"), { ...ctx, grantedRead: [program] });
  expect([granted.command, ...granted.args].join(" ")).toContain(`--ro-bind ${program} ${program}`);
});

test.skipIf(detectSandbox().kind !== "bubblewrap")("a program started by a link where the sandbox shows nothing (its own /tmp) to one it shows: a user's server is shown the link; a project's is refused, saying how to grant it", async () => {
  const ctx = context({ plan: planSandbox("on", detectSandbox()) });
  const link = join(tempDir(), "bun");
  symlinkSync(BUN, link);
  const user = await launchStdio(def({ command: link, args: [MCP_SERVER_SCRIPT] }), ctx);
  expect([user.command, ...user.args].join(" ")).toContain(`--ro-bind ${link} ${link}`);
  await expect(launchStdio(def({ command: link }, "project"), ctx)).rejects.toThrow(`the program ${link} lies outside the workspace, and a project's server is not shown it; grant it with "read": ["${link}"]`);
});

test.skipIf(detectSandbox().kind !== "bubblewrap")("the wall's remembered walk of a write folder is keyed by the person's PATH folders: a program installed later makes the folder's same-named one read-only at the server's next start (real bubblewrap)", async () => {
  const base = tempDir();
  const tools = join(base, "tools");
  const sys = join(base, "sys");
  // A relative PATH entry (read in whatever folder the person is in), which no sandbox mounts as a toolchain folder.
  mkdirSync(join(tools, "node_modules/.bin"), { recursive: true });
  mkdirSync(sys);
  const tool = join(tools, "node_modules/.bin", "bunker-fmt-x");
  writeFileSync(tool, "#!/bin/sh\n");
  chmodSync(tool, 0o755);
  const ctx = context({ plan: planSandbox("on", detectSandbox()), env: { PATH: `node_modules/.bin:${sys}:/usr/bin:/bin`, HOME: base }, home: base });
  const server = def({ command: "/bin/sh", args: ["-c", `echo '# planted' >> ${tool} && echo wrote`], write: [tools] });
  const run = async () => {
    const l = await launchStdio(server, ctx);
    const r = Bun.spawnSync([l.command, ...l.args], { cwd: l.cwd, env: l.env, stdout: "pipe", stderr: "pipe" });
    await l.close();
    return r.stdout.toString() + r.stderr.toString();
  };
  // Past the walk's "changed just now" window, so its remembered answer for node_modules/.bin is what counts.
  Bun.sleepSync(2_100);
  // The project's own tool: it shadows nothing, so the server may change it.
  expect(await run()).toContain("wrote");
  Bun.sleepSync(20);
  writeFileSync(join(sys, "bunker-fmt-x"), "#!/bin/sh\n");
  chmodSync(join(sys, "bunker-fmt-x"), 0o755);
  // Now the person's shell would run it instead of sys/bunker-fmt-x: read-only to the server's next start.
  expect(await run()).toContain("Read-only file system");
  expect(readFileSync(tool, "utf8")).toBe("#!/bin/sh\n# planted\n");
});

test("a server's program named by its bare name is never one planted where a command can write (red team 7 F6)", async () => {
  const base = tempDir("bunker-mcp-prog-");
  const root = join(base, "ws");
  const shims = join(base, "shims");
  for (const dir of [join(root, "node_modules/.bin"), shims]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "github-mcp-server"), "#!/bin/sh\n");
    chmodSync(join(dir, "github-mcp-server"), 0o755);
  }
  const PATH = `./node_modules/.bin:${join(root, "node_modules/.bin")}:${shims}`;
  distrustForHostPrograms([root]);
  try {
    expect(resolveProgram("github-mcp-server", root, PATH)).toBe(join(shims, "github-mcp-server"));
    // The control: with the workspace somewhere else, the first on PATH would have been the plant.
    distrustForHostPrograms([join(base, "elsewhere")]);
    expect(resolveProgram("github-mcp-server", root, PATH)).toBe(join(root, "node_modules/.bin/github-mcp-server"));
    distrustForHostPrograms([root]);
    // Found only there, a launch says where it is and why it is not started, and how to name it.
    const bin = join(root, "node_modules/.bin");
    await expect(launchStdio(def({ command: "github-mcp-server" }), context({ root, env: { PATH: bin } }))).rejects.toThrow(
      `the program "github-mcp-server" is on PATH only at ${bin}/github-mcp-server, where commands can write, so bunker does not start it from there; name it by its path in the server's definition if it is the one you mean`,
    );
    // A path in the definition is the definition's choice: relative to the workspace, as before.
    expect(resolveProgram("./server.js", root, PATH)).toBe(join(root, "server.js"));
  } finally {
    distrustForHostPrograms([process.cwd()]);
  }
});

test.skipIf(detectSandbox().kind !== "bubblewrap")("a socket that appears in the workspace after a server started is out of its reach, its own socketpair() works, and a socket granted by name is reached (red team 9 F04, real bubblewrap)", async () => {
  const ctx = context({ plan: planSandbox("on", detectSandbox()) });
  const sock = join(ctx.root, "db.sock");
  // The server waits for the socket the person's database makes after it started, then connects to it.
  const client = [
    "import os, socket, time",
    "a, b = socket.socketpair(); a.send(b'x'); print('pair', b.recv(1).decode(), flush=True)",
    `while not os.path.exists(${JSON.stringify(sock)}): time.sleep(0.02)`,
    "try:",
    `    s = socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(sock)}); print('reached', s.recv(5).decode(), flush=True)`,
    "except OSError as e: print('refused', e.strerror, flush=True)",
  ].join("\n");
  const listen = () => Bun.listen({ unix: sock, socket: { open: (s) => void s.write("hello"), data: () => {} } });
  const run = async (granted: boolean) => {
    // Granted by name, it must be there when the server starts.
    let server = granted ? listen() : null;
    const l = await launchStdio(def({ command: "/usr/bin/python3", args: ["-c", client] }, "project"), { ...ctx, grantedRead: granted ? [sock] : [] });
    const proc = Bun.spawn([l.command, ...l.args], { cwd: l.cwd, env: l.env, stdout: "pipe", stderr: "pipe" });
    await Bun.sleep(300);
    server ??= listen();
    const out = (await new Response(proc.stdout).text()) + (await new Response(proc.stderr).text());
    await proc.exited;
    server.stop(true);
    rmSync(sock, { force: true });
    await l.close();
    return out;
  };
  const late = await run(false);
  expect(late).toContain("pair x");
  expect(late).toContain("refused Permission denied");
  expect(late).not.toContain("reached");
  // Granted by name (the person's choice): reached, so the refusal above is the filter's doing and not a mount's.
  expect(await run(true)).toContain("reached hello");
});

test.skipIf(detectSandbox().kind !== "bubblewrap")("nothing unfiltered runs beside a filtered server that it could trace and have make a socket: the one unfiltered process, the forwarder, cannot be traced (red team 9 F12, real bubblewrap)", async () => {
  const ctx = context({ plan: planSandbox("on", detectSandbox()) });
  // Every other process in its sandbox: whether the filter holds it (Seccomp: 2), whether the server can open its
  // memory (to have it run code of the server's choosing) and its descriptors.
  const probe = [
    "import errno, os",
    "def opens(p):",
    "    try: os.close(os.open(p, os.O_RDONLY)); return 'opened'",
    "    except OSError as e: return errno.errorcode[e.errno]",
    "me = os.getpid()",
    "for p in sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) != me):",
    "    filtered = [l.split()[1] for l in open(f'/proc/{p}/status') if l.startswith('Seccomp:')] == ['2']",
    "    fds = [opens(f'/proc/{p}/fd/{f}') for f in os.listdir(f'/proc/{p}/fd')] if not filtered else []",
    "    print('pid 1' if p == 1 else 'its parent' if p == os.getppid() else 'other', 'filtered' if filtered else 'unfiltered', 'mem', opens(f'/proc/{p}/mem'), 'fds opened', fds.count('opened'))",
  ].join("\n");
  const run = async (net: string[]) => {
    // A net list is the person's own server's (a project's is ignored).
    const l = await launchStdio(def({ command: "/usr/bin/python3", args: ["-c", probe], net }, net.length > 0 ? "user" : "project"), ctx);
    const r = Bun.spawnSync([l.command, ...l.args], { cwd: l.cwd, env: l.env, stdout: "pipe", stderr: "pipe" });
    await l.close();
    return r.stdout.toString() + r.stderr.toString();
  };
  // No network: beside it only its reaper (pid 1, its parent), under the same filter: taking it over gains nothing.
  expect(await run([])).toBe("pid 1 filtered mem opened fds opened 0\n");
  // A net list: bunker's forwarder is pid 1 and keeps its memory and descriptors to itself; the reaper is filtered.
  expect(await run(["api.example.com"])).toBe("pid 1 unfiltered mem EACCES fds opened 0\nits parent filtered mem opened fds opened 0\n");
});

test.skipIf(detectSandbox().kind !== "bubblewrap")("what a long-lived server's children leave behind is reaped, not piled up as zombies; the server keeps its input and its exit status (real bubblewrap)", async () => {
  const ctx = context({ plan: planSandbox("on", detectSandbox()) });
  // Five children that each leave a grandchild behind (orphaned, adopted by the reaper), then a count of zombies.
  const server = [
    "import os, subprocess, sys, time",
    "for i in range(5): subprocess.run(['/bin/sh', '-c', 'sleep 0.1 & exit 0'])",
    "time.sleep(1)",
    "zombies = sum(1 for p in os.listdir('/proc') if p.isdigit() and open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[0] == 'Z')",
    "print('read', sys.stdin.readline().strip(), 'zombies', zombies, flush=True)",
    "sys.exit(3)",
  ].join("\n");
  for (const net of [[], ["api.example.com"]]) {
    const l = await launchStdio(def({ command: "/usr/bin/python3", args: ["-c", server], net }, net.length > 0 ? "user" : "project"), ctx);
    const r = Bun.spawnSync([l.command, ...l.args], { cwd: l.cwd, env: l.env, stdin: Buffer.from("hello\n"), stdout: "pipe", stderr: "pipe" });
    await l.close();
    expect(r.stdout.toString() + r.stderr.toString()).toBe("read hello zombies 0\n");
    expect(r.exitCode).toBe(3);
  }
});

test.skipIf(detectSandbox().kind !== "bubblewrap")("the consent question says which write folders a deny-write rule makes read-only to the server, as its sandbox shows them", async () => {
  const { launchView } = await import("../../../src/mcp/sandbox.ts");
  const { describeDefinition } = await import("../../../src/mcp/consent-prompt.ts");
  const base = tempDir();
  for (const d of ["notes", "drafts", "logs"]) mkdirSync(join(base, d));
  const server = def({ command: BUN, write: [join(base, "notes"), join(base, "drafts"), join(base, "logs")] });
  const view = launchView(server, context({ plan: planSandbox("on", detectSandbox()), deniedWrite: { paths: [join(base, "notes"), join(base, "drafts/keep.md")], globs: [], workspace: false } as never }));
  const lines = describeDefinition(server, view).map((l) => l.replace(/\x1b\[[0-9;]*m/g, ""));
  expect(lines).toContain(`may write: ${join(base, "notes")} — READ-ONLY to it: the deny-write rule ${join(base, "notes")} covers it`);
  expect(lines).toContain(`may write: ${join(base, "drafts")} (what your deny-write rules name in it stays read-only)`);
  expect(lines).toContain(`may write: ${join(base, "logs")}`);
  // And its sandbox does what the question said: the denied folder is shown read-only, not writable.
  const l = await launchStdio(server, context({ plan: planSandbox("on", detectSandbox()), deniedWrite: { paths: [join(base, "notes")], globs: [], workspace: false } as never }));
  const argv = [l.command, ...l.args].join(" ");
  expect(argv).toContain(`--ro-bind ${join(base, "notes")} ${join(base, "notes")}`);
  expect(argv).not.toContain(`--bind ${join(base, "notes")} ${join(base, "notes")}`);
  await l.close();
});
