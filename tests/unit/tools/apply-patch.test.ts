// apply_patch through the registry, as the loop calls it: the approval it
// asks for, what the person sees, and what lands on disk.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { contentHash } from "../../../src/agent/session-state.ts";
import { emptyGrants } from "../../../src/perms/policy.ts";
import type { PermRequest } from "../../../src/perms/types.ts";
import { applyPatchTool } from "../../../src/tools/apply-patch.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { makeContext, tempDir, type TestContext } from "../../support/context.ts";
import { readTree, workspaceWith } from "../../support/tree.ts";
import { testEscapes } from "../../support/write-escape.ts";

const registry = new ToolRegistry([applyPatchTool]);

const workspace = (files: Record<string, string>) => workspaceWith(files, "bunker-ap-");

const run = (ctx: TestContext, patch: string, dry_run?: boolean) =>
  registry.run("apply_patch", dry_run === undefined ? { patch } : { patch, dry_run }, ctx);

const twoFiles = {
  "src/a.ts": "export const a = 1;   \nexport const b = 2;\n",
  "src/old.ts": "gone\n",
};
const twoFilePatch = [
  "--- a/src/a.ts",
  "+++ b/src/a.ts",
  "@@ -30,2 +30,2 @@",
  " export const a = 1;",
  "-export const b = 2;",
  "+export const b = 3;",
  "--- a/src/old.ts",
  "+++ /dev/null",
  "@@ -1 +0,0 @@",
  "-gone",
  "--- /dev/null",
  "+++ b/src/new.ts",
  "@@ -0,0 +1 @@",
  "+fresh",
].join("\n");

describe("apply_patch", () => {
  test("a new executable file is marked as such in the diff the person approves, and lands 0755", async () => {
    const root = workspace({});
    const ctx = makeContext(root, { answers: [{ answer: "once" }] });
    const patch = ["diff --git a/run.sh b/run.sh", "new file mode 100755", "--- /dev/null", "+++ b/run.sh", "@@ -0,0 +1,2 @@", "+#!/bin/sh", "+echo hi"].join("\n");
    expect((await run(ctx, patch)).isError).toBe(false);
    const shown = ctx.approver.asked[0]!.files![0]!;
    expect(shown.diff.split("\n").slice(0, 3)).toEqual(["new file mode 100755 (executable)", "--- /dev/null", "+++ b/run.sh"]);
    expect(statSync(join(root, "run.sh")).mode & 0o777).toBe(0o755);
  });

  test("one prompt for the whole patch, with diffs from the real before and after contents", async () => {
    const root = workspace(twoFiles);
    const ctx = makeContext(root, { answers: [{ answer: "once" }] });
    const res = await run(ctx, twoFilePatch);
    expect(res).toEqual({
      isError: false,
      content: [
        "Applied the patch to 3 files:",
        "  M src/a.ts (+1 -1)",
        "  D src/old.ts (-1)",
        "  A src/new.ts (+1)",
        "Notes:",
        "  src/a.ts, hunk 1 of 1 (@@ -30,2 +30,2 @@, patch line 3): matched ignoring trailing whitespace.",
        "  src/a.ts, hunk 1 of 1 (@@ -30,2 +30,2 @@, patch line 3): placed at line 1 (the header said 30).",
      ].join("\n"),
      // The person's one line after the change (TerminalUI prints it).
      shown: "Updated src/a.ts (+1 -1), deleted src/old.ts, created src/new.ts (1 line)",
    });
    expect(ctx.approver.asked.length).toBe(1);
    const req = ctx.approver.asked[0]!;
    expect([req.kind, req.tool, req.target, req.alsoTargets]).toEqual([
      "write",
      "apply_patch",
      join(root, "src/a.ts"),
      [join(root, "src/old.ts"), join(root, "src/new.ts")],
    ]);
    // The preview shows the file's real line (with its trailing spaces) and real line numbers, not the model's.
    expect(req.files!.map((f) => [f.display, f.kind, f.added, f.removed])).toEqual([
      ["src/a.ts", "modify", 1, 1],
      ["src/old.ts", "delete", 0, 1],
      ["src/new.ts", "create", 1, 0],
    ]);
    expect(req.files![0]!.diff).toBe(
      "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n export const a = 1;   \n-export const b = 2;\n+export const b = 3;",
    );
    expect(readTree(root)).toEqual({
      "src/": "<dir>",
      "src/a.ts": "export const a = 1;   \nexport const b = 3;\n",
      "src/new.ts": "fresh\n",
    });
  });

  test("a rename is one preview, and written files count as read", async () => {
    const root = workspace({ "a.txt": "1\n", "b.txt": "x\n" });
    const ctx = makeContext(root, { answers: [{ answer: "once" }] });
    ctx.session.recordRead(join(root, "a.txt"), "1\n");
    const env = "*** Begin Patch\n*** Update File: a.txt\n*** Move to: c.txt\n@@\n-1\n+2\n*** Update File: b.txt\n@@\n-x\n+y\n*** End Patch\n";
    const res = await run(ctx, env);
    expect(res.isError).toBe(false);
    expect(ctx.approver.asked[0]!.files!.map((f) => [f.display, f.kind])).toEqual([
      ["a.txt → c.txt", "rename"],
      ["b.txt", "modify"],
    ]);
    expect(ctx.approver.asked[0]!.alsoTargets).toEqual([join(root, "c.txt"), join(root, "b.txt")]);
    expect(ctx.session.readHashes.has(join(root, "a.txt"))).toBe(false);
    expect(ctx.session.readHashes.get(join(root, "c.txt"))).toBe(contentHash("2\n"));
    expect(ctx.session.readHashes.get(join(root, "b.txt"))).toBe(contentHash("y\n"));
  });

  test("denied with a reason: nothing is written and the model hears the reason", async () => {
    const root = workspace(twoFiles);
    const before = readTree(root);
    const ctx = makeContext(root, { answers: [{ answer: "deny", feedback: "keep old.ts" }] });
    const res = await run(ctx, twoFilePatch);
    expect(res.isError).toBe(true);
    expect(res.content).toBe("The person refused writing src/a.ts, src/old.ts, src/new.ts and said: keep old.ts");
    expect(readTree(root)).toEqual(before);
  });

  test("without a terminal, the denial names the flag that grants it; with --allow-write no one is asked", async () => {
    const root = workspace(twoFiles);
    const before = readTree(root);
    const headless = makeContext(root, { interactive: false });
    const res = await run(headless, twoFilePatch);
    expect(res.isError).toBe(true);
    expect(res.content).toContain("run bunker with --allow-write=src/a.ts (or --allow-write for the whole workspace)");
    expect(readTree(root)).toEqual(before);

    const grants = emptyGrants();
    grants.allow.write.workspace = true;
    const allowed = makeContext(root, { interactive: false, grants });
    expect((await run(allowed, twoFilePatch)).isError).toBe(false);
    expect(allowed.approver.asked.length).toBe(0);
    expect(readFileSync(join(root, "src/new.ts"), "utf8")).toBe("fresh\n");
  });

  test("dry run: the resulting diff, no prompt, nothing written", async () => {
    const root = workspace(twoFiles);
    const before = readTree(root);
    const ctx = makeContext(root);
    const res = await run(ctx, twoFilePatch, true);
    expect(res.isError).toBe(false);
    expect(res.content).toStartWith("Dry run: the patch applies cleanly; nothing was written.\n  M src/a.ts (+1 -1)\n  D src/old.ts (-1)\n  A src/new.ts (+1)\n");
    expect(res.content).toContain("\n\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n export const a = 1;   \n-export const b = 2;\n+export const b = 3;\n\n");
    expect(res.content).toEndWith("\n\n--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1,1 @@\n+fresh");
    expect(ctx.approver.asked.length).toBe(0);
    expect(readTree(root)).toEqual(before);

    const bad = await run(ctx, twoFilePatch.replace("-gone", "-went"), true);
    expect(bad.isError).toBe(true);
    expect(bad.content).toContain("src/old.ts, hunk 1 of 1 (@@ -1 +0,0 @@, patch line 9): its lines are not in the file.");
  });

  test("a failure in the last of three files asks nothing and writes nothing", async () => {
    const root = workspace({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
    const before = readTree(root);
    const ctx = makeContext(root, { answers: [{ answer: "once" }] });
    const patch = ["a", "b", "c"].map((n) => `--- a/${n}.txt\n+++ b/${n}.txt\n@@ -1 +1 @@\n-${n === "c" ? "x" : n}\n+${n.toUpperCase()}\n`).join("");
    const res = await run(ctx, patch);
    expect(res.isError).toBe(true);
    expect(res.content).toStartWith("The patch was not applied; nothing was written. 1 problem:\n\nc.txt, hunk 1 of 1");
    expect(ctx.approver.asked.length).toBe(0);
    expect(readTree(root)).toEqual(before);
  });

  test("paths outside the workspace are refused before anything is read or written", async () => {
    const parent = tempDir("bunker-ap-outer-");
    const root = join(parent, "ws");
    mkdirSync(root);
    writeFileSync(join(parent, "secret.txt"), "secret\n");
    symlinkSync(join(parent, "secret.txt"), join(root, "link.txt"));
    const ctx = makeContext(root, { answers: [{ answer: "once" }, { answer: "once" }] });

    const viaDots = await run(ctx, "--- /dev/null\n+++ b/../escaped.txt\n@@ -0,0 +1 @@\n+x\n");
    expect(viaDots).toEqual({
      isError: true,
      content: `${join(parent, "escaped.txt")} is outside the workspace (${root}). To grant it, run bunker with --allow-write=${join(parent, "escaped.txt")}`,
    });
    const viaLink = await run(ctx, "--- a/link.txt\n+++ b/link.txt\n@@ -1 +1 @@\n-secret\n+pwned\n");
    expect(viaLink.content).toContain(`${join(parent, "secret.txt")} is outside the workspace`);
    expect(existsSync(join(parent, "escaped.txt"))).toBe(false);
    expect(readFileSync(join(parent, "secret.txt"), "utf8")).toBe("secret\n");
    expect(ctx.approver.asked.length).toBe(0);
  });

  test("a file edited while the prompt is open is not overwritten", async () => {
    const root = workspace({ "a.txt": "a\n" });
    const ctx = makeContext(root);
    ctx.approver.ask = async (req: PermRequest) => {
      ctx.approver.asked.push(req);
      writeFileSync(join(root, "a.txt"), "a\nedited by the person\n");
      return { answer: "once" };
    };
    const res = await run(ctx, "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n");
    expect(res).toEqual({
      isError: true,
      content: "a.txt changed on disk while waiting for approval; nothing was written. Read it again with read_file and redo the change.",
    });
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("a\nedited by the person\n");
  });

  test("binary, non-UTF-8 and directory targets get plain messages", async () => {
    const root = workspace({ "dir/x": "x\n" });
    writeFileSync(join(root, "bin"), new Uint8Array([1, 0, 2]));
    writeFileSync(join(root, "latin1.txt"), new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const ctx = makeContext(root);
    const patch = (p: string) => `--- a/${p}\n+++ b/${p}\n@@ -1 +1 @@\n-x\n+y\n`;
    expect((await run(ctx, patch("bin"))).content).toBe("bin looks like a binary file; only text files can be changed this way.");
    expect((await run(ctx, patch("latin1.txt"))).content).toContain("latin1.txt is not valid UTF-8 text");
    expect((await run(ctx, patch("dir"))).content).toBe("dir is a directory, not a file.");
  });

  test("a report about very many failing hunks is bounded and says so", async () => {
    const root = workspace({ "big.txt": Array.from({ length: 400 }, (_, i) => `line ${i}\n`).join("") });
    const hunks = Array.from({ length: 200 }, (_, i) => `@@ -${i + 1},2 +${i + 1},2 @@\n line ${i * 2}\n-not line ${i * 2 + 1}\n+x\n`).join("");
    const res = await run(makeContext(root), `--- a/big.txt\n+++ b/big.txt\n${hunks}`);
    expect(res.isError).toBe(true);
    expect(res.content.length).toBeLessThanOrEqual(20_000);
    expect(res.content).toStartWith("The patch was not applied; nothing was written. 200 problems:");
    expect(res.content).toEndWith("… (report cut at 20 KB; fix the problems shown, then send the patch again to see the rest)");
  });

  test("a patch that changes nothing asks nothing", async () => {
    const root = workspace({ "a.txt": "a\n" });
    const ctx = makeContext(root);
    const res = await run(ctx, "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+a\n");
    expect(res).toEqual({ isError: false, content: "The patch changes nothing (every file would stay as it is); nothing was written." });
    expect(ctx.approver.asked.length).toBe(0);
  });

  test("the definition is short and names both formats; the summary names the files", () => {
    const def = JSON.stringify(registry.apiTools()[0]);
    expect(def.length).toBeLessThan(900);
    expect(applyPatchTool.description).toContain("unified diff");
    expect(applyPatchTool.description).toContain("*** Begin Patch");
    expect(registry.summarize("apply_patch", { patch: twoFilePatch })).toBe("apply_patch src/a.ts, src/old.ts, src/new.ts");
    expect(registry.summarize("apply_patch", { patch: "junk", dry_run: true })).toBe("apply_patch (dry run)");
  });
});

describe("apply_patch: escape attempts", () => {
  // Creating the escape-table path, in the envelope format (a/ b/ prefixes would change the rows).
  testEscapes(async (f, attempt, ctx) => {
    const r = await run(ctx, `*** Begin Patch\n*** Add File: ${attempt.path(f)}\n+pwned\n*** End Patch\n`);
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(attempt.expect);
  });
});
