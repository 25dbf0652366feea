// The small pure pieces under the evaluation: command patterns, session
// prefixes, and where a line's words lead.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { possibleDirectories, PathChecker } from "../../../../src/perms/run/paths.ts";
import { matchesPattern, parsePattern } from "../../../../src/perms/run/patterns.ts";
import { isScriptProgram, prefixAllowed, prefixOf } from "../../../../src/perms/run/prefix.ts";
import { parseShell } from "../../../../src/shell/parse.ts";
import { tempDir } from "../../../support/context.ts";

const argv = (line: string) => parseShell(line).commands[0]!.argv;

describe("patterns", () => {
  test("exact words, or a prefix with a trailing *; word for word", () => {
    const exact = parsePattern("git status")!;
    const prefix = parsePattern("bun test *")!;
    expect(matchesPattern(argv("git status"), exact)).toBe(true);
    expect(matchesPattern(argv("git status -s"), exact)).toBe(false);
    expect(matchesPattern(argv("git statusx"), exact)).toBe(false);
    expect(matchesPattern(argv("bun test a.ts"), prefix)).toBe(true);
    expect(matchesPattern(argv("bun testing"), prefix)).toBe(false);
    expect(matchesPattern(argv(`git "$X"`), parsePattern("git status *")!)).toBe(false);
    expect(parsePattern("  ")).toBeNull();
  });
});

describe("session prefixes", () => {
  test("program and subcommand; none for script runners or options before the subcommand", () => {
    expect(prefixOf(parseShell("npm run build -- --watch").commands[0]!)).toBe("npm run build");
    expect(prefixOf(parseShell("git -C x status").commands[0]!)).toBe("");
    expect(prefixOf(parseShell("python3 -m pytest -q").commands[0]!)).toBe("python3 -m pytest");
    expect(isScriptProgram("/usr/bin/python3.12")).toBe(true);
    expect(isScriptProgram("make")).toBe(false);
    expect(prefixAllowed(["git", "config"])).toBe(false);
    expect(prefixAllowed(["git", "status"])).toBe(true);
  });
});

describe("paths", () => {
  const root = tempDir("bunker-paths-");
  const outside = tempDir("bunker-paths-out-");
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "a.ts"), "");
  symlinkSync(outside, join(root, "out"));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });
  const checker = (line: string) => {
    const cmds = parseShell(line).commands;
    return new PathChecker(root, {}, possibleDirectories(cmds, root), cmds.some((c) => c.argv[0]?.text === "cd"));
  };
  test("a word is readable when every way it resolves is inside; writable when not in .git either", () => {
    const p = checker("cat x");
    const word = (line: string) => argv(line)[1]!;
    expect(p.readable(word("cat src/a.ts"))).toBe(true);
    expect(p.readable(word("cat out/secret"))).toBe(false);
    expect(p.readable(word("cat ~/x"))).toBe(false);
    expect(p.readable(word("cat $HOME"))).toBe(false);
    expect(p.writable(word("touch .git/config"))).toBe(false);
    expect(p.writable(word("touch src/new.ts"))).toBe(true);
  });
  test("a cd adds the directory it leads to", () => {
    expect(possibleDirectories(parseShell("cd src && ls").commands, root)).toEqual([root, join(root, "src")]);
  });
});
