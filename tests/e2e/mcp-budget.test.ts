// The schema budget, end to end: with 3 servers of 40 tools each, the first
// request grows by at most 10 KB over the same request with no servers; the
// rest wait behind mcp_tool_search, and the model finds one and calls it.
import { afterEach, expect, test } from "bun:test";
import { startFakeAnthropic, type FakeAnthropic, type RecordedRequest } from "../support/fake-anthropic.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { runHeadless, toolResults, workspace } from "../support/cli.ts";
import { testServer, writeUserSettings } from "../support/mcp.ts";

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

const tools = (rec: RecordedRequest) => (rec.body.tools ?? []) as { name: string }[];
const toolNames = (rec: RecordedRequest) => tools(rec).map((t) => t.name);
/** Bytes the MCP tools (and the search tool) take in a request, leaving out `except`. */
const mcpBytes = (rec: RecordedRequest, except: string[] = []) =>
  tools(rec).filter((t) => (t.name.startsWith("mcp__") || t.name === "mcp_tool_search") && !except.includes(t.name)).reduce((n, t) => n + JSON.stringify(t).length + 1, 0);

test("3 servers × 40 tools: the first request stays within 10 KB of today's, and the model finds and calls a held-back tool", async () => {
  // Today's request: no servers.
  fake = startFakeAnthropic([reply("Hi.")]);
  const plain = workspace("bunker-mcp-budget-", fake.url);
  await runHeadless(plain.root, plain.env, ["-p", "find the record", "--no-prompt"]);
  const baseline = fake.requests[0]!.bytes;
  await fake.stop();

  let found: string[] = [];
  fake = startFakeAnthropic([
    // The model looks for tools whose schemas were not sent.
    reply([toolUse("mcp_tool_search", { query: "tool_39" })]),
    // What it found is sent now; it calls the first.
    (rec) => {
      const text = toolResults(rec)[0]?.content ?? "";
      found = [...text.matchAll(/^- (mcp__\w+): /gm)].map((m) => m[1]!);
      return reply(found[0] && toolNames(rec).includes(found[0]) ? [toolUse(found[0], { id: "r-7" })] : "Nothing was loaded.");
    },
    reply("Found it."),
  ]);
  const { root, env } = workspace("bunker-mcp-budget-", fake.url);
  const servers = Object.fromEntries(["s1", "s2", "s3"].map((s) => [s, testServer(["--name", s, "--tools", "40"])]));
  writeUserSettings(env, { allow: ["mcp:s1/*", "mcp:s2/*", "mcp:s3/*"], mcpServers: servers });
  const r = await runHeadless(root, env, ["-p", "find the record", "--no-prompt"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("Found it.\n");

  // The first request (whichever servers had joined within the second it waits) and the second (all had: the search waits for them).
  expect(fake.requests[0]!.bytes - baseline).toBeLessThanOrEqual(10 * 1024);
  expect(mcpBytes(fake.requests[1]!, found)).toBeLessThanOrEqual(10 * 1024);
  expect(toolNames(fake.requests[1]!)).toContain("mcp_tool_search");
  expect(toolNames(fake.requests[1]!).filter((n) => n.startsWith("mcp__")).length).toBeLessThan(3 * 48);
  // Found tools were held back, and are sent from then on.
  expect(found.length).toBeGreaterThan(0);
  for (const name of found) expect(toolNames(fake.requests[0]!)).not.toContain(name);
  expect(toolNames(fake.requests[2]!)).toContain(found[0]!);
  const [, server, tool] = /^mcp__(\w+?)__(\w+)$/.exec(found[0]!)!;
  expect(toolResults(fake.requests[2])[0]).toEqual({ is_error: false, content: `${server} ${tool} found record r-7` });
});
