// src/perms/later-checks.ts: what the policy requires at its first write decision, and the decision it serves.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyGrants, Policy } from "../../../src/perms/policy.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "bunker-later-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("it holds what tells a file that runs later, and a write there asks even when writes are granted", () => {
  const checks = require("../../../src/perms/later-checks.ts") as typeof import("../../../src/perms/later-checks.ts");
  expect(typeof checks.scanRoots).toBe("function");
  expect(typeof checks.secretPaths).toBe("function");
  mkdirSync(join(root, ".github/workflows"), { recursive: true });
  const grants = emptyGrants();
  grants.allow.write.workspace = true;
  const policy = new Policy(root, grants);
  expect(policy.decide("write", join(root, "src/a.ts")).verdict).toBe("allow");
  const ci = policy.decide("write", join(root, ".github/workflows/x.yml"));
  expect(ci.verdict).toBe("ask");
  expect(ci.reason).toContain("runs in CI");
});
