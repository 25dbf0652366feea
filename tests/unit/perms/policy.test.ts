// src/perms/policy.ts: the one place that decides whether a bare --allow-net
// shares the machine's network (run_bash, MCP servers and the start-up
// notice all ask it).
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { parseConfig } from "../../../src/config.ts";
import { proxiesAllNetBut, sharesMachineNetwork } from "../../../src/perms/policy.ts";
import { tempDir } from "../../support/context.ts";

const ws = tempDir("bunker-policy-");
afterAll(() => rmSync(ws, { recursive: true, force: true }));
const shares = (...flags: string[]) => sharesMachineNetwork(parseConfig(["-C", ws, "-p", "hi", ...flags], { ANTHROPIC_API_KEY: "k" }, false).config!.grants);

test("only a bare --allow-net with no --deny-net at all shares the machine's network", () => {
  expect(shares()).toBe(false);
  expect(shares("--allow-net")).toBe(true);
  // -A grants nothing outside the workspace, the network included.
  expect(shares("-A")).toBe(false);
  expect(shares("--allow-net=example.com")).toBe(false);
  expect(shares("--allow-net", "--deny-net")).toBe(false);
  // A shared network cannot refuse one host (red team 11's F06): a --deny-net list sends commands through the proxy, every other host still reached.
  expect(shares("--allow-net", "--deny-net=evil.example")).toBe(false);
  const grants = parseConfig(["-C", ws, "-p", "hi", "--allow-net", "--deny-net=evil.example"], { ANTHROPIC_API_KEY: "k" }, false).config!.grants;
  expect(proxiesAllNetBut(grants)).toBe(true);
});
