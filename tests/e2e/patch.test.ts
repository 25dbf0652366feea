// End to end: bunker (src/main.ts) against the scripted Messages API, with
// apply_patch. Headless: a patch that does not apply comes back as a report
// the model can act on, and its corrected patch lands. In a real terminal
// (tmux): one prompt shows every file's diff, Yes writes them all, No writes
// nothing and passes the reason on.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, press, quitWithCtrlD, toolResults, waitForCount, waitForQuestion } from "../support/cli.ts";
import { tmuxAvailable } from "../support/tmux.ts";
import { readTree } from "../support/tree.ts";

const e2e = endToEnd("bunker-patch-e2e-");

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
const files = { "src/app.js": app, "src/util.js": util };

describe("apply_patch headless", () => {
  test("a failing patch returns the report, nothing is written, and the corrected patch lands", async () => {
    const { fake, root, run: r } = await e2e.headless(
      [reply([toolUse("apply_patch", { patch: wrongPatch })]), reply([toolUse("apply_patch", { patch: fixedPatch })]), reply("Both files are patched.")],
      ["-p", "make x 42 and double run", "--allow-write"],
      files,
    );
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
    const { fake, root, run: r } = await e2e.headless([reply([toolUse("apply_patch", { patch: fixedPatch })]), reply("I could not patch.")], ["-p", "patch it", "--no-prompt"], files);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("--allow-write");
    const [result] = toolResults(fake.requests[1]);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain("run bunker with --allow-write=src/app.js");
    expect(readFileSync(join(root, "src/app.js"), "utf8")).toBe(app);
    expect(readFileSync(join(root, "src/util.js"), "utf8")).toBe(util);
  });
});

describe.skipIf(!tmuxAvailable)("apply_patch in a real terminal (tmux)", () => {
  test("one prompt with every file's diff; Yes writes them all, No writes nothing and passes the reason on", async () => {
    const second = "*** Begin Patch\n*** Update File: src/util.js\n@@\n-  return n * 2;\n+  return n * 3;\n*** Delete File: src/app.js\n*** End Patch\n";
    const fake = e2e.serve([
      reply([toolUse("apply_patch", { patch: fixedPatch })]), // Yes
      reply([toolUse("apply_patch", { patch: second })]), // No, with a reason
      reply("All done."),
    ]);
    const { root, env } = e2e.workspace(files);
    const tmux = await e2e.terminal([...BUNKER, "patch both files"], { cwd: root, env, cols: 120, rows: 60 });

    let screen = await waitForQuestion(tmux, "Apply these changes to 2 files?", 1);
    expect(screen).toContain("apply_patch wants to edit src/app.js, src/util.js");
    expect(screen).toContain("-  const x = 1;");
    expect(screen).toContain("+  const x = 42;");
    expect(screen).toContain("-  return n;");
    expect(screen).toContain("+  return n * 2;");
    expect(readFileSync(join(root, "src/app.js"), "utf8")).toBe(app);
    await press(tmux, "Enter");

    screen = await waitForQuestion(tmux, "Apply these changes to 2 files?", 2);
    expect(readFileSync(join(root, "src/app.js"), "utf8")).toBe(app.replace("const x = 1", "const x = 42"));
    expect(readFileSync(join(root, "src/util.js"), "utf8")).toBe(util.replace("return n;", "return n * 2;"));
    expect(toolResults(fake.requests[1])[0]).toEqual({ is_error: false, content: "Applied the patch to 2 files:\n  M src/app.js (+1 -1)\n  M src/util.js (+1 -1)" });
    expect(screen).toContain("+  return n * 3;");
    await press(tmux, "Up", "Enter");
    await waitForCount(tmux, "What should Claude do instead?", 1);
    tmux.keys(["keep app.js"], true);
    await press(tmux, "Enter");

    await waitForCount(tmux, "All done.", 1);
    expect(toolResults(fake.requests[2])[0]).toEqual({
      is_error: true,
      content: "The person refused writing src/util.js, src/app.js and said: keep app.js",
    });
    expect(readFileSync(join(root, "src/app.js"), "utf8")).toBe(app.replace("const x = 1", "const x = 42"));
    expect(readFileSync(join(root, "src/util.js"), "utf8")).toBe(util.replace("return n;", "return n * 2;"));

    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });
});
