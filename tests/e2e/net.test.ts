// End to end: --allow-net=HOSTS for sandboxed commands. Two servers, A on
// 127.0.0.2 and B on 127.0.0.3 (host loopback addresses that the sandbox's
// own localhost does not cover), plain HTTP and TLS; bunker runs the
// commands the scripted model asks for inside the real sandbox, where the
// only way out is bunker's proxy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { BUNKER, count, endToEnd, press, quitWithCtrlD, runHeadless, toolResults, waitForCount } from "../support/cli.ts";
import { opensslAvailable, startTestServer, type TestServer } from "../support/net-servers.ts";
import { tmuxAvailable } from "../support/tmux.ts";

const bubblewrap = detectSandbox().kind === "bubblewrap";
const canRun = bubblewrap && opensslAvailable && Bun.which("curl") !== null;

const e2e = endToEnd("bunker-net-e2e-");
let A: TestServer;
let B: TestServer;
/** A server on the host's 127.0.0.1, which the sandbox's own loopback hides. */
let L: TestServer;
beforeAll(() => {
  if (!canRun) return;
  A = startTestServer("A", "127.0.0.2", {
    "/to-b": () => Response.redirect(`${B.url}/from-a`, 302),
    "/page": () => new Response(`<html><body><nav>menu</nav><h1>Hi</h1><p>from <a href="/x">A</a></p><script>x()</script></body></html>`, { headers: { "content-type": "text/html" } }),
  });
  B = startTestServer("B", "127.0.0.3");
  L = startTestServer("L", "127.0.0.1");
});
afterAll(() => {
  A?.stop();
  B?.stop();
  L?.stop();
});

const run = (command: string) => toolUse("run_bash", { command });

/** A workspace holding A's and B's certificates, so commands inside the sandbox can trust them. */
function workspace() {
  const w = e2e.workspace();
  copyFileSync(A.caFile, join(w.root, "a.pem"));
  copyFileSync(B.caFile, join(w.root, "b.pem"));
  return w;
}

const bunFetch = (url: string) => `bun -e 'process.stdout.write(await (await fetch("${url}")).text())'`;

describe.skipIf(!canRun)("sandboxed commands with --allow-net=127.0.0.2:PORT", () => {
  test("curl and bun reach A (HTTP and TLS through CONNECT); B is refused with the proxy's reason; /dev/tcp reaches granted A (the forwarder's tunnel), not B", async () => {
    const fake = e2e.serve([
      reply([
        run(`curl -sS ${A.url}/curl`),
        run(`curl -sS --cacert a.pem ${A.tlsUrl}/curl-tls`),
        run(bunFetch(`${A.url}/bun`)),
        run(`NODE_EXTRA_CA_CERTS=$PWD/a.pem ${bunFetch(`${A.tlsUrl}/bun-tls`)}`),
        run(`curl -sS ${B.url}/curl`),
        run(`curl -sS --cacert b.pem ${B.tlsUrl}/curl-tls`),
        run(`exec 3<>/dev/tcp/127.0.0.2/${A.port} && echo reached A`),
        run(`exec 3<>/dev/tcp/127.0.0.3/${B.port} && echo reached B`),
      ]),
      reply("Done."),
    ]);
    const { root, env } = workspace();
    const grant = `--allow-net=127.0.0.2:${A.port},127.0.0.2:${A.tlsPort}`;
    const r = await runHeadless(root, env, ["-p", "fetch", "--allow-run", "--sandbox", "on", grant]);
    expect(r.code).toBe(0);
    const [curl, curlTls, bun, bunTls, toB, toBTls, devTcpA, devTcpB] = toolResults(fake.requests[1]);
    for (const ok of [curl, curlTls, bun, bunTls]) expect(ok).toEqual({ is_error: false, content: "exit code 0\n\nhello from A" });
    expect(A.seen.map((s) => s.split(" ")[1])).toEqual(expect.arrayContaining(["/curl", "/curl-tls", "/bun", "/bun-tls"]));

    // B: the body of the 403 (plain HTTP) and the note (CONNECT, where curl shows only the status) name the flag.
    const bReason = (port: number) => `network access to 127.0.0.3:${port} needs approval, and bunker is not asking (no terminal or --no-prompt). To grant it, run bunker with --allow-net=127.0.0.3:${port}`;
    expect(toB?.content).toContain(`bunker: ${bReason(B.port)}`);
    expect(toB?.content).toContain(`note: bunker's network proxy refused 127.0.0.3:${B.port}: ${bReason(B.port)}`);
    expect(toBTls?.is_error).toBe(true);
    expect(toBTls?.content).toContain(`note: bunker's network proxy refused 127.0.0.3:${B.tlsPort}: ${bReason(B.tlsPort)}`);
    expect(B.seen).toEqual([]);

    // A program that ignores the proxy variables reaches a granted loopback port only (tunnelled, judged by the proxy).
    expect(devTcpA).toEqual({ is_error: false, content: "exit code 0\n\nreached A" });
    expect(devTcpB?.is_error).toBe(true);
    expect(devTcpB?.content).toContain("Connection refused");
    expect(devTcpB?.content).not.toContain("reached B");
  }, 60_000);

  test("a TLS client asking for another name inside a granted tunnel is refused, through the proxy and through the forwarder's loopback tunnel; the note says why (red team 7)", async () => {
    const sClient = (proxy: boolean, to: string, name: string) => `openssl s_client -brief ${proxy ? '-proxy "${HTTPS_PROXY#http://}" ' : ""}-connect ${to} -servername ${name} </dev/null`;
    const fake = e2e.serve([
      reply([
        run(sClient(true, `127.0.0.2:${A.tlsPort}`, "evil.example")),
        run(sClient(false, `127.0.0.1:${L.tlsPort}`, "evil.example")),
        run(sClient(true, `localhost:${L.tlsPort}`, "localhost")),
        run(`curl -sS --cacert a.pem ${A.tlsUrl}/still-fine`),
      ]),
      reply("Done."),
    ]);
    const { root, env } = workspace();
    const r = await runHeadless(root, env, ["-p", "fetch", "--allow-run", "--sandbox", "on", `--allow-net=127.0.0.2:${A.tlsPort},127.0.0.1:${L.tlsPort}`]);
    expect(r.code).toBe(0);
    const [viaProxy, viaTunnel, localhost, curl] = toolResults(fake.requests[1]);
    const refused = (target: string) => `note: bunker's network proxy refused ${target}: the TLS client inside the tunnel to ${target} asked for the server evil.example (SNI); a tunnel carries TLS only to the host it was opened to (a server that fronts many sites would serve the other one): grant and connect to evil.example itself`;
    expect(viaProxy?.is_error).toBe(true);
    expect(viaProxy?.content).toContain("tlsv1 alert access denied");
    expect(viaProxy?.content).toContain(refused(`127.0.0.2:${A.tlsPort}`));
    expect(viaTunnel?.is_error).toBe(true);
    expect(viaTunnel?.content).toContain("tlsv1 alert access denied");
    expect(viaTunnel?.content).toContain(refused(`127.0.0.1:${L.tlsPort}`));
    expect(localhost?.content).toContain("CONNECTION ESTABLISHED");
    expect(curl).toEqual({ is_error: false, content: "exit code 0\n\nhello from A" });
  }, 60_000);

  test("a line that only reads gets no network path (no forwarder started, no proxy variables); one that may connect does", async () => {
    const fake = e2e.serve([reply([run("printenv HTTPS_PROXY"), run("touch seen && env | grep -c '^HTTPS_PROXY='")]), reply("Done.")]);
    const { root, env } = workspace();
    const r = await runHeadless(root, env, ["-p", "look", "--allow-run", "--sandbox", "on", `--allow-net=127.0.0.2:${A.port}`]);
    expect(r.code).toBe(0);
    const [readOnly, mayConnect] = toolResults(fake.requests[1]);
    expect(readOnly).toEqual({ is_error: true, content: "exit code 1\n\n(no output)" });
    expect(mayConnect).toEqual({ is_error: false, content: "exit code 0\n\n1" });
  }, 60_000);

  test("--no-prompt and no grant: the failure names --allow-net=127.0.0.2:PORT and permission_denials lists it", async () => {
    const fake = e2e.serve([reply([run(`curl -sSf ${A.url}/denied`)]), reply("Could not.")]);
    const { root, env } = workspace();
    const r = await runHeadless(root, env, ["-p", "fetch", "--allow-run", "--no-prompt", "--output-format", "json"]);
    expect(r.code).toBe(0);
    const [result] = toolResults(fake.requests[1]);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain(`--allow-net=127.0.0.2:${A.port}`);
    const denials = (JSON.parse(r.stdout) as { permission_denials: unknown[] }).permission_denials;
    expect(denials).toEqual([
      {
        tool_name: "run_bash",
        kind: "net",
        target: `127.0.0.2:${A.port}`,
        message: `network access to 127.0.0.2:${A.port} needs approval, and bunker is not asking (no terminal or --no-prompt). To grant it, run bunker with --allow-net=127.0.0.2:${A.port}`,
      },
    ]);
    expect(A.seen.map((s) => s.split(" ")[1])).not.toContain("/denied");
  }, 60_000);
});

describe.skipIf(!opensslAvailable)("web_fetch in a headless run", () => {
  test("a granted local page comes back as Markdown; localhost is 127.0.0.1: refused, the hint names the address, and that grant (or localhost:PORT) works", async () => {
    const fake = e2e.serve([
      reply([toolUse("web_fetch", { url: `${A.url}/page` }), toolUse("web_fetch", { url: `http://localhost:${L.port}/` })]),
      reply("Read it."),
      reply([toolUse("web_fetch", { url: `http://localhost:${L.port}/` })]),
      reply("Read it."),
      reply([toolUse("web_fetch", { url: `http://localhost:${L.port}/` })]),
      reply("Read it."),
    ]);
    const { root, env } = workspace();
    const r = await runHeadless(root, env, ["-p", "read the page", `--allow-net=127.0.0.2:${A.port}`, "--output-format", "json"]);
    expect(r.code).toBe(0);
    const [page, local] = toolResults(fake.requests[1]);
    expect(page).toEqual({ is_error: false, content: `${A.url}/page (200 OK, text/html)\n\n# Hi\n\nfrom [A](${A.url}/x)` });
    expect(local?.is_error).toBe(true);
    expect(local?.content).toContain(`network access to 127.0.0.1:${L.port} needs approval, and bunker is not asking (no terminal or --no-prompt). To grant it, run bunker with --allow-net=127.0.0.1:${L.port}`);
    for (const [i, grant] of [[3, `127.0.0.1:${L.port}`], [5, `localhost:${L.port}`]] as const) {
      const again = await runHeadless(root, env, ["-p", "read the page", `--allow-net=${grant}`, "--output-format", "json"]);
      expect(again.code).toBe(0);
      expect(toolResults(fake.requests[i])).toEqual([{ is_error: false, content: `http://localhost:${L.port}/ (200 OK, text/plain)\n\nhello from L\n` }]);
    }
  }, 60_000);
});

describe.skipIf(!canRun)("a bare --allow-net narrowed by --deny-net (red team 11's F06)", () => {
  test("commands go through the proxy, not the machine's network: the denied host and the host's own loopback are refused, a host granted by address is reached, and the start says so", async () => {
    const fake = e2e.serve([
      reply([
        run(`curl -sS http://127.0.0.2:${A.port}/kept`),
        run(`curl -sS http://127.0.0.3:${B.port}/denied`),
        run(`curl -sS http://127.0.0.1:${L.port}/loopback`),
        run(`exec 3<>/dev/tcp/127.0.0.3/${B.port} && echo reached B`),
      ]),
      reply("Done."),
    ]);
    const { root, env } = workspace();
    const r = await runHeadless(root, env, ["-p", "fetch", "--allow-run", "--sandbox", "on", "--allow-net", `--allow-net=127.0.0.2:${A.port}`, "--deny-net=127.0.0.3"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("--deny-net=127.0.0.3 with a bare --allow-net: commands reach every other host through bunker's proxy");
    const [kept, denied, loopback, devTcp] = toolResults(fake.requests[1]);
    expect(kept).toEqual({ is_error: false, content: "exit code 0\n\nhello from A" });
    expect(denied?.content).toContain(`note: bunker's network proxy refused 127.0.0.3:${B.port}`);
    // 127.0.0.1 is the sandbox's own loopback (curl does not proxy it): the host's server there is not reached.
    expect(loopback?.content).toContain(`is reached only when granted: --allow-net=127.0.0.1:${L.port}`);
    expect(devTcp?.is_error).toBe(true);
    expect(devTcp?.content).not.toContain("reached B");
    expect(B.seen).toEqual([]);
    expect(L.seen.filter((s) => s.includes("/loopback"))).toEqual([]);
  }, 60_000);
});

describe.skipIf(!canRun)("a server on the host's own loopback", () => {
  test("granted 127.0.0.1:PORT: commands reach it at 127.0.0.1 and localhost (curl honours NO_PROXY), through the proxy; another port is the sandbox's own", async () => {
    const fake = e2e.serve([
      reply([run(`curl -sS http://127.0.0.1:${L.port}/a; curl -sS http://localhost:${L.port}/b; curl -sS http://127.0.0.1:${A.port}/c || echo none`)]),
      reply("Done."),
    ]);
    const { root, env } = workspace();
    const r = await runHeadless(root, env, ["-p", "ask the local server", "--allow-run", "--sandbox", "on", `--allow-net=127.0.0.1:${L.port}`]);
    expect(r.code).toBe(0);
    const [result] = toolResults(fake.requests[1]);
    expect(result?.content).toStartWith("exit code 0\n\nhello from L\nhello from L\n");
    expect(result?.content).toContain("none");
    expect(L.seen.filter((s) => s.startsWith("GET /a") || s.startsWith("GET /b"))).toHaveLength(2);
  }, 60_000);

  test("granted [::1]:PORT: commands reach the host's IPv6 loopback server there, through the forwarder", async () => {
    const v6 = Bun.serve({ hostname: "::1", port: 0, fetch: () => new Response("hello from v6\n") });
    try {
      const fake = e2e.serve([reply([run(`curl -sS 'http://[::1]:${v6.port}/'`)]), reply("Done.")]);
      const { root, env } = workspace();
      const r = await runHeadless(root, env, ["-p", "ask the local server", "--allow-run", "--sandbox", "on", `--allow-net=[::1]:${v6.port}`]);
      expect(r.code).toBe(0);
      expect(toolResults(fake.requests[1])[0]?.content).toBe("exit code 0\n\nhello from v6");
    } finally {
      v6.stop(true);
    }
  }, 60_000);

  test("not granted: curl to localhost:PORT fails on the sandbox's own loopback, and the result says so, naming the grant that works", async () => {
    const fake = e2e.serve([reply([run(`curl -sS http://localhost:${L.port}/`)]), reply("Done.")]);
    const { root, env } = workspace();
    const r = await runHeadless(root, env, ["-p", "ask the local server", "--allow-run", "--sandbox", "on", `--allow-net=127.0.0.2:${A.port}`]);
    expect(r.code).toBe(0);
    const [result] = toolResults(fake.requests[1]);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain(`note: in the sandbox, localhost is the command's own loopback (a server the command starts is there); a server on the person's machine at 127.0.0.1:${L.port} is reached only when granted: --allow-net=127.0.0.1:${L.port}`);
  }, 60_000);
});

describe.skipIf(!canRun || !tmuxAvailable)("in a real terminal (tmux)", () => {
  test("a command reaching B asks which host and which command; 'for the session' lets the next one through unasked", async () => {
    const fake = e2e.serve([
      reply([run(`curl -sS ${B.url}/first`)]),
      reply([run(`curl -sS ${B.url}/second`)]),
      reply("Both done."),
    ]);
    const { root, env } = workspace();
    const tmux = await e2e.terminal([...BUNKER, "--allow-run", "--sandbox", "on", "fetch from B"], { cwd: root, env, cols: 140, rows: 50 });
    const question = `Allow net access to "127.0.0.3:${B.port}"?`;
    const screen = await waitForCount(tmux, question, 1);
    expect(screen).toContain(`run_bash requests net access to "127.0.0.3:${B.port}"`);
    expect(screen).toContain(`Requested by curl -sS ${B.url}/first`);
    expect(B.seen).toEqual([]);
    await press(tmux, "Down", "Enter"); // Allow 127.0.0.3:PORT for this session
    const done = await waitForCount(tmux, "Both done.", 1);
    expect(count(done, question)).toBe(1);
    expect(B.seen.map((s) => s.split(" ")[1])).toEqual(["/first", "/second"]);
    expect(toolResults(fake.requests[2])).toEqual([{ is_error: false, content: "exit code 0\n\nhello from B" }]);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  }, 60_000);
  test("a background child's question is withdrawn when its command ends: the answer stays on screen, the next message is sent whole", async () => {
    const fake = e2e.serve([
      reply([run(`(curl -s -m 8 ${B.url}/late >/dev/null &) ; echo started; sleep 2; echo done`)]),
      reply("The command finished; here is my answer."),
      reply("Second reply."),
    ]);
    const { root, env } = workspace();
    const tmux = await e2e.terminal([...BUNKER, "--allow-run", "--sandbox", "on", "start it"], { cwd: root, env, cols: 140, rows: 50 });
    const question = `Allow net access to "127.0.0.3:${B.port}"?`;
    const seenBefore = B.seen.length;
    await waitForCount(tmux, question, 1);
    await waitForCount(tmux, "Withdrawn: the command ended before it was answered.", 1);
    await waitForCount(tmux, "The command finished; here is my answer.", 1);
    expect(toolResults(fake.requests[1])).toEqual([{ is_error: false, content: "exit code 0\n\nstarted\ndone" }]);
    // Typed after the question went: every key is the person's next message, none an answer.
    tmux.keys(["thanks"], true);
    await Bun.sleep(100);
    await press(tmux, "Enter");
    const screen = await waitForCount(tmux, "Second reply.", 1);
    expect(fake.requests[2]?.body.messages.at(-1)?.content).toMatchObject([{ type: "text", text: "thanks" }]);
    expect(count(screen, "The command finished; here is my answer.")).toBe(1);
    expect(count(screen, question)).toBe(1);
    expect(B.seen.length).toBe(seenBefore);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  }, 60_000);
  test("web_fetch: a redirect from a granted host to B asks, naming the new URL; denied, B is not reached", async () => {
    const fake = e2e.serve([reply([toolUse("web_fetch", { url: `${A.url}/to-b` })]), reply("Stopped.")]);
    const { root, env } = workspace();
    const tmux = await e2e.terminal([...BUNKER, `--allow-net=127.0.0.2:${A.port}`, "read the page"], { cwd: root, env, cols: 140, rows: 50 });
    const question = `Allow net access to "127.0.0.3:${B.port}"?`;
    const screen = await waitForCount(tmux, question, 1);
    expect(screen).toContain(`web_fetch requests net access to "127.0.0.3:${B.port}"`);
    expect(screen).toContain(`Requested by ${B.url}/from-a`);
    const seenBefore = B.seen.length;
    await press(tmux, "Down", "Down", "Enter"); // Deny
    await waitForCount(tmux, "Why not (sent to Claude)?", 1);
    await press(tmux, "Enter");
    const after = await waitForCount(tmux, "Stopped.", 1);
    expect(toolResults(fake.requests[1])).toEqual([{ is_error: true, content: `${A.url}/to-b redirected to ${B.url}/from-a: The person refused network access to 127.0.0.3:${B.port}.` }]);
    // The model's sentence is the model's; the person reads their own answer.
    expect(after).toContain(`✗ You refused network access to 127.0.0.3:${B.port}.`);
    expect(after).not.toContain("The person");
    expect(B.seen.length).toBe(seenBefore);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  }, 60_000);
  test("a command's connection: Escape at its question refuses and stops the turn, said once (not the command's interruption and the proxy's note too)", async () => {
    const fake = e2e.serve([reply([run(`echo fetching; curl -sS ${B.url}/x`)]), reply("Understood.")]);
    const { root, env } = workspace();
    const tmux = await e2e.terminal([...BUNKER, "--allow-run", "--sandbox", "on", "fetch from B"], { cwd: root, env, cols: 140, rows: 50 });
    await waitForCount(tmux, `Allow net access to "127.0.0.3:${B.port}"?`, 1);
    await press(tmux, "Escape");
    await waitForCount(tmux, "Refused; the turn is cancelled.", 1);
    // What the command printed stays (curl may have printed the proxy's 403 page before it was stopped: its own
    // output); nothing of bunker's says the refusal or the stop again.
    const screen = await waitForCount(tmux, "    stopped with the turn\n    fetching\n", 1);
    await Bun.sleep(300);
    const after = tmux.screen().slice(screen.indexOf("Refused; the turn is cancelled."));
    for (const said of ["✗", "interrupted by the user", "note: bunker's network proxy", "Interrupted."]) expect(after).not.toContain(said);
    tmux.keys(["ok"], true);
    await press(tmux, "Enter");
    await waitForCount(tmux, "Understood.", 1);
    expect(toolResults(fake.requests[1])[0]!.content).toContain(`The person refused network access to 127.0.0.3:${B.port}.`);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  }, 60_000);
  test("web_fetch: Escape at its question refuses and stops the turn, said once; the model is told of the refusal", async () => {
    const fake = e2e.serve([reply([toolUse("web_fetch", { url: `${B.url}/page` })]), reply("Understood.")]);
    const { root, env } = workspace();
    const tmux = await e2e.terminal([...BUNKER, "read B"], { cwd: root, env, cols: 140, rows: 50 });
    await waitForCount(tmux, `Allow net access to "127.0.0.3:${B.port}"?`, 1);
    await press(tmux, "Escape");
    const screen = await waitForCount(tmux, "Refused; the turn is cancelled.", 1);
    await Bun.sleep(300);
    for (const said of ["✗", "The person", "Interrupted."]) expect(tmux.screen()).not.toContain(said);
    expect(screen.match(/Refused/g)).toHaveLength(1);
    tmux.keys(["ok"], true);
    await press(tmux, "Enter");
    await waitForCount(tmux, "Understood.", 1);
    expect(toolResults(fake.requests[1])[0]).toEqual({ is_error: true, content: `The person refused network access to 127.0.0.3:${B.port}.` });
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  }, 60_000);
});
