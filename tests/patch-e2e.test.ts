// End to end: bunker (src/main.ts) against the scripted Messages API, with
// apply_patch. Headless: a patch that does not apply comes back as a report
// the model can act on, and its corrected patch lands. In a real terminal
// (tmux): one prompt shows every file's diff, Yes writes them all, No writes
// nothing and passes the reason on.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, type FakeAnthropic, type ServedRequest } from "./support/fake-anthropic.ts";
import { reply, toolUse } from "./support/fake-anthropic/steps.ts";
import { tempDir } from "./support/context.ts";
import { TmuxSession, tmuxAvailable } from "./support/tmux.ts";
import { readTree } from "./support/tree.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
/** BUNKER_BIN=path/to/compiled/bunker runs these against the compiled binary instead of the source. */
const BUNKER = process.env.BUNKER_BIN ? [process.env.BUNKER_BIN] : ["bun", MAIN];

// Skipped, by name, until apply_patch is in the tool list (src/tools/all.ts: see the patch branch's report).
const wired = existsSync(join(import.meta.dir, "..", "src", "tools", "all.ts")) &&
  readFileSync(join(import.meta.dir, "..", "src", "tools", "all.ts"), "utf8").includes("applyPatchTool");

let fake: FakeAnthropic | undefined;
let tmux: TmuxSession | undefined;
afterEach(async () => {
  tmux?.close();
  tmux = undefined;
  await fake?.stop();
  fake = undefined;
});

/** A workspace, plus a private HOME and config dir so no real settings file is read. */
function workspace(files: Record<string, string>): { root: string; env: Record<string, string> } {
  const base = tempDir("bunker-patch-e2e-");
  const root = join(base, "ws");
  mkdirSync(root, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const env = { HOME: join(base, "home"), XDG_CONFIG_HOME: join(base, "config"), ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake!.url };
  return { root, env };
}

/** The tool_result blocks bunker sent in a request, as text. */
function toolResults(req: ServedRequest | undefined): { content: string; is_error: boolean }[] {
  const last = req?.body.messages.at(-1);
  if (!last || typeof last.content === "string") return [];
  return last.content
    .filter((b) => b.type === "tool_result")
    .map((b) => {
      const r = b as { content?: string | { type: string; text?: string }[]; is_error?: boolean };
      const content = typeof r.content === "string" ? r.content : (r.content ?? []).map((c) => c.text ?? "").join("");
      return { content, is_error: r.is_error === true };
    });
}

async function runHeadless(root: string, env: Record<string, string>, args: string[]) {
  const proc = Bun.spawn([...BUNKER, ...args], { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

const app = "export function main() {\n  const x = 1;\n  run(x);\n}\n";
const util = "export function run(n) {\n  return n;\n}\n";
/** The model remembers `const x = 0;`: wrong, so the first patch cannot apply. */
const wrongPatch = [
  "--- a/src/app.js",
  "+++ b/src/app.js",
  "@@ -1,4 +1,4 @@",
  " export function main() {",
  "-  const x = 0;",
  "+  const x = 42;",
  "   run(x);",
  " }",
  "--- a/src/util.js",
  "+++ b/src/util.js",
  "@@ -1,3 +1,3 @@",
  " export function run(n) {",
  "-  return n;",
  "+  return n * 2;",
  " }",
].join("\n");
const fixedPatch = wrongPatch.replace("-  const x = 0;", "-  const x = 1;");

describe.skipIf(!wired)(`apply_patch headless${wired ? "" : " (skipped: apply_patch not in src/tools/all.ts yet)"}`, () => {
  test("a failing patch returns the report, nothing is written, and the corrected patch lands", async () => {
    fake = startFakeAnthropic([
      reply([toolUse("apply_patch", { patch: wrongPatch })]),
      reply([toolUse("apply_patch", { patch: fixedPatch })]),
      reply("Both files are patched."),
    ]);
    const { root, env } = workspace({ "src/app.js": app, "src/util.js": util });
    const r = await runHeadless(root, env, ["-p", "make x 42 and double run", "--allow-write"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Both files are patched.\n");

    const [failed] = toolResults(fake.requests[1]);
    expect(failed?.is_error).toBe(true);
    expect(failed?.content).toContain("The patch was not applied; nothing was written. 1 problem:");
    expect(failed?.content).toContain("src/app.js, hunk 1 of 1 (@@ -1,4 +1,4 @@, patch line 3): its lines are not in the file.");
    expect(failed?.content).toContain("    -  const x = 0;");
    expect(failed?.content).toContain("  ! 2 |   const x = 1;");

    const [landed] = toolResults(fake.requests[2]);
    expect(landed).toEqual({ is_error: false, content: "Applied the patch to 2 files:\n  M src/app.js (+1 -1)\n  M src/util.js (+1 -1)" });
    expect(readTree(root)).toEqual({
      "src/": "<dir>",
      "src/app.js": app.replace("const x = 1", "const x = 42"),
      "src/util.js": util.replace("return n;", "return n * 2;"),
    });
  });

  test("--no-prompt: the patch is refused as a whole, stderr and the model are told which flag grants it", async () => {
    fake = startFakeAnthropic([reply([toolUse("apply_patch", { patch: fixedPatch })]), reply("I could not patch.")]);
    const { root, env } = workspace({ "src/app.js": app, "src/util.js": util });
    const r = await runHeadless(root, env, ["-p", "patch it", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("--allow-write");
    const [result] = toolResults(fake.requests[1]);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain("run bunker with --allow-write=src/app.js");
    expect(readFileSync(join(root, "src/app.js"), "utf8")).toBe(app);
    expect(readFileSync(join(root, "src/util.js"), "utf8")).toBe(util);
  });
});

const ptyReady = wired && tmuxAvailable;
describe.skipIf(!ptyReady)(`apply_patch in a real terminal (tmux)${ptyReady ? "" : " (skipped: needs tmux and apply_patch in src/tools/all.ts)"}`, () => {
  const count = (screen: string, text: string) => screen.split(text).length - 1;

  async function waitForCount(text: string, n: number): Promise<string> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const screen = tmux!.screen();
      if (count(screen, text) >= n) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${n}× ${JSON.stringify(text)}; screen:\n${screen}`);
      await Bun.sleep(50);
    }
  }

  async function press(...keys: string[]): Promise<void> {
    for (const k of keys) {
      tmux!.keys([k]);
      await Bun.sleep(k === "Escape" ? 150 : 60);
    }
  }

  test("one prompt with every file's diff; Yes writes them all, No writes nothing and passes the reason on", async () => {
    const second = "*** Begin Patch\n*** Update File: src/util.js\n@@\n-  return n * 2;\n+  return n * 3;\n*** Delete File: src/app.js\n*** End Patch\n";
    fake = startFakeAnthropic([
      reply([toolUse("apply_patch", { patch: fixedPatch })]), // Yes
      reply([toolUse("apply_patch", { patch: second })]), // No, with a reason
      reply("All done."),
    ]);
    const { root, env } = workspace({ "src/app.js": app, "src/util.js": util });
    tmux = await TmuxSession.start([...BUNKER, "patch both files"], { cwd: root, env, cols: 120, rows: 60 });

    let screen = await waitForCount("Apply these changes to 2 files?", 1);
    expect(screen).toContain("apply_patch wants to edit src/app.js, src/util.js");
    expect(screen).toContain("-  const x = 1;");
    expect(screen).toContain("+  const x = 42;");
    expect(screen).toContain("-  return n;");
    expect(screen).toContain("+  return n * 2;");
    expect(readFileSync(join(root, "src/app.js"), "utf8")).toBe(app);
    await press("Enter");

    screen = await waitForCount("Apply these changes to 2 files?", 2);
    expect(readFileSync(join(root, "src/app.js"), "utf8")).toBe(app.replace("const x = 1", "const x = 42"));
    expect(readFileSync(join(root, "src/util.js"), "utf8")).toBe(util.replace("return n;", "return n * 2;"));
    expect(toolResults(fake.requests[1])[0]).toEqual({ is_error: false, content: "Applied the patch to 2 files:\n  M src/app.js (+1 -1)\n  M src/util.js (+1 -1)" });
    expect(screen).toContain("+  return n * 3;");
    await press("Up", "Enter");
    await waitForCount("What should Claude do instead?", 1);
    tmux.keys(["keep app.js"], true);
    await press("Enter");

    await waitForCount("All done.", 1);
    expect(toolResults(fake.requests[2])[0]).toEqual({
      is_error: true,
      content: "The person refused writing src/util.js, src/app.js and said: keep app.js",
    });
    expect(readFileSync(join(root, "src/app.js"), "utf8")).toBe(app.replace("const x = 1", "const x = 42"));
    expect(readFileSync(join(root, "src/util.js"), "utf8")).toBe(util.replace("return n;", "return n * 2;"));

    await Bun.sleep(100);
    tmux.keys(["C-d"]);
    const deadline = Date.now() + 10_000;
    while (tmux.exitStatus() === null && Date.now() < deadline) await Bun.sleep(50);
    expect(tmux.exitStatus()).not.toBeNull();
  });
});
