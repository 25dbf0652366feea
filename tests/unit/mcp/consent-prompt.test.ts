import { expect, test } from "bun:test";
import { describeDefinition } from "../../../src/mcp/consent-prompt.ts";
import { parseMcpServers } from "../../../src/mcp/config.ts";

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");

test("the question shows the whole command quoted as a shell would need it, invisible characters escaped, and the variables it gets", () => {
  const [def] = parseMcpServers(
    { p: { command: "node", args: ["server.js", "--name", "a b", "x\u202ey"], env: { TOKEN: "${MY_TOKEN}" } } },
    { source: "project", file: "/ws/.mcp.json", root: "/ws", home: "/h", env: { MY_TOKEN: "t" }, defaultTimeoutMs: 1 },
  ).servers;
  const lines = describeDefinition(def!, true).map(strip);
  expect(lines[0]).toBe("$ node server.js --name 'a b' 'x\\u202ey'");
  expect(lines).toContain("sets: TOKEN");
  expect(lines).toContain("gets your variables: MY_TOKEN");
  expect(lines).toContain("runs in the sandbox: workspace read-only, no network, its own state directory");
  const [http] = parseMcpServers({ h: { type: "http", url: "https://x.example/mcp", headers: { Authorization: "b" } } }, { source: "project", file: "f", root: "/ws", home: "/h", env: {}, defaultTimeoutMs: 1 }).servers;
  expect(describeDefinition(http!, true).map(strip)).toEqual(["connects to https://x.example/mcp", "headers: Authorization"]);
});
