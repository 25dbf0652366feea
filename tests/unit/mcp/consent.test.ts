import { expect, test } from "bun:test";
import { parseMcpServers, type McpServerDef } from "../../../src/mcp/config.ts";
import { ConsentStore, decideServers } from "../../../src/mcp/consent.ts";
import { tempDir } from "../../support/context.ts";

const defs = (raw: Record<string, unknown>, source: "user" | "project") =>
  parseMcpServers(raw, { source, file: "/ws/.mcp.json", root: "/ws", home: "/h", env: {}, defaultTimeoutMs: 1 }).servers;

test("a project's server asks once per exact definition: remembered yes, asked again when it changes; the user's never ask", async () => {
  const store = new ConsentStore(tempDir());
  const asked: [string, boolean][] = [];
  const ask = async (def: McpServerDef, changed: boolean) => (asked.push([def.name, changed]), "yes" as const);
  const opts = { root: "/ws", named: [], interactive: true, store, ask };
  const first = await decideServers([...defs({ u: { command: "a" } }, "user"), ...defs({ p: { command: "b" } }, "project")], opts);
  expect(first.start.map((d) => d.name)).toEqual(["u", "p"]);
  expect(asked).toEqual([["p", false]]);
  await decideServers(defs({ p: { command: "b" } }, "project"), opts);
  expect(asked).toHaveLength(1);
  await decideServers(defs({ p: { command: "b", args: ["--more"] } }, "project"), opts);
  expect(asked).toEqual([["p", false], ["p", true]]);
  // Another workspace is another question.
  await decideServers(defs({ p: { command: "b" } }, "project"), { ...opts, root: "/other" });
  expect(asked).toHaveLength(3);
});

test("without a terminal a project's server starts only when --allow-mcp names it; a no is not remembered", async () => {
  const store = new ConsentStore(tempDir());
  const p = defs({ p: { command: "b" } }, "project");
  const ask = async () => "no" as const;
  const headless = await decideServers(p, { root: "/ws", named: [], interactive: false, store, ask });
  expect(headless.start).toEqual([]);
  expect(headless.skipped[0]!.reason).toContain("--allow-mcp=p");
  expect((await decideServers(p, { root: "/ws", named: ["p"], interactive: false, store, ask })).start).toHaveLength(1);
  const declined = await decideServers(p, { root: "/ws", named: [], interactive: true, store, ask });
  expect(declined.skipped[0]!.reason).toBe("you declined it for this session; /mcp start p asks again");
  expect(store.approved("/ws", p[0]!)).toBe(false);
});

test("never is remembered for this exact definition: not asked again until it changes; a later yes replaces it", async () => {
  const store = new ConsentStore(tempDir());
  let answer: "never" | "yes" = "never";
  let asked = 0;
  const ask = async () => (asked++, answer);
  const opts = { root: "/ws", named: [], interactive: true, store, ask };
  const p = defs({ p: { command: "b" } }, "project");
  expect((await decideServers(p, opts)).skipped[0]!.reason).toBe("you declined it in this workspace; /mcp start p asks again");
  const again = await decideServers(p, opts);
  expect([asked, again.start.length, again.skipped[0]!.reason]).toEqual([1, 0, "you declined it in this workspace; /mcp start p asks again"]);
  // --allow-mcp still names it in; another workspace still asks.
  expect((await decideServers(p, { ...opts, named: ["p"] })).start).toHaveLength(1);
  await decideServers(p, { ...opts, root: "/other" });
  expect(asked).toBe(2);
  // A changed definition is a new question; a yes to it replaces the never.
  answer = "yes";
  const changed = defs({ p: { command: "b", args: ["--v2"] } }, "project");
  expect((await decideServers(changed, opts)).start).toHaveLength(1);
  expect([asked, store.declined("/ws", p[0]!), store.approved("/ws", changed[0]!)]).toEqual([3, false, true]);
});

test("a file of 400 servers asks about five at a start; the rest are skipped, each saying how to start it (red team 8)", async () => {
  const store = new ConsentStore(tempDir());
  const asked: string[] = [];
  const ask = async (def: McpServerDef) => (asked.push(def.name), "no" as const);
  const many = defs(Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`s${i}`, { command: "x" }])), "project");
  const out = await decideServers(many, { root: "/ws", named: ["s399"], interactive: true, store, ask });
  expect(asked).toEqual(["s0", "s1", "s2", "s3", "s4"]);
  expect(out.start.map((d) => d.name)).toEqual(["s399"]);
  expect(out.skipped).toHaveLength(399);
  expect(out.skipped.find((s) => s.def.name === "s5")!.reason).toBe("not asked: only 5 of a project's servers are asked about at a start; /mcp start s5 asks");
});

test("a project's server whose program cannot be found is not asked about: skipped with why, to be said at start (new user: asked about pyhton3, then told it was not found)", async () => {
  const { programMissing } = await import("../../../src/mcp/sandbox.ts");
  const store = new ConsentStore(tempDir());
  const asked: string[] = [];
  const ask = async (def: McpServerDef) => (asked.push(def.name), "yes" as const);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const unstartable = (def: McpServerDef) => programMissing(def, { root: "/ws", env });
  const servers = defs({ typo: { command: "pyhton3" }, fine: { command: "python3" } }, "project");
  const out = await decideServers(servers, { root: "/ws", named: [], interactive: true, store, ask, unstartable });
  expect(asked).toEqual(["fine"]);
  expect(out.skipped).toEqual([{ def: servers[0]!, reason: 'the program "pyhton3" was not found on PATH; did you mean "python3"? (its "command" in /ws/.mcp.json)', tell: true }]);
  expect(store.approved("/ws", servers[0]!)).toBe(false);
});
