// A command with only --allow-run makes links at paths the person's tools run later (.envrc, .vscode/tasks.json,
// .pre-commit-config.yaml) to files it did not write: the links are set aside, and what they lead to stays where it
// is (red team 12's F17: .git/HEAD, .git/config and the person's edited file had been moved as "created by the command").
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { createRunBashTool } from "../../../src/tools/run-bash.ts";
import type { ToolOutput } from "../../../src/tools/tool.ts";
import { makeContext, unseenDir } from "../../support/context.ts";
import { newRepository } from "../../support/embedded-repo.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const usable = detectSandbox().kind === "bubblewrap";

describe.skipIf(!usable)("links a command makes at runs-later paths, in the real sandbox with only --allow-run", () => {
  test("the links are set aside; .git/HEAD, .git/config and the person's edited file stay where they are", async () => {
    const { base, root, g } = newRepository("bunker-later-links-", { "src/main.rs": "fn main() {}\n" });
    made.push(base);
    writeFileSync(join(root, "src/main.rs"), "fn main() { println!(\"the person's edit\"); }\n");
    mkdirSync(join(root, ".vscode"));
    const grants = emptyGrants();
    grants.allow.run.all = true;
    const ctx = makeContext(root, { grants });
    const tool = createRunBashTool({ sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false, grants, env: { PATH: "/usr/bin:/bin" }, home: unseenDir("bunker-later-links-home-"), killGraceMs: 300 });
    const r = ((await tool.run({ command: "ln -s .git/HEAD .envrc && ln -s ../.git/config .vscode/tasks.json && ln -s src/main.rs .pre-commit-config.yaml && echo links" }, ctx)) as Exclude<ToolOutput, string>).content;
    expect(r).toContain("links");
    for (const link of [".envrc", ".vscode/tasks.json", ".pre-commit-config.yaml"]) {
      expect(r).toContain(`bunker set aside ${link}, which the command created`);
      expect(lstatSync(join(root, `${link}.bunker-set-aside`)).isSymbolicLink()).toBe(true);
    }
    expect(r).not.toContain("through the link");
    for (const f of [".git/HEAD", ".git/config", "src/main.rs"]) expect(existsSync(join(root, f))).toBe(true);
    expect(readFileSync(join(root, "src/main.rs"), "utf8")).toContain("the person's edit");
    expect(g("status", "--porcelain")).toContain(" M src/main.rs");
  });
  test("a CI workflow's folders cannot be renamed away with it (its read-only mount moved along, and the person's file was deleted there: reviewer's R12-18)", async () => {
    const { base, root } = newRepository("bunker-later-pins-", { ".github/workflows/ci.yml": "run: make test\n" });
    made.push(base);
    const grants = emptyGrants();
    grants.allow.run.all = true;
    const tool = createRunBashTool({ sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false, grants, env: { PATH: "/usr/bin:/bin" }, home: unseenDir("bunker-later-pins-home-"), killGraceMs: 300 });
    const r = ((await tool.run({ command: "mv .github .gh-old && rm -rf .gh-old && echo removed" }, makeContext(root, { grants }))) as Exclude<ToolOutput, string>).content;
    expect(r).toContain("Device or resource busy");
    expect(r).not.toContain("removed");
    expect(readFileSync(join(root, ".github/workflows/ci.yml"), "utf8")).toBe("run: make test\n");
  });
});
