// A Python virtual environment's files that run later (red team 6's F10c-e): its bin/, the .pth files and
// sitecustomize/usercustomize in its site-packages. Unit rows for the matcher; real runs in the sandbox are in
// tests/unit/sandbox/venv-planted.test.ts.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONDA_ACTIVATE_WHY, ENV_CONFIG_WHY, isPythonEnv, pthImports, VENV_CFG_WHY, VENV_PTH_WHY, VENV_TOOL_WHY, venvMatcher, venvNewIsFine } from "../../../src/perms/venv.ts";
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

test("red team 8 F3: pyvenv.cfg (beside bin/ or in it, where python looks first) runs later; so do the modules a .pth imports (F3b), not pip's own package", () => {
  const root = venv();
  const sp = join(root, ".venv/lib/python3.11/site-packages");
  writeFileSync(join(sp, "distutils-precedence.pth"), "import os; var = 'X'; enabled = os.environ.get(var, 'local') == 'local'; enabled and __import__('_distutils_hack').add_shim(); \n");
  writeFileSync(join(sp, "_virtualenv.pth"), "import _virtualenv\n");
  writeFileSync(join(sp, "paths.pth"), "/abs/src\nimport a.b as c, d\n");
  const m = venvMatcher("/nonexistent");
  expect(m(join(root, ".venv/pyvenv.cfg"))).toBe(VENV_CFG_WHY);
  expect(m(join(root, ".venv/bin/pyvenv.cfg"))).toBe(VENV_CFG_WHY);
  // The environment's own pip config (red team 13's F01); a pip.conf in a plain folder is no environment's.
  expect(m(join(root, ".venv/pip.conf"))).toBe(ENV_CONFIG_WHY);
  expect(m(join(root, "pip.conf"))).toBeNull();
  for (const f of ["_distutils_hack/__init__.py", "_distutils_hack/override.py", "_virtualenv.py", "__pycache__/_virtualenv.cpython-311.pyc", "a/__init__.py", "d.cpython-311-x86_64-linux-gnu.so", "sitecustomize/__init__.py", "__pycache__/sitecustomize.cpython-311.pyc"]) {
    expect({ f, why: m(join(sp, f)) }).toEqual({ f, why: VENV_PTH_WHY });
  }
  for (const f of ["pip/__init__.py", "pip/_internal/cli/main.py", "requests/api.py", "src/x.py", "_distutils_hack-1.0.dist-info/RECORD", "__pycache__/mod.cpython-311.pyc"]) {
    expect({ f, why: m(join(sp, f)) }).toEqual({ f, why: null });
  }
  expect(pthImports("import os, sys as s; exec('x')\n  import nope\nfrom_x\nimport\tq.r; from t.u import v; importlib.import_module('w')\n").sort()).toEqual(["os", "q", "sys", "t", "w"]);
});

test("red team 8 F21: a conda, mamba or pixi prefix (conda-meta/) is a Python environment: bin/, .pth, activate.d and its own start-up stdlib", () => {
  const root = tempDir();
  const env = join(root, ".pixi/envs/default");
  mkdirSync(join(env, "conda-meta"), { recursive: true });
  mkdirSync(join(env, "lib/python3.12/site-packages"), { recursive: true });
  const m = venvMatcher("/nonexistent");
  expect(isPythonEnv(env)).toBe(true);
  expect(m(join(env, "bin/python3.12"))).toContain("this virtual environment's own python3.12");
  expect(m(join(env, "bin/conda"))).toContain("own conda");
  expect(m(join(env, "lib/python3.12/site-packages/x.pth"))).toBe(VENV_PTH_WHY);
  expect(m(join(env, "lib/python3.12/encodings/__init__.py"))).toBe(VENV_PTH_WHY);
  expect(m(join(env, "lib/python3.12/encodings/__pycache__/utf_8.cpython-312.pyc"))).toBe(VENV_PTH_WHY);
  expect(m(join(env, "lib/python3.12/site.py"))).toBe(VENV_PTH_WHY);
  expect(m(join(env, "lib/python3.12/json/__init__.py"))).toBeNull();
  expect(m(join(env, "etc/conda/activate.d/x.sh"))).toBe(CONDA_ACTIVATE_WHY);
  // A folder without conda-meta/ or pyvenv.cfg is none: the same names are plain files.
  expect(m(join(root, "lib/python3.12/site-packages/x.pth"))).toBeNull();
  expect(m(join(root, ".pixi/envs/other/etc/conda/activate.d/x.sh"))).toBeNull();
  expect(venvNewIsFine(join(env, "lib/python3.12/site-packages/x.pth"), VENV_PTH_WHY, new Map([[join(env, "bin/python3.12"), "1"]]))).toBe(false);
});
