import { expect, test } from "bun:test";
import { SandboxedStdioTransport } from "../../../src/mcp/stdio.ts";
import { BUN } from "../../support/mcp.ts";

const script = `
process.stdout.write("not json\\n");
process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/hello" }) + "\\n");
process.stderr.write("first\\nlast words\\n");
process.stdin.on("data", (d) => { process.stdout.write(d); process.exit(7); });
`;

test("JSON-RPC lines become messages, other lines are reported, stderr comes line by line, the exit status is kept", async () => {
  const garbage: string[] = [];
  const stderr: string[] = [];
  const messages: unknown[] = [];
  const t = new SandboxedStdioTransport({ command: BUN, args: ["-e", script], env: { PATH: process.env.PATH ?? "" }, cwd: process.cwd() }, {
    onGarbage: (l) => garbage.push(l),
    onStderr: (l) => stderr.push(l),
  });
  const closed = new Promise<void>((resolve) => (t.onclose = resolve));
  t.onmessage = (m) => messages.push(m);
  await t.start();
  expect(t.pid).toBeGreaterThan(0);
  await Bun.sleep(300);
  await t.send({ jsonrpc: "2.0", id: 1, method: "ping" });
  await closed;
  expect(garbage).toEqual(["not json"]);
  expect(messages).toEqual([{ jsonrpc: "2.0", method: "notifications/hello" }, { jsonrpc: "2.0", id: 1, method: "ping" }]);
  expect(stderr).toEqual(["first", "last words"]);
  expect(t.exitCode).toBe(7);
  await expect(t.send({ jsonrpc: "2.0", id: 2, method: "ping" })).rejects.toThrow("Not connected");
});

test("a server that exits before reading: the send is a 'Connection closed' error with the exit status known, never a stray EPIPE", async () => {
  const t = new SandboxedStdioTransport({ command: "sh", args: ["-c", "exec 0<&-; echo dying >&2; sleep 0.3; exit 3"], env: { PATH: process.env.PATH ?? "" }, cwd: process.cwd() }, {
    onGarbage: () => {},
    onStderr: () => {},
  });
  await t.start();
  await Bun.sleep(100);
  // More than a pipe holds: the write cannot finish at once, and the pipe breaks under it.
  const big = { jsonrpc: "2.0" as const, id: 1, method: "initialize", params: { pad: "x".repeat(200_000) } };
  const failed = await t.send(big).then(() => null, (e: Error) => e);
  expect(failed?.message).toMatch(/^Connection closed: the server exited/);
  expect(t.exitCode).toBe(3);
});
