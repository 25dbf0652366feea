// web_fetch against real local servers, with the real Permissions: pages
// become Markdown, every redirect hop is judged, local addresses need a
// grant by address, and the limits hold.
import { afterAll, describe, expect, test } from "bun:test";
import { emptyGrants } from "../../../src/perms/policy.ts";
import type { ApprovalAnswer } from "../../../src/perms/types.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { createWebFetchTool, WEB_FETCH_LIMITS, type WebFetchLimits } from "../../../src/tools/web-fetch.ts";
import { makeContext, tempDir } from "../../support/context.ts";
import { startTestServer } from "../../support/net-servers.ts";

const PAGE = `<!doctype html><html><head><title>Guide</title><script>alert("x")</script><style>p { color: red }</style></head>
<body><header><nav><a href="/">Home</a> | <a href="/blog">Blog</a></nav></header>
<main><h1>Getting started</h1><p>Install with <code>bun add x</code>, then read <a href="/api">the API</a>.</p>
<ul><li>fast</li><li>small</li></ul><pre><code>let a = 1 &lt; 2;</code></pre></main><footer>© footer</footer></body></html>`;

const A = startTestServer("A", "127.0.0.2", {
  "/page": () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
  "/data.json": () => Response.json({ ok: true, items: [1, 2] }),
  "/image.png": () => new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0]), { headers: { "content-type": "image/png" } }),
  "/long.txt": () => new Response("0123456789".repeat(12), { headers: { "content-type": "text/plain" } }),
  "/slow": () => new Promise<Response>((resolve) => setTimeout(() => resolve(new Response("late")), 5_000)),
  "/cookie": () => new Response(null, { status: 302, headers: { location: "/headers", "set-cookie": "sid=secret; Path=/" } }),
  "/headers": (req) => Response.json(Object.fromEntries(req.headers)),
  "/missing": () => new Response("no such page", { status: 404, headers: { "content-type": "text/plain" } }),
});
const B = startTestServer("B", "127.0.0.3");
const L = startTestServer("L", "127.0.0.1");
const redirects = startTestServer("R", "127.0.0.2", {
  "/to-b": () => Response.redirect(`${B.url}/from-a`, 302),
  "/to-localhost": () => Response.redirect(`http://localhost:${L.port}/`, 302),
});
afterAll(() => [A, B, L, redirects].forEach((s) => s.stop()));

function setup(hosts: string[], opts: { answers?: ApprovalAnswer[]; interactive?: boolean; limits?: Partial<WebFetchLimits>; allNet?: boolean } = {}) {
  const g = emptyGrants();
  g.allow.net.hosts.push(...hosts);
  g.allow.net.all = opts.allNet ?? false;
  const ctx = makeContext(tempDir(), { grants: g, answers: opts.answers ?? [], interactive: opts.interactive ?? false });
  const registry = new ToolRegistry([createWebFetchTool({ ...WEB_FETCH_LIMITS, ...opts.limits })]);
  return { ctx, fetchUrl: (url: string, offset?: number) => registry.run("web_fetch", { url, ...(offset ? { offset } : {}) }, ctx) };
}

describe("web_fetch", () => {
  test("an HTML page comes back as Markdown: headings, links, lists, code kept; scripts, styles, navigation dropped", async () => {
    const { fetchUrl } = setup([`127.0.0.2:${A.port}`]);
    expect(await fetchUrl(`${A.url}/page`)).toEqual({
      isError: false,
      content: `${A.url}/page (200 OK, text/html)\n\n# Getting started\n\nInstall with \`bun add x\`, then read [the API](${A.url}/api).\n\n- fast\n- small\n\n\`\`\`\nlet a = 1 < 2;\n\`\`\``,
    });
  });

  test("JSON and text as they are; a binary type is refused; an HTTP error is an error with the body", async () => {
    const { fetchUrl } = setup([`127.0.0.2:${A.port}`]);
    expect((await fetchUrl(`${A.url}/data.json`)).content).toBe(`${A.url}/data.json (200 OK, application/json)\n\n{"ok":true,"items":[1,2]}`);
    expect(await fetchUrl(`${A.url}/image.png`)).toEqual({ isError: true, content: `${A.url}/image.png is image/png (6 bytes), not text: web_fetch reads HTML, JSON and text` });
    expect(await fetchUrl(`${A.url}/missing`)).toEqual({ isError: true, content: `${A.url}/missing (404 Not Found, text/plain)\n\nno such page` });
  });

  test("a host not granted: asked on a terminal (who asked: the URL), refused without one naming the flag", async () => {
    const asked = setup([], { interactive: true, answers: [{ answer: "once" }] });
    expect((await asked.fetchUrl(`${B.url}/hi`)).content).toContain("hello from B");
    expect(asked.ctx.approver.asked.map((r) => [r.kind, r.target, r.tool, r.net?.requestedBy])).toEqual([["net", `127.0.0.3:${B.port}`, "web_fetch", `${B.url}/hi`]]);
    const headless = setup([]);
    expect(await headless.fetchUrl(`${B.url}/hi`)).toEqual({
      isError: true,
      content: `network access to 127.0.0.3:${B.port} needs approval, and bunker is not asking (no terminal or --no-prompt). To grant it, run bunker with --allow-net=127.0.0.3:${B.port}`,
    });
    expect(headless.ctx.perms.denials).toHaveLength(1);
  });

  test("a redirect to a host not granted asks again; refused, nothing reaches it", async () => {
    const before = B.seen.length;
    const refused = setup([`127.0.0.2:${redirects.port}`], { interactive: true, answers: [{ answer: "deny" }] });
    const r = await refused.fetchUrl(`${redirects.url}/to-b`);
    expect(refused.ctx.approver.asked.map((q) => [q.target, q.net?.requestedBy])).toEqual([[`127.0.0.3:${B.port}`, `${B.url}/from-a`]]);
    // The model reads where it was refused and about "the person"; the person reads their own answer.
    expect(r).toEqual({ isError: true, content: `${redirects.url}/to-b redirected to ${B.url}/from-a: The person refused network access to 127.0.0.3:${B.port}.`, shown: `You refused network access to 127.0.0.3:${B.port}.` });
    expect(B.seen.length).toBe(before);
    const allowed = setup([`127.0.0.2:${redirects.port}`], { interactive: true, answers: [{ answer: "once" }] });
    expect((await allowed.fetchUrl(`${redirects.url}/to-b`)).content).toBe(`${B.url}/from-a (200 OK, text/plain)\n\nhello from B\n`);
  });

  test("localhost is 127.0.0.1 however it is spelled: refused unless granted, the hint naming the address; a grant of either name reaches it; bare --allow-net is no grant by address", async () => {
    const none = setup([`127.0.0.2:${redirects.port}`]);
    for (const spelling of ["localhost", "0x7f.1", "2130706433", "127.1"]) {
      expect(await none.fetchUrl(`http://${spelling}:${L.port}/`)).toEqual({
        isError: true,
        content: `network access to 127.0.0.1:${L.port} needs approval, and bunker is not asking (no terminal or --no-prompt). To grant it, run bunker with --allow-net=127.0.0.1:${L.port}`,
      });
    }
    expect((await none.fetchUrl(`${redirects.url}/to-localhost`)).content).toContain(`--allow-net=127.0.0.1:${L.port}`);
    for (const grant of [`localhost:${L.port}`, `127.0.0.1:${L.port}`]) {
      const granted = setup([`127.0.0.2:${redirects.port}`, grant]);
      for (const spelling of ["localhost", "0x7f.1", "127.0.0.1"]) expect((await granted.fetchUrl(`http://${spelling}:${L.port}/`)).content).toContain("hello from L");
      expect((await granted.fetchUrl(`${redirects.url}/to-localhost`)).content).toContain("hello from L");
      // The address written as IPv6 is the same address (one form per host, reviewer's R11-03): the grant covers it.
      expect((await granted.fetchUrl(`http://[::ffff:127.0.0.1]:${L.port}/`)).content).toContain("hello from L");
    }
    const bare = setup([], { allNet: true });
    expect(await bare.fetchUrl(`http://127.0.0.1:${L.port}/`)).toEqual({
      isError: true,
      content: `bunker's network proxy refused 127.0.0.1:${L.port}: 127.0.0.1 is a loopback address; bunker connects to loopback, link-local and private addresses only when they are granted by address: --allow-net=127.0.0.1:${L.port}`,
    });
    expect((await bare.fetchUrl(`http://localhost:${L.port}/`)).content).toContain(`--allow-net=127.0.0.1:${L.port}`);
  });

  test("the person's NO_PROXY never takes a fetch around the proxy's address checks (red team 7 F1); it is theirs again after", async () => {
    const saved = { NO_PROXY: process.env.NO_PROXY, no_proxy: process.env.no_proxy };
    process.env.NO_PROXY = "localhost,127.0.0.1,127.0.0.2";
    process.env.no_proxy = "127.0.0.1";
    try {
      const bare = setup([], { allNet: true });
      expect((await bare.fetchUrl(`http://127.0.0.1:${L.port}/`)).content).toContain("127.0.0.1 is a loopback address");
      // A granted host's redirect to the loopback server is refused the same way.
      const viaRedirect = setup([`127.0.0.2:${redirects.port}`], { allNet: true });
      expect((await viaRedirect.fetchUrl(`${redirects.url}/to-localhost`)).content).toContain("127.0.0.1 is a loopback address");
      // Granted by address it comes through the proxy, as it would without NO_PROXY.
      const granted = setup([`127.0.0.1:${L.port}`]);
      expect((await granted.fetchUrl(`http://127.0.0.1:${L.port}/`)).content).toContain("hello from L");
      expect(process.env.NO_PROXY).toBe("localhost,127.0.0.1,127.0.0.2");
      expect(process.env.no_proxy).toBe("127.0.0.1");
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  test("a name that does not resolve and a port that refuses say so, over https too (not the proxy's '502 Bad Gateway')", async () => {
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = closed.port;
    closed.stop(true);
    const { fetchUrl } = setup([`127.0.0.1:${port}`], { allNet: true });
    for (const scheme of ["http", "https"]) {
      const unresolved = await fetchUrl(`${scheme}://no-such-host.invalid/x`);
      expect(unresolved.isError).toBe(true);
      expect(unresolved.content).toStartWith(`could not fetch ${scheme}://no-such-host.invalid/x: cannot resolve no-such-host.invalid: `);
      const refused = await fetchUrl(`${scheme}://127.0.0.1:${port}/`);
      expect(refused.isError).toBe(true);
      expect(refused.content).toStartWith(`could not fetch ${scheme}://127.0.0.1:${port}/: cannot connect to 127.0.0.1:${port}: `);
    }
  });

  test("no cookies are kept or sent, and a URL with credentials is refused", async () => {
    const { fetchUrl } = setup([`127.0.0.2:${A.port}`]);
    const r = await fetchUrl(`${A.url}/cookie`);
    const headers = JSON.parse(r.content.slice(r.content.indexOf("\n\n") + 2)) as Record<string, string>;
    expect(headers.cookie).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
    expect(Object.keys(headers).filter((h) => h.startsWith("proxy-"))).toEqual([]);
    expect((await fetchUrl(`http://user:pw@127.0.0.2:${A.port}/`)).content).toBe("web_fetch sends no credentials: remove the user name and password from the URL");
    expect((await fetchUrl("file:///etc/passwd")).content).toBe("web_fetch reads http:// and https:// URLs, not file:");
  });

  test("bounded: a page at a time with the offset to read on; a size cap; a timeout", async () => {
    const { fetchUrl } = setup([`127.0.0.2:${A.port}`], { limits: { pageChars: 50, maxBytes: 110, timeoutMs: 300 } });
    const first = await fetchUrl(`${A.url}/long.txt`);
    expect(first.content).toBe(`${A.url}/long.txt (200 OK, text/plain)\n\n${"0123456789".repeat(5)}\n\n[characters 0–50 of 110; call web_fetch with offset=50 to read on]\n[only the first 110 bytes of the page were read]`);
    const last = await fetchUrl(`${A.url}/long.txt`, 100);
    expect(last.content).toContain("\n\n0123456789\n\n[characters 100–110 of 110: the end]");
    expect((await fetchUrl(`${A.url}/long.txt`, 500)).content).toBe("offset 500 is past the end: the page has 110 characters");
    expect(await fetchUrl(`${A.url}/slow`)).toEqual({ isError: true, content: `${A.url}/slow did not answer within 0.3 s` });
  });
});
