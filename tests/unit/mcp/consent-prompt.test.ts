import { expect, test } from "bun:test";
import { describeDefinition } from "../../../src/mcp/consent-prompt.ts";
import { parseMcpServers } from "../../../src/mcp/config.ts";
import type { LaunchView } from "../../../src/mcp/sandbox.ts";

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");
const confined: LaunchView = { sandboxed: true, network: "none", readable: [], notShown: [] };

test("the question shows the whole command quoted as a shell would need it, invisible characters escaped, and the variables it gets", () => {
  const [def] = parseMcpServers(
    { p: { command: "node", args: ["server.js", "--name", "a b", "x\u202ey"], env: { TOKEN: "${MY_TOKEN}" } } },
    { source: "project", file: "/ws/.mcp.json", root: "/ws", home: "/h", env: { MY_TOKEN: "t" }, defaultTimeoutMs: 1 },
  ).servers;
  const lines = describeDefinition(def!, confined).map(strip);
  expect(lines[0]).toBe("$ node server.js --name 'a b' 'x\\u202ey'");
  // Each variable with its value as written: a ${VAR} is shown so, never the token it brings.
  expect(lines).toContain("sets: TOKEN=${MY_TOKEN}");
  expect(lines.join("\n")).not.toContain("=t\n");
  expect(lines).toContain("gets your variables: MY_TOKEN");
  expect(lines).toContain("runs in the sandbox: workspace read-only, no network, its own state directory");
  const [http] = parseMcpServers({ h: { type: "http", url: "https://x.example/mcp", headers: { Authorization: "b" } } }, { source: "project", file: "f", root: "/ws", home: "/h", env: {}, defaultTimeoutMs: 1 }).servers;
  expect(describeDefinition(http!, confined).map(strip)).toEqual(["connects to https://x.example/mcp", "headers: Authorization"]);
});

test("a variable that makes the program run other code is marked with what it does (red team 8 F12)", () => {
  const [def] = parseMcpServers(
    { p: { command: "python3", args: ["tools/helper_mcp.py"], env: { PYTHONPATH: "tools/.cache", NODE_OPTIONS: "--require ./x.js", MODE: "fast\x1b[2J" } } },
    { source: "project", file: "/ws/.mcp.json", root: "/ws", home: "/h", env: {}, defaultTimeoutMs: 1 },
  ).servers;
  const lines = describeDefinition(def!, confined).map(strip);
  expect(lines).toContain("sets: PYTHONPATH=tools/.cache (loads code: python imports from there first, and runs a sitecustomize.py there at start)");
  expect(lines).toContain("sets: NODE_OPTIONS=--require ./x.js (loads code: node runs what --require or --import names)");
  expect(lines).toContain("sets: MODE=fast\\x1b[2J");
  const [bun] = parseMcpServers({ b: { command: "bun", args: ["s.ts"], env: { BUN_OPTIONS: "--preload ./x.ts" } } }, { source: "project", file: "/ws/.mcp.json", root: "/ws", home: "/h", env: {}, defaultTimeoutMs: 1 }).servers;
  expect(describeDefinition(bun!, confined).map(strip)).toContain("sets: BUN_OPTIONS=--preload ./x.ts (loads code: bun takes those options: --preload runs a file first)");
});

test("the question lists exactly the extra paths it will see, and those its arguments name that it will not, with how to grant one", () => {
  const [def] = parseMcpServers({ leak: { command: "bun", args: ["./srv.ts", "/out/.env"] } }, { source: "project", file: "/ws/.mcp.json", root: "/ws", home: "/h", env: {}, defaultTimeoutMs: 1 }).servers;
  const nothing = describeDefinition(def!, confined).map(strip);
  expect(nothing).toContain("sees nothing else of this machine but the system and toolchain directories");
  const lines = describeDefinition(def!, { sandboxed: true, network: "none", readable: ["/opt/tool\x1b[2J"], notShown: ["/out/.env", "/root/m.txt"] }).map(strip);
  expect(lines).toContain("also sees, read-only: /opt/tool\\x1b[2J");
  expect(lines).toContain("named but NOT shown to it (outside the workspace): /out/.env, /root/m.txt");
  expect(lines).toContain('to let it read one, add "read": ["/out/.env"] under mcpServers.leak in your settings.json, or run with --allow-read=/out/.env');
  expect(describeDefinition(def!, { ...confined, sandboxed: false }).map(strip)).toContain("runs WITHOUT a sandbox (none is available here)");
});

test("SIGTERM while the question reads the keys already typed (raw mode on, before it is drawn): the terminal is given back", async () => {
  const here = (p: string) => JSON.stringify(new URL(p, import.meta.url).pathname);
  const script = `
    const { askConsent } = await import(${here("../../../src/mcp/consent-prompt.ts")});
    const { parseMcpServers } = await import(${here("../../../src/mcp/config.ts")});
    const { installSignalExits } = await import(${here("../../../src/sandbox/process.ts")});
    const { PassThrough } = await import("node:stream");
    installSignalExits();
    const [def] = parseMcpServers({ p: { command: "node" } }, { source: "project", file: "/ws/.mcp.json", root: "/ws", home: "/h", env: {}, defaultTimeoutMs: 1 }).servers;
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: (on) => process.stdout.write("raw " + on + ";") });
    void askConsent(def, false, { sandboxed: true, network: "none", readable: [], notShown: [] }, input);
    process.kill(process.pid, "SIGTERM");`;
  const proc = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "pipe" });
  const [code, out] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
  expect(code).toBe(143);
  expect(out).toBe("raw true;raw false;");
});
