// A folder on the person's PATH inside a writable root: a file there named
// like a program found later on PATH runs later (the person types the name).
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathShadowMatcher } from "../../../src/perms/path-shadow.ts";
import { runsLaterReason } from "../../../src/perms/runs-later.ts";
import { tempDir } from "../../support/context.ts";

const base = tempDir("bunker-path-shadow-");
afterAll(() => rmSync(base, { recursive: true, force: true }));
const root = join(base, "ws");
const sys = join(base, "sys");
const early = join(base, "early");
for (const d of [join(root, ".venv/bin"), join(root, "bin"), sys, early]) mkdirSync(d, { recursive: true });
const program = (p: string, mode = 0o755) => {
  writeFileSync(p, "#!/bin/sh\n");
  chmodSync(p, mode);
};
program(join(sys, "git"));
program(join(sys, "notes.txt"), 0o644);
program(join(early, "only-early"));
symlinkSync(root, join(base, "ws-link"));
const venv = join(root, ".venv/bin");

describe("pathShadowMatcher", () => {
  const path = [early, venv, sys].join(":");
  const match = pathShadowMatcher([root], path);

  test("a name found later on PATH shadows it, and the reason says which program and which folder", () => {
    expect(match(join(venv, "git"))).toBe(`your shell runs it instead of ${join(sys, "git")} when you type git: ${venv} comes before ${sys} on your PATH`);
  });

  test("names found nowhere later, only earlier, or only as a file that is not a program do not", () => {
    expect(match(join(venv, "pytest"))).toBeNull();
    expect(match(join(venv, "only-early"))).toBeNull();
    expect(match(join(venv, "notes.txt"))).toBeNull();
  });

  test("only files right in the PATH folder count, and only folders inside a writable root", () => {
    expect(match(join(venv, "sub/git"))).toBeNull();
    expect(match(join(root, "git"))).toBeNull();
    expect(pathShadowMatcher([join(base, "elsewhere")], path)(join(venv, "git"))).toBeNull();
  });

  test("a PATH folder reached through a link counts by where it leads; a relative entry is taken from the workspace", () => {
    expect(pathShadowMatcher([root], `${join(base, "ws-link/.venv/bin")}:${sys}`)(join(venv, "git"))).not.toBeNull();
    expect(pathShadowMatcher([root], `bin:${sys}`)(join(root, "bin/git"))).not.toBeNull();
    expect(pathShadowMatcher([root], `:${sys}`)(join(root, "git"))).not.toBeNull();
  });

  test("red team 6, F10b: a relative, empty or `.` entry is read from the folder the person is in, so it counts in every folder of the roots", () => {
    const web = join(root, "packages/web");
    const nm = pathShadowMatcher([root], `./node_modules/.bin:${sys}`);
    expect(nm(join(web, "node_modules/.bin/git"))).toBe(`your shell runs it instead of ${join(sys, "git")} when you type git: ${join(web, "node_modules/.bin")} comes before ${sys} on your PATH`);
    expect(nm(join(root, "node_modules/.bin/git"))).not.toBeNull();
    expect(nm(join(web, "node_modules/git"))).toBeNull();
    expect(nm(join(web, "node_modules/.bin/pytest"))).toBeNull();
    expect(pathShadowMatcher([root], `bin:${sys}`)(join(web, "bin/git"))).not.toBeNull();
    for (const dot of [`.:${sys}`, `:${sys}`, `${sys}:`]) expect(pathShadowMatcher([root], dot)(join(web, "git"))).toBe(dot.startsWith(sys) ? null : `your shell runs it instead of ${join(sys, "git")} when you type git: ${web} comes before ${sys} on your PATH`);
    // Outside every root nothing counts.
    expect(nm(join(base, "elsewhere/node_modules/.bin/git"))).toBeNull();
  });

  test("a later relative entry is read from the same folder: two relative entries in one package", () => {
    const pkg = join(root, "packages/api");
    mkdirSync(join(pkg, "tools"), { recursive: true });
    program(join(pkg, "tools/fmt"));
    const match = pathShadowMatcher([root], "./node_modules/.bin:tools");
    expect(match(join(pkg, "node_modules/.bin/fmt"))).toBe(`your shell runs it instead of ${join(pkg, "tools/fmt")} when you type fmt: ${join(pkg, "node_modules/.bin")} comes before ${join(pkg, "tools")} on your PATH`);
    expect(match(join(root, "packages/web/node_modules/.bin/fmt"))).toBeNull();
  });

  test("the same folder again later on PATH is not a second program", () => {
    program(join(venv, "tool"));
    expect(pathShadowMatcher([root], `${venv}:${sys}:${venv}`)(join(venv, "tool"))).toBeNull();
  });
});

test("a version manager's shims folder is not a program to shadow (pyenv's pytest under a venv), but a real one after it still is (/usr/bin/git)", () => {
  const shims = join(base, "home/.pyenv/shims");
  const volta = join(base, "home/.volta/bin");
  const mise = join(base, "home/.local/share/mise/shims");
  for (const d of [shims, volta, mise]) {
    mkdirSync(d, { recursive: true });
    program(join(d, "pytest"));
    program(join(d, "git"));
  }
  for (const d of [shims, volta, mise]) {
    const match = pathShadowMatcher([root], [venv, d, sys].join(":"));
    expect(match(join(venv, "pytest"))).toBeNull();
    expect(match(join(venv, "git"))).toBe(`your shell runs it instead of ${join(sys, "git")} when you type git: ${venv} comes before ${sys} on your PATH`);
  }
  // A folder merely named shims is no version manager's.
  const other = join(base, "home/tools/shims");
  mkdirSync(other, { recursive: true });
  program(join(other, "pytest"));
  expect(pathShadowMatcher([root], [venv, other].join(":"))(join(venv, "pytest"))).not.toBeNull();
});

test("the write tools ask for it too (runs-later.ts's one answer), with the person's PATH", () => {
  expect(runsLaterReason(root, join(venv, "git"), [], `${venv}:${sys}`)).toContain(`instead of ${join(sys, "git")}`);
  expect(runsLaterReason(root, join(venv, "git"), [], sys)).toBeNull();
});
