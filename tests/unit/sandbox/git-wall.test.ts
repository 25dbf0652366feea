// The git wall's one code path (run_bash and MCP servers' write grants): what the walk before keeps read-only, and
// what the walk after does with what was planted. (The real sandbox runs it in planted, walk-gaps and mcp rows.)
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { wallAfter, wallBefore } from "../../../src/sandbox/git-wall.ts";
import { runsLaterMatcher } from "../../../src/perms/runs-later.ts";
import { tempDir } from "../../support/context.ts";

test("before: every repository site and runs-later file is read-only; after: a new repository is disarmed, a new .envrc set aside", () => {
  const root = tempDir("bunker-wall-");
  mkdirSync(join(root, "old/.git"), { recursive: true });
  writeFileSync(join(root, ".envrc"), "theirs\n");
  const later = { key: "t", match: runsLaterMatcher([root]) };
  const before = wallBefore([root], later, [], tempDir());
  if ("refusal" in before) throw new Error(before.refusal);
  expect(before.readOnly).toEqual([join(root, "old/.git"), join(root, ".envrc")]);
  mkdirSync(join(root, "new/.git"), { recursive: true });
  writeFileSync(join(root, "new/.git/config"), "[core]\n\tfsmonitor = evil\n");
  writeFileSync(join(root, "new/.envrc"), "evil\n");
  const lines = wallAfter([root], before.state).join("\n");
  expect(lines).toContain("bunker disarmed the git repository the command created at new/.git (core.fsmonitor commented out in config)");
  expect(lines).toContain("bunker set aside new/.envrc, which the command created");
  expect(readFileSync(join(root, "new/.git/config"), "utf8")).toContain("# disarmed by bunker:");
});
