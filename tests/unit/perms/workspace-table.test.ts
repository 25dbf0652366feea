// The one path resolver as a table: what each path a model might give
// resolves to, whether it is inside the workspace, and how it is shown.
// (workspace.test.ts checks the physical `link/..` cases against the kernel.)
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { isProtectedPath, isProtectedRelative, isWithin, PathError, resolvePath, resolveRoot } from "../../../src/perms/workspace.ts";
import { tempDir } from "../../support/context.ts";

const base = tempDir("bunker-resolve-");
const ws = join(base, "ws");
mkdirSync(join(ws, "src"), { recursive: true });
mkdirSync(join(base, "ws2"));
writeFileSync(join(ws, "src", "a.ts"), "");
writeFileSync(join(base, "ws2", "b.txt"), "");
writeFileSync(join(base, "secret.txt"), "");
symlinkSync("src/a.ts", join(ws, "alias.ts"));
symlinkSync(join(base, "secret.txt"), join(ws, "leak.txt"));
symlinkSync("../ws2", join(ws, "sibling"));
symlinkSync(join(base, "nowhere", "new.txt"), join(ws, "dangling-out"));

describe("resolvePath", () => {
  // input → [real (relative to base), display, inside, exists]
  const TABLE: [string, string, string, boolean, boolean][] = [
    ["src/a.ts", "ws/src/a.ts", "src/a.ts", true, true],
    ["./src//a.ts", "ws/src/a.ts", "src/a.ts", true, true],
    [".", "ws", ".", true, true],
    ["src/../src/a.ts", "ws/src/a.ts", "src/a.ts", true, true],
    ["src/new/deep.ts", "ws/src/new/deep.ts", "src/new/deep.ts", true, false],
    ["alias.ts", "ws/src/a.ts", "src/a.ts", true, true],
    ["..", "", "BASE", false, true],
    ["../ws2/b.txt", "ws2/b.txt", "BASE/ws2/b.txt", false, true],
    ["leak.txt", "secret.txt", "BASE/secret.txt", false, true],
    ["sibling/b.txt", "ws2/b.txt", "BASE/ws2/b.txt", false, true],
    ["dangling-out", "nowhere/new.txt", "BASE/nowhere/new.txt", false, false],
    ["ABS/ws/src/a.ts", "ws/src/a.ts", "src/a.ts", true, true],
    ["ABS/ws2/b.txt", "ws2/b.txt", "BASE/ws2/b.txt", false, true],
  ];
  for (const [input, real, display, inside, exists] of TABLE) {
    test(`${input} → ${display}${inside ? "" : " (outside)"}${exists ? "" : " (new)"}`, () => {
      const r = resolvePath(ws, input.replace("ABS", base));
      expect({ real: r.real, display: r.display, inside: r.inside, exists: r.exists }).toEqual({
        real: real === "" ? base : join(base, real),
        display: display.replace("BASE", base),
        inside,
        exists,
      });
    });
  }

  test("~ is the home directory", () => {
    expect(resolvePath(ws, "~").real).toBe(resolvePath("/", homedir()).real);
  });

  for (const [input, says] of [["", "the path is empty"], ["  ", "the path is empty"], ["a\0b", "the path contains a NUL byte"]] as const) {
    test(`${JSON.stringify(input)} is refused: ${says}`, () => expect(() => resolvePath(ws, input)).toThrow(new PathError(says)));
  }

  test("a link loop is an error, not a hang", () => {
    const root = tempDir("bunker-resolve-");
    symlinkSync("b", join(root, "a"));
    symlinkSync("a", join(root, "b"));
    expect(() => resolvePath(root, "a/x")).toThrow("too many levels of symbolic links");
  });
});

describe("isWithin: whole components", () => {
  const TABLE: [string, string, boolean][] = [
    ["/home/a/proj", "/home/a/proj", true],
    ["/home/a/proj", "/home/a/proj/src/x", true],
    ["/home/a/proj", "/home/a/project", false],
    ["/home/a/proj", "/home/a", false],
    ["/home/a/proj", "/home/a/proj/..x", true],
    ["/home/a/proj", "/", false],
    ["/", "/anything", true],
  ];
  for (const [root, target, within] of TABLE) test(`${target} in ${root}: ${within}`, () => expect(isWithin(root, target)).toBe(within));
});

describe("protected paths", () => {
  const TABLE: [string, boolean][] = [
    [".git/hooks/pre-commit", true],
    ["sub/.GIT/config", true],
    [".bunker/settings.json", true],
    ["src/.gitignore", false],
    ["git/x", false],
  ];
  for (const [rel, prot] of TABLE) test(`${rel}: ${prot ? "protected" : "not protected"}`, () => expect(isProtectedRelative(rel)).toBe(prot));

  test("a .git file pointing into the workspace protects where it points", () => {
    const root = tempDir("bunker-resolve-");
    mkdirSync(join(root, ".bare"));
    writeFileSync(join(root, ".git"), "gitdir: ./.bare\n");
    expect(isProtectedPath(root, join(root, ".bare", "hooks", "post-checkout"))).toBe(true);
    expect(isProtectedPath(root, join(root, "src", "a.ts"))).toBe(false);
  });

  test("a .git that is a FIFO is not waited on: only .git itself is protected, at once", () => {
    const root = tempDir("bunker-resolve-");
    expect(Bun.spawnSync(["mkfifo", join(root, ".git")]).exitCode).toBe(0);
    const t0 = Date.now();
    expect(isProtectedPath(root, join(root, ".git"))).toBe(true);
    expect(isProtectedPath(root, join(root, "src", "a.ts"))).toBe(false);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});

test("resolveRoot: the real directory, or an error naming what is wrong", () => {
  expect(resolveRoot(join(ws, "sibling"))).toBe(join(base, "ws2"));
  expect(() => resolveRoot(join(base, "missing"))).toThrow(`workspace ${join(base, "missing")} does not exist`);
  expect(() => resolveRoot(join(base, "secret.txt"))).toThrow("is not a directory");
});
