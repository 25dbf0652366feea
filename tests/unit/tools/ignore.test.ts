// Gitignore rules, matched as git matches them. Every expectation in the
// table was checked against `git check-ignore --no-index` (git 2.39).
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IgnoreMatcher, matchRules, parseGitignore } from "../../../src/tools/ignore.ts";
import { walk } from "../../../src/tools/walk.ts";
import { tempDir } from "../../support/context.ts";

// [.gitignore text, path relative to it, is a directory, ignored by git]
const TABLE: [string, string, boolean, boolean][] = [
  ["*.log", "a.log", false, true],
  ["*.log", "dir/a.log", false, true],
  ["*.log", "a.logx", false, false],
  ["/build", "build", false, true],
  ["/build", "src/build", false, false],
  ["build/", "build", true, true],
  ["build/", "build", false, false],
  ["build/", "src/build", true, true],
  ["doc/frotz/", "doc/frotz", true, true],
  ["doc/frotz/", "a/doc/frotz", true, false],
  ["foo/*", "foo/test.json", false, true],
  ["foo/*", "foo/bar", true, true],
  ["**/foo", "foo", false, true],
  ["**/foo", "a/b/foo", false, true],
  ["**/foo/bar", "x/foo/bar", false, true],
  ["**/foo/bar", "foo/bar", false, true],
  ["abc/**", "abc/x", false, true],
  ["abc/**", "abc/x/y", false, true],
  ["abc/**", "abc", true, false],
  ["a/**/b", "a/b", false, true],
  ["a/**/b", "a/x/y/b", false, true],
  ["a/**/b", "ab", false, false],
  ["lib/**/*.js", "lib/a.js", false, true],
  ["lib/**/*.js", "lib/x/y/a.js", false, true],
  ["*.txt\n!keep.txt", "keep.txt", false, false],
  ["*.txt\n!keep.txt", "other.txt", false, true],
  ["*.o\n!/keep.o", "keep.o", false, false],
  ["*.o\n!/keep.o", "sub/keep.o", false, true],
  ["\\#file", "#file", false, true],
  ["#file", "#file", false, false],
  ["\\!important", "!important", false, true],
  ["foo   ", "foo", false, true],
  ["foo\\ ", "foo ", false, true],
  ["foo\\ ", "foo", false, false],
  ["[abc].md", "a.md", false, true],
  ["[abc].md", "d.md", false, false],
  ["[!a].md", "b.md", false, true],
  ["[!a].md", "a.md", false, false],
  ["[a-c]x", "bx", false, true],
  ["[a-c]x", "dx", false, false],
  ["?.js", "a.js", false, true],
  ["?.js", "ab.js", false, false],
  ["?.js", "x/a.js", false, true],
  ["x/a*b", "x/a/b", false, false],
  ["x/a*b", "x/aZZb", false, true],
  ["a**b", "aXYb", false, true],
  ["/*.c", "cat-file.c", false, true],
  ["/*.c", "mozilla-sha1/sha1.c", false, false],
];

describe("gitignore rules", () => {
  test.each(TABLE)("%j on %j (dir: %p) → ignored: %p", (text, path, isDir, ignored) => {
    expect(matchRules(parseGitignore(text), path, isDir) === true).toBe(ignored);
  });

  test("comments, blank lines and a lone ! are not rules", () => {
    expect(parseGitignore("# note\n\n   \n!\n/\n")).toHaveLength(0);
  });

  test("CRLF files parse like LF files", () => {
    expect(matchRules(parseGitignore("*.tmp\r\n/out\r\n"), "out", true)).toBe(true);
  });

  test("a deeper .gitignore overrides a shallower one, and only below itself", () => {
    const m = IgnoreMatcher.empty()
      .withRules("", parseGitignore("*.log\n"))
      .withRules("sub", parseGitignore("!keep.log\n/only\n"));
    expect(m.ignores("sub/keep.log", false)).toBe(false);
    expect(m.ignores("keep.log", false)).toBe(true);
    expect(m.ignores("sub/other.log", false)).toBe(true);
    expect(m.ignores("sub/only", false)).toBe(true);
    expect(m.ignores("only", false)).toBe(false);
    expect(m.ignores("sub/x/only", false)).toBe(false);
  });
});

describe("the ignore-aware walk", () => {
  function tree(files: Record<string, string>): string {
    const root = tempDir();
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }
  const paths = (start: string, root: string) => [...walk({ start, root })].map((e) => e.rel + (e.kind === "dir" ? "/" : ""));

  test("leaves out .git and ignored entries, keeps dotfiles, applies nested files", () => {
    const root = tree({
      ".gitignore": "node_modules/\n*.log\n",
      ".git/config": "",
      ".env.example": "",
      "node_modules/x/index.js": "",
      "a.log": "",
      "src/.gitignore": "gen/\n!important.log\n",
      "src/gen/out.ts": "",
      "src/important.log": "",
      "src/main.ts": "",
    });
    expect(paths(root, root)).toEqual([".env.example", ".gitignore", "src/", "src/.gitignore", "src/important.log", "src/main.ts"]);
  });

  test("a file inside an ignored directory cannot be re-included", () => {
    const root = tree({ ".gitignore": "build/\n!build/keep.txt\n", "build/keep.txt": "", "b.txt": "" });
    expect(paths(root, root)).toEqual([".gitignore", "b.txt"]);
  });

  test("walking a subdirectory still applies the .gitignore files above it", () => {
    const root = tree({ ".gitignore": "*.tmp\n/top-only\n", "pkg/a.tmp": "", "pkg/a.ts": "", "pkg/top-only": "" });
    expect(paths(join(root, "pkg"), root)).toEqual(["a.ts", "top-only"]);
  });

  test("a directory named explicitly is walked even when ignored, its rules still apply inside", () => {
    const root = tree({ ".gitignore": "vendor/\ndist/\n", "vendor/lib.js": "", "vendor/dist/x.js": "" });
    expect(paths(join(root, "vendor"), root)).toEqual(["lib.js"]);
  });

  test("a workspace that is a folder of a repository leaves out what the repository ignores", () => {
    const repo = tree({
      ".git/info/exclude": "scratch.md\n",
      ".gitignore": "node_modules/\n*.log\n/pkg/generated/\n",
      "pkg/.gitignore": "dist/\n",
      "pkg/node_modules/dep/index.js": "",
      "pkg/generated/x.ts": "",
      "pkg/dist/out.js": "",
      "pkg/debug.log": "",
      "pkg/scratch.md": "",
      "pkg/src/index.ts": "",
    });
    const ws = join(repo, "pkg");
    expect(paths(ws, ws)).toEqual([".gitignore", "src/", "src/index.ts"]);
    expect(paths(join(ws, "src"), ws)).toEqual(["index.ts"]);
  });

  test("a repository that ignores the workspace itself (a dotfiles repository ignoring *) does not hide it", () => {
    const home = tree({ ".git/HEAD": "", ".gitignore": "*\n!.bashrc\n", "proj/src/a.ts": "", "proj/b.md": "" });
    const ws = join(home, "proj");
    expect(paths(ws, ws)).toEqual(["b.md", "src/", "src/a.ts"]);
  });

  test("nor one that ignores every file but keeps directories (an allow-list: *, then !*/)", () => {
    const home = tree({ ".git/HEAD": "", ".gitignore": "*\n!*/\n!.bashrc\n", "proj/src/a.ts": "", "proj/b.md": "" });
    const ws = join(home, "proj");
    expect(paths(ws, ws)).toEqual(["b.md", "src/", "src/a.ts"]);
  });

  test(".git/info/exclude is honoured", () => {
    const root = tree({ ".git/info/exclude": "secret-notes.md\n", "secret-notes.md": "", "README.md": "" });
    expect(paths(root, root)).toEqual(["README.md"]);
  });

  test("symbolic links are reported, never followed, and a linked .gitignore is not read", () => {
    const outside = tree({ "rules": "*.ts\n", "inner/secret.txt": "" });
    const root = tree({ "a.ts": "" });
    symlinkSync(join(outside, "rules"), join(root, ".gitignore"));
    symlinkSync(join(outside, "inner"), join(root, "linked"));
    const entries = [...walk({ start: root, root })].map((e) => `${e.rel}:${e.kind}`);
    expect(entries).toEqual([".gitignore:symlink", "a.ts:file", "linked:symlink"]);
  });

  test("maxDepth stops the descent", () => {
    const root = tree({ "a/b/c/d.txt": "" });
    expect(paths(root, root)).toContain("a/b/c/d.txt");
    expect([...walk({ start: root, root, maxDepth: 2 })].map((e) => e.rel)).toEqual(["a", "a/b"]);
  });
});
