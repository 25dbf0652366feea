// Unasked git reads every config it will obey: a repository embedded in the
// workspace (a gitlink) is looked into by `git status` under its own config.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitlinks } from "../../../src/perms/git-config.ts";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { evaluateRun } from "../../../src/perms/run/evaluate.ts";
import { git, makeEmbeddedRepo } from "../../support/embedded-repo.ts";

const judge = (line: string, root: string) => evaluateRun(line, { root, grants: emptyGrants() });

describe("a repository embedded as a gitlink, whose own config runs a program", () => {
  test("control: plain git status in it really runs the embedded repository's filter", () => {
    const r = makeEmbeddedRepo();
    git(r.root, r.env, "status", "--porcelain");
    expect(existsSync(r.marker)).toBe(true);
  });

  test("git status, diff and log in the outer repository ask, naming the nested repository and the key", () => {
    const r = makeEmbeddedRepo();
    for (const line of ["git status", "git diff --stat", "git log --oneline -3", "cd vendor && git status"]) {
      expect({ line, d: judge(line, r.root) }).toMatchObject({
        line,
        d: { verdict: "ask", reason: "the nested repository vendor/lib (git looks inside it) has a git config that sets filter.clean, which runs a program" },
      });
    }
    expect(existsSync(r.marker)).toBe(false);
  });

  test.each([3, 4])("the gitlink is found in an index of version %i too", (v) => {
    const r = makeEmbeddedRepo({ indexVersion: v });
    expect(gitlinks(join(r.root, ".git"))).toEqual(["vendor/lib"]);
    expect(judge("git status", r.root).verdict).toBe("ask");
  });

  test("an embedded repository with a plain config: git status still runs unasked", () => {
    const r = makeEmbeddedRepo({ filter: false });
    expect(judge("git status", r.root)).toMatchObject({ verdict: "allow", commands: [{ granted_by: "read-only" }] });
  });

  test("an index bunker cannot read makes git ask rather than guess", () => {
    const r = makeEmbeddedRepo({ filter: false });
    writeFileSync(join(r.root, ".git", "index"), "DIRC\0\0\0\x09garbage");
    expect(judge("git status", r.root)).toMatchObject({ verdict: "ask", reason: "bunker cannot read this repository's index" });
  });

  test("a nested checkout the index does not list is not looked into by git, and is not read either", () => {
    const r = makeEmbeddedRepo({ filter: false });
    mkdirSync(join(r.root, "other", ".git"), { recursive: true });
    writeFileSync(join(r.root, "other", ".git", "config"), "[diff]\n\texternal = x\n");
    expect(judge("git status", r.root).verdict).toBe("allow");
  });
});
