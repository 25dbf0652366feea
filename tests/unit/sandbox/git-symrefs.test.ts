// Symbolic refs a command makes to point outside refs/ (red team 11's F10 and F12), against a real repository: made
// plain, naming the commit they lead to, or removed; git's own symbolic refs are left as they are.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { outsideTarget, symrefsAfter } from "../../../src/sandbox/git-symrefs.ts";
import { tempDir } from "../../support/context.ts";

const git = (cwd: string, ...args: string[]) => Bun.spawnSync(["git", "-c", "user.email=a@b", "-c", "user.name=A", ...args], { cwd, stdout: "pipe", stderr: "pipe" }).stdout.toString().trim();

test("a branch, ORIG_HEAD or a linked worktree's pseudo-ref made to name a file outside refs/ is made plain or removed; git's own symbolic refs stay", () => {
  const root = tempDir("bunker-symrefs-");
  git(root, "init", "-q", "-b", "main");
  writeFileSync(join(root, "a"), "1\n");
  git(root, "add", "a");
  git(root, "commit", "-qm", "one");
  const head = git(root, "rev-parse", "HEAD");
  const g = join(root, ".git");
  mkdirSync(join(g, "refs/remotes/origin"), { recursive: true });
  writeFileSync(join(g, "refs/remotes/origin/main"), `${head}\n`);
  writeFileSync(join(g, "refs/remotes/origin/HEAD"), "ref: refs/remotes/origin/main\n");
  // The command's: a branch and ORIG_HEAD naming files of its own at the top of .git, and one naming nothing.
  writeFileSync(join(g, "FEATURE_TIP"), `${head}\n`);
  writeFileSync(join(g, "refs/heads/feature"), "ref: FEATURE_TIP\n");
  writeFileSync(join(g, "ORIG_HEAD"), "ref:MY_HEAD\n");
  writeFileSync(join(g, "refs/heads/gone"), "ref: NOWHERE\n");
  const lines = symrefsAfter(g, root);
  expect(lines).toHaveLength(2 + 1);
  expect(lines.join("\n")).toContain(`bunker made .git/refs/heads/feature name the commit it led to (${head.slice(0, 12)}) instead of the file .git/FEATURE_TIP`);
  expect(lines.join("\n")).toContain("bunker removed .git/ORIG_HEAD, which the command made to name the file .git/MY_HEAD");
  expect(lines.join("\n")).toContain("bunker removed .git/refs/heads/gone");
  expect(readFileSync(join(g, "refs/heads/feature"), "utf8")).toBe(`${head}\n`);
  expect(existsSync(join(g, "ORIG_HEAD"))).toBe(false);
  // A later rewrite of FEATURE_TIP moves nothing the person's git reads.
  writeFileSync(join(g, "FEATURE_TIP"), "0".repeat(40) + "\n");
  expect(git(root, "rev-parse", "feature")).toBe(head);
  // git's own: HEAD and origin/HEAD name refs under refs/.
  expect(readFileSync(join(g, "refs/remotes/origin/HEAD"), "utf8")).toBe("ref: refs/remotes/origin/main\n");
  expect(symrefsAfter(g, root)).toEqual([]);
});

test("only a symbolic ref to a place outside refs/ is one git never makes", () => {
  expect(outsideTarget("ref: refs/heads/main\n")).toBeNull();
  expect(outsideTarget("ref: MY_HEAD\n")).toBe("MY_HEAD");
  expect(outsideTarget("ref:MY_HEAD")).toBe("MY_HEAD");
  expect(outsideTarget(`${"a".repeat(40)}\n`)).toBeNull();
});

test("refs/ padded with more loose refs than any bound: the branch made to name a file outside refs/ is still made plain (reviewer's R12-21)", () => {
  const root = tempDir("bunker-symrefs-pad-");
  git(root, "init", "-q", "-b", "main");
  writeFileSync(join(root, "a"), "1\n");
  git(root, "add", "a");
  git(root, "commit", "-qm", "one");
  const head = git(root, "rev-parse", "HEAD");
  const g = join(root, ".git");
  // A folder readdir lists before heads/, with 12,000 refs in it.
  mkdirSync(join(g, "refs/aaa"), { recursive: true });
  for (let i = 0; i < 12_000; i++) writeFileSync(join(g, "refs/aaa", `r${i}`), `${head}\n`);
  writeFileSync(join(g, "FEATURE_TIP"), `${head}\n`);
  writeFileSync(join(g, "refs/heads/feature"), "ref: FEATURE_TIP\n");
  const lines = symrefsAfter(g, root);
  expect(lines.join("\n")).toContain("bunker made .git/refs/heads/feature name the commit it led to");
  expect(readFileSync(join(g, "refs/heads/feature"), "utf8")).toBe(`${head}\n`);
});
