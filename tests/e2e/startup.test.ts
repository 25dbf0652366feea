// `bunker --version` and `--help` must start as fast as a hello-world binary.
// The compiled binary is split into ESM chunks (scripts/build/compile.ts), so
// start-up loads only the entry chunk and what it imports statically. This
// bundles src/main.ts the same way and checks that closure stays small and
// free of the API client: a static import of app.ts or config.ts in main.ts fails it.
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

/** The Messages API request (src/agent/api-client.ts and anything like it). */
const holdsApi = (f: string) => readFileSync(join(out, f), "utf8").includes("anthropic-version");

test("start-up loads under 16 KB of code and none of the API client", () => {
  const loaded = [...staticClosure("main.js")];
  const bytes = loaded.reduce((n, f) => n + statSync(join(out, f)).size, 0);
  expect(bytes).toBeLessThan(16 * 1024);
  expect(loaded.filter(holdsApi)).toEqual([]);
});

/** The chunks `files` load through import(), and what those load statically. */
function lazyClosure(files: Iterable<string>): Set<string> {
  const reached = new Set<string>();
  for (const f of files) {
    for (const m of readFileSync(join(out, f), "utf8").matchAll(/import\("\.\/([^"]+\.js)"\)/g)) staticClosure(m[1]!, reached);
  }
  return reached;
}

/** The SDK's client (its user-agent), which bunker does not use: only its SSE reader and types. */
const holdsSdkClient = (f: string) => readFileSync(join(out, f), "utf8").includes("Anthropic/JS");

test("the rest (flag parser, agent, the API client) is reached only through import(); the SDK's client is not in the binary", () => {
  const session = lazyClosure(["main.js"]);
  expect(session.size).toBeGreaterThanOrEqual(2);
  expect([...session].some(holdsApi)).toBe(true);
  const all = readdirSync(out).filter((f) => f.endsWith(".js"));
  expect(all.filter(holdsSdkClient)).toEqual([]);
});

/** A message only the MCP client's code holds (it survives minification). */
const MCP_CLIENT_MARK = "Server does not support tools";

test("a session without MCP servers never loads the MCP client: it is reached only through a further import()", () => {
  const session = lazyClosure(["main.js"]);
  staticClosure("main.js", session);
  for (const f of session) expect(readFileSync(join(out, f), "utf8")).not.toContain(MCP_CLIENT_MARK);
  const all = readdirSync(out).filter((f) => f.endsWith(".js"));
  expect(all.some((f) => readFileSync(join(out, f), "utf8").includes(MCP_CLIENT_MARK))).toBe(true);
});

/** The chunk holding `mark` (a string only that module's code holds; strings survive minification). */
function chunkHolding(mark: string): string {
  const found = readdirSync(out).filter((f) => f.endsWith(".js") && readFileSync(join(out, f), "utf8").includes(mark));
  expect(found).toHaveLength(1);
  return found[0]!;
}

// Marks of the modules a headless turn passes through (config.ts, app.ts, headless.ts), and of the code it may not need.
const CONFIG_MARK = "names nothing (an empty list";
const APP_MARK = "  denied: ";
const HEADLESS_MARK = "no prompt: stdin is not a terminal";
const BUBBLEWRAP_MARK = '"--ro-bind"';
const NODE_NET = /from\s*"(node:)?net"/;
const SQLITE = /from\s*"bun:sqlite"/;
const PATCH_PARSER_MARK = "expected an @@ hunk header after the";
const GLOB_MARK = "pattern is empty; try **/* for every file";
const COMMAND_JUDGE_MARK = "a session prefix does not cover commands in a line that changes directory";
/** The sandbox's git guard (what runs a written file later), required at the first write decision (src/perms/later-checks.ts). */
const GIT_GUARD_MARK = "is a .git file: git follows it to the git directory it names";
/** The diff package (structuredPatch's own words), required where a diff is made (src/diff/package.ts). */
const DIFF_PACKAGE_MARK = "newlineIsToken may not be used with patch-generation functions";
/** Built-in modules a turn that makes no diff nor checks a host has no use for: node:os (src/fs/home.ts finds the home) and node:url. */
const NODE_OS_OR_URL = /from\s*"(node:)?(os|url)"/;

test("a headless turn that runs no command, fetches, edits nor searches nothing loads neither the sandbox (bubblewrap), node:net, the command judge, bun:sqlite, the patch parser, glob, the diff package, the git guard, node:os nor node:url: they load on first use", () => {
  const turn = new Set<string>();
  for (const f of ["main.js", chunkHolding(CONFIG_MARK), chunkHolding(APP_MARK), chunkHolding(HEADLESS_MARK)]) staticClosure(f, turn);
  const code = (f: string) => readFileSync(join(out, f), "utf8");
  expect([...turn].filter((f) => code(f).includes(BUBBLEWRAP_MARK))).toEqual([]);
  expect([...turn].filter((f) => NODE_NET.test(code(f)))).toEqual([]);
  expect([...turn].filter((f) => code(f).includes(COMMAND_JUDGE_MARK))).toEqual([]);
  // The file tools other than read_file load their code on first call: a turn that only reads loads no patch parser nor glob.
  expect([...turn].filter((f) => code(f).includes(PATCH_PARSER_MARK))).toEqual([]);
  expect([...turn].filter((f) => code(f).includes(GLOB_MARK))).toEqual([]);
  // A new headless session writes a journal: bun:sqlite is loaded by the runs that read or write the store itself.
  expect([...turn].filter((f) => SQLITE.test(code(f)))).toEqual([]);
  expect([...turn].filter((f) => code(f).includes(DIFF_PACKAGE_MARK))).toEqual([]);
  expect([...turn].filter((f) => code(f).includes(GIT_GUARD_MARK))).toEqual([]);
  expect([...turn].filter((f) => NODE_OS_OR_URL.test(code(f)))).toEqual([]);
  // Both are in the binary, reached through import().
  const all = readdirSync(out).filter((f) => f.endsWith(".js"));
  expect(all.some((f) => code(f).includes(BUBBLEWRAP_MARK))).toBe(true);
  expect(all.some((f) => NODE_NET.test(code(f)))).toBe(true);
  expect(all.some((f) => code(f).includes(COMMAND_JUDGE_MARK))).toBe(true);
  expect(all.some((f) => SQLITE.test(code(f)))).toBe(true);
  expect(all.some((f) => code(f).includes(PATCH_PARSER_MARK))).toBe(true);
  expect(all.some((f) => code(f).includes(GLOB_MARK))).toBe(true);
  expect(all.some((f) => code(f).includes(DIFF_PACKAGE_MARK))).toBe(true);
  expect(all.some((f) => code(f).includes(GIT_GUARD_MARK))).toBe(true);
});
