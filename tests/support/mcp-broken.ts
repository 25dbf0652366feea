// MCP servers that misbehave, for the failure tests, written by hand (the
// SDK would not let a server be this wrong):
//   bun tests/support/mcp-broken.ts garbage   prints lines that are not JSON-RPC, and never answers
//   bun tests/support/mcp-broken.ts invalid   a correct handshake, one tool, and a result that is not a CallToolResult
//   bun tests/support/mcp-broken.ts no-tools  a correct handshake from a server that offers no tools at all
import { createInterface } from "node:readline";

const mode = process.argv[2];
if (mode === "garbage") {
  for (let i = 0; i < 5; i++) process.stdout.write(`Welcome to the server! line ${i}\n`);
  setInterval(() => {}, 1000);
} else {
  const send = (msg: unknown) => process.stdout.write(JSON.stringify(msg) + "\n");
  createInterface({ input: process.stdin }).on("line", (line) => {
    const msg = JSON.parse(line) as { id?: number; method: string; params?: { protocolVersion?: string } };
    if (msg.id === undefined) return;
    if (msg.method === "initialize") {
      send({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: msg.params?.protocolVersion, capabilities: mode === "no-tools" ? {} : { tools: {} }, serverInfo: { name: mode, version: "1" } } });
    } else if (msg.method === "tools/list") {
      send({ jsonrpc: "2.0", id: msg.id, result: { tools: [{ name: "answer", description: "Answers wrongly.", inputSchema: { type: "object" } }] } });
    } else if (msg.method === "tools/call") {
      send({ jsonrpc: "2.0", id: msg.id, result: { content: "this should be a list", isError: "no" } });
    } else {
      send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no such method" } });
    }
  });
}
