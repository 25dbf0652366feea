// `bunker --version` and `--help` must start as fast as a hello-world binary.
// The compiled binary is split into ESM chunks (scripts/build/compile.ts), so
// start-up loads only the entry chunk and what it imports statically. This
// bundles src/main.ts the same way and checks that closure stays small and
// free of the SDK: a static import of app.ts or config.ts in main.ts fails it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../scripts/build/fresh.ts";

let out: string;
beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "bunker-chunks-"));
  const result = await Bun.build({
    entrypoints: [join(ROOT, "src/main.ts")], outdir: out, target: "bun",
    format: "esm", splitting: true, minify: true,
  });
  if (!result.success) throw new Error(result.logs.join("\n"));
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The chunks loaded when `file` is: it and its static imports, transitively (not `import()`). */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = readFileSync(join(out, file), "utf8");
  for (const m of code.matchAll(/(?:\bfrom|\bimport)\s*"\.\/([^"]+\.js)"/g)) staticClosure(m[1]!, seen);
  return seen;
}

test("start-up loads under 16 KB of code and none of the SDK", () => {
  const loaded = [...staticClosure("main.js")];
  const bytes = loaded.reduce((n, f) => n + statSync(join(out, f)).size, 0);
  expect(bytes).toBeLessThan(16 * 1024);
  for (const f of loaded) expect(readFileSync(join(out, f), "utf8")).not.toContain("anthropic-version");
});

test("the rest (flag parser, SDK, agent) is reached only through import()", () => {
  const main = readFileSync(join(out, "main.js"), "utf8");
  const lazy = [...main.matchAll(/import\("\.\/([^"]+\.js)"\)/g)].map((m) => m[1]!);
  expect(lazy.length).toBeGreaterThanOrEqual(2);
  const reachable = new Set<string>();
  for (const f of lazy) staticClosure(f, reachable);
  const sdk = [...reachable].filter((f) => readFileSync(join(out, f), "utf8").includes("anthropic-version"));
  expect(sdk.length).toBeGreaterThan(0);
});

/** A message only the MCP client's code holds (it survives minification). */
const MCP_CLIENT_MARK = "Server does not support tools";

test("a session without MCP servers never loads the MCP client: it is reached only through a further import()", () => {
  const main = readFileSync(join(out, "main.js"), "utf8");
  const session = new Set<string>();
  staticClosure("main.js", session);
  for (const m of main.matchAll(/import\("\.\/([^"]+\.js)"\)/g)) staticClosure(m[1]!, session);
  for (const f of session) expect(readFileSync(join(out, f), "utf8")).not.toContain(MCP_CLIENT_MARK);
  const all = readdirSync(out).filter((f) => f.endsWith(".js"));
  expect(all.some((f) => readFileSync(join(out, f), "utf8").includes(MCP_CLIENT_MARK))).toBe(true);
});
