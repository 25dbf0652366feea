// The compiled binary holds a real conversation: copied alone into a temp
// workspace, run with an empty PATH against the scripted server, it runs two
// tools in one response, refuses a path outside the workspace, and prints
// only the answer on stdout.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freshBinary } from "../../scripts/build/fresh.ts";
import { reply, startFakeAnthropic, text, toolUse } from "../support/fake-anthropic.ts";
import { runBunker } from "../support/cli.ts";
import { tempDir } from "../support/context.ts";

let base: string;
let ws: string;
let bin: string;

beforeAll(async () => {
  const built = await freshBinary();
  base = tempDir("bunker-binturn-");
  ws = join(base, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "notes.md"), "the answer is 42\n");
  writeFileSync(join(base, "secret.txt"), "top secret\n");
  symlinkSync(join(base, "secret.txt"), join(ws, "link.txt"));
  bin = join(base, "bunker");
  copyFileSync(built.path, bin);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

/** The globals the code blocks in a BUN_JSC_dumpGeneratedBytecodes dump look up (resolve_scope), by name. */
function globalsNamed(dump: string): Set<string> {
  const names = new Set<string>();
  for (const block of dump.split(/\n(?=[^\s[].*: \d+ instructions)/)) {
    const ids = new Map<string, string>();
    for (const m of block.matchAll(/^\s+id(\d+) = (.+)$/gm)) ids.set(m[1]!, m[2]!);
    for (const m of block.matchAll(/resolve_scope\s+dst:\w+, scope:\w+, var:(\d+), resolveType:(\w+)/g)) {
      if (/Global|Unresolved/.test(m[2]!)) names.add(ids.get(m[1]!) ?? "");
    }
  }
  return names;
}

/** One call of each helper jit.ts keeps off a read-only turn. */
const HELPER_CALLS = "const a = [1, 2]; a.map((x) => x); a.filter(Boolean); a.at(-1); a.some(Boolean); a.every(Boolean); a.find(Boolean); a.findIndex(Boolean); a.findLast(Boolean); a.findLastIndex(Boolean); a.flatMap((x) => [x]); a.forEach(() => {}); a.reduce((x, y) => x + y); Object.fromEntries([[1, 2]]); Array.from(a, (x) => x);";

test("a read-only headless turn compiles no regular expression, none of the array helpers JavaScriptCore writes in JavaScript, and never sets up Buffer (src/jit.ts)", async () => {
  const fake = startFakeAnthropic([reply([toolUse("read_file", { path: "notes.md" }, "t1")]), reply([text("done")])]);
  try {
    const { stdout, stderr, code } = await runBunker(["-p", "read notes.md"], {
      argv: [bin],
      cwd: ws,
      // JavaScriptCore's own options: each compiled pattern, and a header line per code block made.
      env: { PATH: "", HOME: base, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, BUN_JSC_dumpCompiledRegExpPatterns: "1", BUN_JSC_dumpGeneratedBytecodes: "1" },
    });
    expect(code).toBe(0);
    expect(stdout).toBe("done\n");
    const blocks = new Set([...stderr.matchAll(/^([\w$]*#\w+):\[.*\]: \d+ instructions/gm)].map((m) => m[1]!));
    expect(blocks.size).toBeGreaterThan(100);
    // The helpers' own code blocks, as this Bun (the binary's runtime) makes them: name#hash, the hash from their source.
    const helpers = Bun.spawnSync([process.execPath, "-e", HELPER_CALLS], { env: { BUN_JSC_dumpGeneratedBytecodes: "1" }, stdout: "ignore", stderr: "pipe" }).stderr.toString();
    const helperBlocks = [...helpers.matchAll(/^((?:map|filter|at|some|every|find|findIndex|findLast|findLastIndex|flatMap|forEach|reduce|fromEntries|from)#\w+):/gm)].map((m) => m[1]!);
    // The dump is read (a Bun that writes one of them natively has no block for it: nothing to look for).
    expect(helperBlocks.length).toBeGreaterThan(0);
    expect(helperBlocks.filter((b) => blocks.has(b))).toEqual([]);
    expect(stderr.match(/^RegExp pattern for .*/gm) ?? []).toEqual([]);
    // Nor does any function it runs name the Buffer global (linking one that does sets Buffer up, about 0.2 ms).
    expect(globalsNamed(stderr)).toContain("JSON");
    expect(globalsNamed(stderr)).not.toContain("Buffer");
  } finally {
    await fake.stop();
  }
});

test("a headless turn with two tools in one response, one refused for escaping the workspace", async () => {
  const fake = startFakeAnthropic([
    reply([text("Reading."), toolUse("read_file", { path: "notes.md" }, "t1"), toolUse("read_file", { path: "link.txt" }, "t2")]),
    reply([text("It is 42.")]),
  ]);
  try {
    const { stdout, stderr, code } = await runBunker(["-p", "what is the answer?"], {
      argv: [bin],
      cwd: ws,
      env: { PATH: "", HOME: base, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
    });
    expect(code).toBe(0);
    expect(stdout).toBe("It is 42.\n");
    expect(stderr).toContain("read_file notes.md");
    const results = (fake.requests[1]!.body.messages.at(-1)!.content as { tool_use_id: string; content: string; is_error?: boolean }[]);
    expect(results.map((r) => r.tool_use_id)).toEqual(["t1", "t2"]);
    expect(results[0]!.content).toContain("the answer is 42");
    expect(results[1]!.is_error).toBe(true);
    expect(results[1]!.content).toContain("--allow-read=");
    expect(JSON.stringify(fake.requests)).not.toContain("top secret");
    // An empty PATH does not hide a system bubblewrap from the sandbox.
    if (process.platform === "linux" && existsSync("/usr/bin/bwrap")) expect(stderr).not.toContain("No sandbox");
  } finally {
    await fake.stop();
  }
});
