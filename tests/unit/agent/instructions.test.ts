// Which instruction files go into the system prompt: the person's own, then the repository's from its root down
// to the workspace, each through the read rules, capped in size.
import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitRootOf, loadInstructions, MAX_TOTAL_CHARS } from "../../../src/agent/instructions.ts";
import { tempDir } from "../../support/context.ts";

/** base/{home/.config/bunker, repo/.git, repo/a/b (the workspace)}, with instruction files where `files` says. */
function layout(files: Record<string, string>) {
  const base = tempDir("bunker-ins-");
  const repo = join(base, "repo");
  const root = join(repo, "a", "b");
  const userDir = join(base, "home", ".config", "bunker");
  mkdirSync(root, { recursive: true });
  mkdirSync(join(repo, ".git"));
  mkdirSync(userDir, { recursive: true });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(base, path), text);
  const inside = (real: string) => real === root || real.startsWith(root + "/");
  return { base, repo, root, userDir, opts: { canRead: inside, userDir, gitRoot: gitRootOf(root) } };
}

test("the person's own, then each folder from the repository's root down, the workspace last; above the repository nothing", () => {
  const { root, repo, opts } = layout({ "AGENTS.md": "above", "repo/AGENTS.md": "root", "repo/a/CLAUDE.md": "a", "repo/a/b/AGENTS.md": "b", "home/.config/bunker/AGENTS.md": "mine" });
  expect(gitRootOf(root)).toBe(repo);
  const home = process.env.HOME;
  process.env.HOME = join(repo, "..", "home");
  try {
    expect(loadInstructions(root, opts)).toEqual([
      { shown: "~/.config/bunker/AGENTS.md", text: "mine" },
      { shown: "../../AGENTS.md", text: "root" },
      { shown: "../CLAUDE.md", text: "a" },
      { shown: "AGENTS.md", text: "b" },
    ]);
  } finally {
    process.env.HOME = home;
  }
});

test("outside a repository only the workspace's own (and the person's) are read", () => {
  const { base, opts } = layout({ "AGENTS.md": "above" });
  const plain = join(base, "plain");
  mkdirSync(plain);
  writeFileSync(join(plain, "CLAUDE.md"), "here");
  expect(gitRootOf(plain)).toBeUndefined();
  expect(loadInstructions(plain, { ...opts, canRead: () => true, gitRoot: undefined }).map((f) => f.text)).toEqual(["here"]);
});

test("a file a deny rule covers is not read, and the warning says so; the others still are", () => {
  const { repo, root, opts } = layout({ "repo/AGENTS.md": "root", "repo/a/b/AGENTS.md": "b", "home/.config/bunker/AGENTS.md": "mine" });
  const warnings: string[] = [];
  const denied = (real: string) => real === join(repo, "AGENTS.md") || real.endsWith(".config/bunker/AGENTS.md");
  const files = loadInstructions(root, { ...opts, denied, warn: (w) => warnings.push(w) });
  expect(files.map((f) => f.text)).toEqual(["b"]);
  expect(warnings).toContain(`../../AGENTS.md was not read: it leads to ${join(repo, "AGENTS.md")}, and a deny rule covers it.`);
  expect(warnings).toHaveLength(2);
});

test("an AGENTS.md above the workspace that is a link is read only where the policy lets its target be read", () => {
  const { base, repo, root, opts } = layout({ "key": "SECRET" });
  symlinkSync(join(base, "key"), join(repo, "AGENTS.md"));
  writeFileSync(join(repo, "a", "AGENTS.md"), "a");
  const warnings: string[] = [];
  expect(loadInstructions(root, { ...opts, warn: (w) => warnings.push(w) }).map((f) => f.text)).toEqual(["a"]);
  expect(warnings).toEqual([`../../AGENTS.md was not read: it leads to ${join(base, "key")}, and it is outside the workspace; --allow-read=${join(base, "key")} would grant it.`]);
  // A grant of the target (the policy's canRead) lets it through.
  expect(loadInstructions(root, { ...opts, canRead: () => true }).map((f) => f.text)).toEqual(["SECRET", "a"]);
});

test("past the total the files read first give way: the workspace's is kept whole, the cut one says so", () => {
  const big = "r".repeat(15_000);
  const { root, opts } = layout({ "repo/AGENTS.md": big, "repo/a/AGENTS.md": big, "repo/a/b/AGENTS.md": big });
  const files = loadInstructions(root, opts);
  expect(files.map((f) => f.shown)).toEqual(["../../AGENTS.md", "../AGENTS.md", "AGENTS.md"]);
  expect(files[2]!.text).toBe(big);
  expect(files[1]!.text).toBe(big);
  expect(files[0]!.text).toBe("r".repeat(MAX_TOTAL_CHARS - 30_000) + "\n[… cut: the instructions are longer in all]");
});
