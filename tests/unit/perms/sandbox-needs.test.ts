// What a command's question offers because the sandbox would keep it from the line (N12-09, N12-15).
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants, Policy } from "../../../src/perms/policy.ts";
import { readFolder, sandboxNeeds } from "../../../src/perms/sandbox-needs.ts";
import { tempDir, unseenDir } from "../../support/context.ts";

function setup() {
  const base = unseenDir("bunker-needs-");
  const root = join(base, "ws");
  const shared = join(base, "shared");
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(shared);
  writeFileSync(join(shared, "a.txt"), "a\n");
  writeFileSync(join(shared, "key.pem"), "k\n");
  return { root, shared, base };
}

describe("sandboxNeeds", () => {
  test("git commands that write history need .git; ones that only look do not; a granted or denied .git is not offered", () => {
    const { root } = setup();
    const policy = new Policy(root, emptyGrants());
    for (const line of ["git commit -m x", "git add a && git commit -qm y", "git -C . checkout -b f", "git stash", "git branch new", "git fetch origin"]) {
      expect({ line, git: sandboxNeeds(line, root, policy).gitWrite }).toEqual({ line, git: true });
    }
    for (const line of ["git status", "git log --oneline", "git branch", "git stash list", "git diff HEAD", "echo git commit"]) {
      expect({ line, git: sandboxNeeds(line, root, policy).gitWrite }).toEqual({ line, git: false });
    }
    const granted = emptyGrants();
    granted.allow.write.paths.push(join(root, ".git"));
    expect(sandboxNeeds("git commit -m x", root, new Policy(root, granted)).gitWrite).toBe(false);
    const denied = emptyGrants();
    denied.deny.write.paths.push(join(root, ".git"));
    expect(sandboxNeeds("git commit -m x", root, new Policy(root, denied)).gitWrite).toBe(false);
  });

  test("paths outside that exist and the sandbox does not show; not the workspace's, not the system's, not a missing one, not a denied one", () => {
    const { root, shared } = setup();
    const grants = emptyGrants();
    grants.deny.read.paths.push(join(shared, "key.pem"));
    const policy = new Policy(root, grants);
    expect(sandboxNeeds(`ls ${shared} && cat ${shared}/a.txt`, root, policy).reads).toEqual([shared]);
    expect(sandboxNeeds(`cat ../shared/a.txt --file=${shared}/a.txt`, root, policy).reads).toEqual([join(shared, "a.txt")]);
    expect(sandboxNeeds(`cat ${shared}/key.pem`, root, policy).reads).toEqual([]);
    expect(sandboxNeeds(`cat ${shared}/missing ./a /usr/bin/env`, root, policy).reads).toEqual([]);
    // Known only at run time: not offered.
    expect(sandboxNeeds(`cat "$X"/a.txt ${shared}/*.txt`, root, policy).reads).toEqual([]);
    // Granted already: nothing to offer.
    const given = emptyGrants();
    given.allow.read.paths.push(shared);
    expect(sandboxNeeds(`cat ${shared}/a.txt`, root, new Policy(root, given)).reads).toEqual([]);
  });
});

describe("readFolder", () => {
  test("the file's folder, or the folder itself; none when too wide (/, the home or above, one holding the workspace)", () => {
    const { root, shared, base } = setup();
    expect(readFolder(join(shared, "a.txt"), root)).toBe(shared);
    expect(readFolder(shared, root)).toBe(shared);
    // base holds the workspace.
    expect(readFolder(join(base, "x"), root)).toBeUndefined();
    expect(readFolder("/", root)).toBeUndefined();
    expect(readFolder("/etc/hostname", root)).toBe("/etc");
    expect(readFolder(join(tempDir("bunker-missing-"), "nope"), root)).toBeUndefined();
  });
});
