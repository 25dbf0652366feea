import { expect, test } from "bun:test";
import { matchesPathRules } from "../../../src/perms/path-rules.ts";
import { emptyPathRules } from "../../../src/perms/policy.ts";

test("a named path covers itself and below, component by component; a glob matches; a bare flag only when denying", () => {
  const rules = { ...emptyPathRules(), paths: ["/ws/docs"], globs: ["/ws/src/**/*.ts"] };
  expect(matchesPathRules(rules, "/ws/docs", false)).toBe("flag");
  expect(matchesPathRules(rules, "/ws/docs/a/b.md", false)).toBe("flag");
  expect(matchesPathRules(rules, "/ws/docs2/a.md", false)).toBeNull();
  expect(matchesPathRules(rules, "/ws/src/x/y.ts", false)).toBe("rules");
  expect(matchesPathRules(rules, "/ws/src/x/y.js", false)).toBeNull();
  const bare = { ...emptyPathRules(), workspace: true };
  expect(matchesPathRules(bare, "/anywhere", true)).toBe("flag");
  expect(matchesPathRules(bare, "/anywhere", false)).toBeNull();
  expect(matchesPathRules(undefined, "/x", true)).toBeNull();
});
