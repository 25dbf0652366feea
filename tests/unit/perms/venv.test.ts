// A Python virtual environment's files that run later (red team 6's F10c-e): its bin/, the .pth files and
// sitecustomize/usercustomize in its site-packages. Unit rows for the matcher; real runs in the sandbox are in
// tests/unit/sandbox/venv-planted.test.ts.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { VENV_PTH_WHY, VENV_TOOL_WHY, venvMatcher, venvNewIsFine } from "../../../src/perms/venv.ts";
import { tempDir } from "../../support/context.ts";

function venv(): string {
  const root = tempDir();
  const v = join(root, ".venv");
  mkdirSync(join(v, "bin"), { recursive: true });
  mkdirSync(join(v, "lib/python3.11/site-packages"), { recursive: true });
  symlinkSync("lib", join(v, "lib64"));
  writeFileSync(join(v, "pyvenv.cfg"), "home = /usr/bin\n");
  mkdirSync(join(root, "hostbin"));
  writeFileSync(join(root, "hostbin/git"), "#!/bin/sh\n");
  chmodSync(join(root, "hostbin/git"), 0o755);
  return root;
}

test("a venv's bin, .pth and sitecustomize run later; the same names outside a venv, or through lib64 -> lib, do not", () => {
  const root = venv();
  const m = venvMatcher(`${join(root, "hostbin")}:/nonexistent`);
  const sp = join(root, ".venv/lib/python3.11/site-packages");
  expect(m(join(sp, "x.pth"))).toBe(VENV_PTH_WHY);
  expect(m(join(sp, "sitecustomize.py"))).toBe(VENV_PTH_WHY);
  expect(m(join(sp, "usercustomize.py"))).toBe(VENV_PTH_WHY);
  expect(m(join(sp, "mod.py"))).toBeNull();
  expect(m(join(root, ".venv/lib64/python3.11/site-packages/x.pth"))).toBeNull();
  expect(m(join(root, ".venv/bin/python3"))).toContain("this virtual environment's own python3");
  expect(m(join(root, ".venv/bin/git"))).toBe(`your shell runs it instead of ${join(root, "hostbin/git")} when this virtual environment is active`);
  expect(m(join(root, ".venv/bin/pytest"))).toBe(VENV_TOOL_WHY);
  expect(m(join(root, "bin/git"))).toBeNull();
  expect(m(join(root, "lib/python3.11/site-packages/x.pth"))).toBeNull();
});

test("a version manager's shim does not count as a program a venv's bin shadows (pyenv's pytest)", () => {
  const root = venv();
  mkdirSync(join(root, ".pyenv/shims"), { recursive: true });
  writeFileSync(join(root, ".pyenv/shims/pytest"), "#!/bin/sh\n");
  chmodSync(join(root, ".pyenv/shims/pytest"), 0o755);
  const m = venvMatcher(`${join(root, ".pyenv/shims")}:${join(root, "hostbin")}`);
  expect(m(join(root, ".venv/bin/pytest"))).toBe(VENV_TOOL_WHY);
  expect(m(join(root, ".venv/bin/git"))).toContain(join(root, "hostbin/git"));
});

test("a new program that shadows nothing, or anything in a venv the command made, is left; a new .pth in the person's venv is not", () => {
  const root = venv();
  const before = new Map([[join(root, ".venv/bin/python3"), "1:1:1"]]);
  const pth = join(root, ".venv/lib/python3.11/site-packages/x.pth");
  expect(venvNewIsFine(join(root, ".venv/bin/pytest"), VENV_TOOL_WHY, before)).toBe(true);
  expect(venvNewIsFine(pth, VENV_PTH_WHY, before)).toBe(false);
  expect(venvNewIsFine(join(root, ".venv/bin/git"), "your shell runs it instead of …", before)).toBe(false);
  expect(venvNewIsFine(pth, VENV_PTH_WHY, new Map())).toBe(true);
  expect(venvNewIsFine(join(root, ".envrc"), "direnv", new Map())).toBe(false);
});
