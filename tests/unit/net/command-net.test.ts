// The proxy path as the sandboxes see it: what bubblewrap binds, what the
// Seatbelt profile lets through (text-checked: macOS is not here to run it),
// and the environment that points programs at the proxy.
import { describe, expect, test } from "bun:test";
import { PROXY_SOCKET_IN_SANDBOX, proxyEnv, refusalNote, startCommandNet, loopbackNote } from "../../../src/net/command-net.ts";
import { bubblewrapArgs } from "../../../src/sandbox/bubblewrap.ts";
import { seatbeltProfile } from "../../../src/sandbox/seatbelt.ts";
import type { SandboxSpec } from "../../../src/sandbox/spec.ts";
import { keepPrivateIn } from "../../../src/sandbox/private-folder.ts";
import { processStart } from "../../../src/fs/process-id.ts";
import { tempDir } from "../../support/context.ts";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

const spec = (over: Partial<SandboxSpec> = {}): SandboxSpec => ({ root: "/work/proj", allowNet: false, gitWritable: false, writable: [], ...over });
const netProxy = { socket: "/tmp/bunker-net-x/proxy.sock", port: 31337, readable: ["/opt/bunker"] };

describe("the proxy in the sandbox", () => {
  test("bubblewrap: the socket bound read-only at a fixed place, the forwarder's files readable, still no shared network", () => {
    const args = bubblewrapArgs(spec({ netProxy }), ["true"], "bwrap", { kind: () => null, readlink: () => "" }).join(" ");
    expect(args).toContain(`--dir /run/bunker-net --ro-bind /tmp/bunker-net-x/proxy.sock ${PROXY_SOCKET_IN_SANDBOX} --remount-ro / --unshare-all`);
    // The forwarder's files come in as granted reads (run_bash adds net.spec.readable to spec.readable).
    expect(bubblewrapArgs(spec({ netProxy, readable: netProxy.readable }), ["true"], "bwrap", { kind: () => "dir", readlink: () => "" }).join(" ")).toContain("--ro-bind /opt/bunker /opt/bunker");
    expect(args).not.toContain("--share-net");
  });

  test("Seatbelt: outbound to the proxy's port on localhost and nothing else", () => {
    const profile = seatbeltProfile(spec({ netProxy: { port: 31337, readable: [] } }), "/t");
    expect(profile.match(/\(allow network[^\n]*/g)).toEqual(['(allow network-outbound (remote ip "localhost:31337"))']);
    expect(profile).not.toContain("(allow network*)");
    expect(profile).not.toContain("com.apple.dnssd.service");
  });

  test("programs are pointed at the proxy in both spellings; their own loopback stays direct", () => {
    const env = proxyEnv("http://127.0.0.1:31337");
    for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"]) expect(env[name]).toBe("http://127.0.0.1:31337");
    expect(env.NO_PROXY).toBe("localhost,127.0.0.1,::1");
    expect(env.no_proxy).toBe("localhost,127.0.0.1,::1");
  });

  test("macOS: the proxy on the host's loopback wants the password only the command is given", async () => {
    const net = await startCommandNet("seatbelt", { admit: async () => null, addressGranted: () => false });
    try {
      const { port, username, password } = new URL(net.env.HTTP_PROXY!);
      expect(Number(port)).toBe(net.spec.port);
      expect(username).toBe("bunker");
      expect(password.length).toBeGreaterThan(20);
      const res = await fetch("http://127.0.0.2:9/", { proxy: `http://127.0.0.1:${port}` });
      expect(res.status).toBe(407);
    } finally {
      await net.close();
    }
  });

  test("refusals become one note line per target", () => {
    expect(refusalNote([])).toBeNull();
    const r = { target: "a.com:443", reason: "not granted" };
    expect(refusalNote([r, r, { target: "b.com:80", reason: "denied" }])).toBe("note: bunker's network proxy refused a.com:443: not granted\nnote: bunker's network proxy refused b.com:80: denied");
  });
});

test("the loopback note: only after a refused connection, only for loopback ports the command names and was not given", () => {
  const refused = "curl: (7) Failed to connect to localhost port 8765 after 0 ms: Couldn't connect to server";
  expect(loopbackNote("curl http://localhost:8765/ http://127.0.0.2:9000/", refused, ["127.0.0.2:9000"])).toBe(
    "note: in the sandbox, localhost is the command's own loopback (a server the command starts is there); a server on the person's machine at 127.0.0.1:8765 is reached only when granted: --allow-net=127.0.0.1:8765",
  );
  expect(loopbackNote("curl http://127.0.0.1:8765/", refused, ["127.0.0.1:8765"])).toBeNull();
  expect(loopbackNote("curl http://localhost:8765/", "404 Not Found", [])).toBeNull();
  expect(loopbackNote("curl http://example.com:8765/", refused, [])).toBeNull();
  expect(loopbackNote("curl http://[::1]:8765/", refused, [])).toContain("at [::1]:8765 is reached only when granted: --allow-net=[::1]:8765");
  // A port below 1024: granted or not, no forwarder can listen there; the note says so and what does reach it.
  expect(loopbackNote("curl http://localhost:80/", refused, [])).toBe(
    "note: in the sandbox, localhost is the command's own loopback, and nothing there may listen on a port below 1024, so bunker cannot carry 127.0.0.1:80 to the person's machine; a client told to use bunker's proxy for it (curl --noproxy '' …) reaches it when granted: --allow-net=127.0.0.1:80",
  );
});

test("a private folder too deep for a socket's path: the proxy's socket goes in a folder of this bunker's own in $TMPDIR, owner-only, removed with the proxy", async () => {
  const tmp = tempDir("bunker-net-tmp-");
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  keepPrivateIn(join(tempDir("bunker-net-deep-"), "x".repeat(120)));
  try {
    const net = await startCommandNet("bubblewrap", { admit: async () => "no", addressGranted: () => false }, [], { argv: ["true"], paths: [] });
    const socket = net.spec.socket!;
    expect(dirname(socket)).toBe(join(tmp, `bunker-net-${process.pid}-${processStart(process.pid)}`));
    expect(statSync(dirname(socket)).mode & 0o777).toBe(0o700);
    await net.close();
    expect(existsSync(socket)).toBe(false);
  } finally {
    process.env.TMPDIR = saved;
  }
});
