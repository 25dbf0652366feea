// Files other programs run later without asking: a write there asks even
// under -A, is never covered by "all edits for the session", and commands
// under a session prefix do not write them either.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants, Policy } from "../../../src/perms/policy.ts";
import { evaluateRun } from "../../../src/perms/run/evaluate.ts";
import { parseRulesFile } from "../../../src/perms/rules-file.ts";
import { protectRule, runsLaterReason } from "../../../src/perms/runs-later.ts";
import { tempDir } from "../../support/context.ts";

const root = tempDir("bunker-runs-later-");
mkdirSync(join(root, ".git"));
writeFileSync(join(root, ".git", "config"), "[core]\n\tbare = false\n\thooksPath = tools/hooks\n");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** -A: every write inside the workspace granted. */
const allowAll = () => {
  const g = emptyGrants();
  g.allow.write.workspace = true;
  g.allow.run.all = true;
  return g;
};

describe("under -A, writing a file that runs code later asks, saying what runs it", () => {
  test.each([
    [".envrc", "direnv runs it when you enter the folder"],
    ["sub/.envrc", "direnv runs it when you enter the folder"],
    [".vscode/tasks.json", "runs when you open the folder (VS Code tasks)"],
    [".husky/pre-commit", "runs on git commit (husky hooks)"],
    [".github/workflows/ci.yml", "runs in CI when pushed (GitHub Actions)"],
    [".GitHub/Workflows/ci.yml", "runs in CI when pushed (GitHub Actions)"],
    ["tools/hooks/pre-push", "git runs it as a hook (core.hooksPath is tools/hooks)"],
  ])("%s", (path, why) => {
    const policy = new Policy(root, allowAll());
    const d = policy.decide("write", join(root, path));
    expect(d).toMatchObject({ verdict: "ask", reason: `${path} ${why}: writing it always asks` });
    // "Yes, and all edits for the session" does not reach it; "this file for the session" does.
    policy.grantKindForSession("write");
    expect(policy.decide("write", join(root, path)).verdict).toBe("ask");
    policy.grantSession("write", join(root, path));
    expect(policy.decide("write", join(root, path))).toEqual({ verdict: "allow", grantedBy: "session" });
  });

  test("ordinary files stay granted; look-alikes are not on the list", () => {
    const policy = new Policy(root, allowAll());
    for (const path of ["src/a.ts", "envrc", ".envrc.example/x", ".vscode/settings.json", "docs/.github/workflows/x", "tools/hooksx/y"]) {
      expect({ path, d: policy.decide("write", join(root, path)) }).toEqual({ path, d: { verdict: "allow", grantedBy: "flag" } });
    }
  });

  test("settings' \"protect\" entries extend the list, naming the settings file", () => {
    const g = allowAll();
    parseRulesFile("/home/me/.config/bunker/settings.json", '{"protect": ["scripts/deploy.sh", "Makefile", "ops/**/*.sh"]}', root, g, "user", {});
    const policy = new Policy(root, g);
    for (const path of ["scripts/deploy.sh", "Makefile", "ops/a/b.sh"]) {
      expect(policy.decide("write", join(root, path))).toMatchObject({ verdict: "ask", reason: `${path} listed under "protect" in /home/me/.config/bunker/settings.json: writing it always asks` });
    }
    expect(policy.decide("write", join(root, "scripts/other.sh")).verdict).toBe("allow");
    expect(() => parseRulesFile("/x/settings.json", '{"protect": "Makefile"}', root, emptyGrants(), "user", {})).toThrow(/"protect" must be a list/);
  });

  test("a directory entry covers what is below it", () => {
    expect(runsLaterReason(root, join(root, "deploy/x/y"), [protectRule("deploy/", "s.json")])).toBe('listed under "protect" in s.json');
    expect(runsLaterReason(root, join(root, "deployx"), [protectRule("deploy", "s.json")])).toBeNull();
  });

  test("a command under a session prefix does not write them either", () => {
    const g = emptyGrants();
    for (const line of ["touch .envrc", "cp a.txt .husky/pre-commit", "echo x > .vscode/tasks.json"]) {
      expect({ line, v: evaluateRun(line, { root, grants: g, sessionPrefixes: ["touch", "cp", "echo"] }).verdict }).toEqual({ line, v: "ask" });
    }
    expect(evaluateRun("touch notes.txt", { root, grants: g, sessionPrefixes: ["touch"] }).verdict).toBe("allow");
  });
});
