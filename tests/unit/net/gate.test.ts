import { expect, test } from "bun:test";
import { grantedByAddress, grantedLoopbackTargets, permissionGate } from "../../../src/net/gate.ts";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { makeContext, tempDir } from "../../support/context.ts";

test("a target is decided once per gate: concurrent connections share one question", async () => {
  const ctx = makeContext(tempDir(), { answers: [{ answer: "once" }] });
  const gate = permissionGate(ctx.perms, "run_bash", "bun install");
  const answers = await Promise.all([gate.admit("registry.npmjs.org", 443), gate.admit("registry.npmjs.org", 443)]);
  expect(answers).toEqual([null, null]);
  expect(await gate.admit("registry.npmjs.org", 443)).toBeNull();
  expect(ctx.approver.asked.map((r) => [r.kind, r.target, r.tool, r.net?.requestedBy])).toEqual([["net", "registry.npmjs.org:443", "run_bash", "bun install"]]);
});

test("a refusal is the one line the command and the model see", async () => {
  const ctx = makeContext(tempDir(), { answers: [{ answer: "deny", feedback: "not that registry" }] });
  const gate = permissionGate(ctx.perms, "run_bash", "curl x");
  expect(await gate.admit("x.example", 80)).toBe("The person refused network access to x.example:80 and said: not that registry");
  const g = emptyGrants();
  g.deny.net.hosts.push("*.example");
  const denied = permissionGate(makeContext(tempDir(), { grants: g }).perms, "run_bash", "curl x");
  expect(await denied.admit("x.example", 80)).toBe("network access to x.example:80 is denied by --deny-net or a deny rule");
});

test("a local address counts as granted only when a flag or rule names it, not under bare --allow-net", () => {
  const g = emptyGrants();
  g.allow.net.all = true;
  g.allow.net.hosts.push("127.0.0.2:8080");
  const perms = makeContext(tempDir(), { grants: g }).perms;
  expect(grantedByAddress(perms, "127.0.0.2:8080")).toBe(true);
  expect(grantedByAddress(perms, "127.0.0.2:8081")).toBe(false);
  expect(grantedByAddress(perms, "127.0.0.1:8080")).toBe(false);
  g.deny.net.hosts.push("127.0.0.2");
  expect(grantedByAddress(perms, "127.0.0.2:8080")).toBe(false);
});

test("an address the person allowed when asked is granted by address, now and (for the session) in later gates; bare --allow-net is not", async () => {
  const ctx = makeContext(tempDir(), { answers: [{ answer: "target-session" }] });
  const first = permissionGate(ctx.perms, "run_bash", "curl a");
  expect(first.addressGranted("127.0.0.3", 80)).toBe(false);
  expect(await first.admit("127.0.0.3", 80)).toBeNull();
  expect(first.addressGranted("127.0.0.3", 80)).toBe(true);
  const later = permissionGate(ctx.perms, "run_bash", "curl b");
  expect(await later.admit("127.0.0.3", 80)).toBeNull();
  expect(later.addressGranted("127.0.0.3", 80)).toBe(true);
  expect(ctx.approver.asked).toHaveLength(1);

  const g = emptyGrants();
  g.allow.net.all = true;
  const bare = permissionGate(makeContext(tempDir(), { grants: g }).perms, "web_fetch", () => "http://127.0.0.1/");
  expect(await bare.admit("127.0.0.1", 80)).toBeNull();
  expect(bare.addressGranted("127.0.0.1", 80)).toBe(false);
});

test("localhost is 127.0.0.1: asked about it, the question names the address, and 'for the session' lets the proxy connect there", async () => {
  const ctx = makeContext(tempDir(), { answers: [{ answer: "target-session" }] });
  const gate = permissionGate(ctx.perms, "web_fetch", () => "http://localhost:8765/");
  expect(await gate.admit("localhost", 8765)).toBeNull();
  expect(ctx.approver.asked.map((r) => r.target)).toEqual(["127.0.0.1:8765"]);
  expect(gate.addressGranted("127.0.0.1", 8765)).toBe(true);
  expect(permissionGate(ctx.perms, "run_bash", "curl").addressGranted("127.0.0.1", 8765)).toBe(false);
});

test("a grant of localhost:PORT is a grant of 127.0.0.1:PORT by address; the tunnels a command gets are the granted host loopback ports", async () => {
  const g = emptyGrants();
  // [::1] too; a port below 1024 is not (nothing unprivileged may listen there inside the sandbox).
  g.allow.net.hosts.push("localhost:8765", "127.0.0.2:9000", "127.0.0.3", "10.0.0.1:80", "example.com:443", "127.0.0.4:7000", "[::1]:8766", "127.0.0.1:80", "[::2]:8767");
  g.deny.net.hosts.push("127.0.0.4");
  const ctx = makeContext(tempDir(), { grants: g, answers: [{ answer: "target-session" }] });
  expect(grantedByAddress(ctx.perms, "127.0.0.1:8765")).toBe(true);
  expect(await permissionGate(ctx.perms, "web_fetch", "x").admit("localhost", 8765)).toBeNull();
  expect(grantedLoopbackTargets(ctx.perms)).toEqual(["127.0.0.1:8765", "127.0.0.2:9000", "[::1]:8766"]);
  expect(await permissionGate(ctx.perms, "run_bash", "curl").admit("127.0.0.5", 3000)).toBeNull();
  expect(grantedLoopbackTargets(ctx.perms)).toEqual(["127.0.0.1:8765", "127.0.0.2:9000", "[::1]:8766", "127.0.0.5:3000"]);
});
