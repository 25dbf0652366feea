// Every scenario in tests/fixtures/patch/NNN-name/ through the real tool:
// before/ is copied into a fresh workspace, patch.diff (or patch.txt, the
// envelope) is applied with an approver that answers "once", and the whole
// tree is compared byte for byte with after/ (or, when error.txt exists, with
// before/: a failed patch writes nothing). error.txt and output.txt list
// fragments the tool's answer must contain, one per line.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { applyPatchTool } from "../../../src/tools/apply-patch.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { makeContext, tempDir } from "../../support/context.ts";
import { readTree, resetTree } from "../../support/tree.ts";

const FIXTURES = join(import.meta.dir, "../..", "fixtures", "patch");
const scenarios = readdirSync(FIXTURES).filter((d) => /^\d{3}-/.test(d)).sort();
const registry = new ToolRegistry([applyPatchTool]);

function fragments(file: string): string[] {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "") : [];
}

describe("apply_patch scenarios", () => {
  test("there are at least 30 scenarios", () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(30);
  });

  for (const name of scenarios) {
    test(name, async () => {
      const dir = join(FIXTURES, name);
      const root = tempDir("bunker-patch-");
      resetTree(join(dir, "before"), root);
      const patchFile = existsSync(join(dir, "patch.txt")) ? join(dir, "patch.txt") : join(dir, "patch.diff");
      const patch = readFileSync(patchFile, "utf8");
      const options = existsSync(join(dir, "options.json")) ? JSON.parse(readFileSync(join(dir, "options.json"), "utf8")) : {};
      const errors = fragments(join(dir, "error.txt"));
      const expectError = existsSync(join(dir, "error.txt"));
      const before = readTree(root);
      const ctx = makeContext(root, { answers: [{ answer: "once" }] });

      const result = await registry.run("apply_patch", { patch, ...options }, ctx);

      if (expectError) {
        expect({ isError: result.isError, content: result.content }).toMatchObject({ isError: true });
        for (const f of errors) expect(result.content).toContain(f);
        expect(readTree(root)).toEqual(before);
      } else {
        expect({ isError: result.isError, content: result.content }).toMatchObject({ isError: false });
        expect(readTree(root)).toEqual(readTree(join(dir, "after")));
        expect(ctx.approver.asked.length).toBe(options.dry_run ? 0 : 1);
      }
      for (const f of fragments(join(dir, "output.txt"))) expect(result.content).toContain(f);
      expect(result.content).not.toContain("failed unexpectedly");
    });
  }
});
