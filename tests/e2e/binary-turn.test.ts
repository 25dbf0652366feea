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
