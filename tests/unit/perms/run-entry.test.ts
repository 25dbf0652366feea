// What python -m, a folder handed to python, and a folder handed to node run (run-entry.ts): one answer for the
// hooks' named files and MCP consent (red team 10's F11).
import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { folderEntries, moduleArg, moduleFiles, moduleIn, moduleNames, nodeCandidates, pythonModulesIn, pythonSiblings, pythonSourceOf, shadowsStandardModule } from "../../../src/perms/run-entry.ts";
import { tempDir } from "../../support/context.ts";

test("-m NAME and -mNAME name a module; anything else does not", () => {
  expect(moduleNames(["-u", "-m", "tools.lint", "--fix"])).toEqual(["tools.lint"]);
  expect(moduleNames(["-mtools.lint"])).toEqual(["tools.lint"]);
  expect(moduleNames(["-m", "$MOD", "-m", "a..b", "-c", "x"])).toEqual([]);
  expect(moduleArg("-m", "pkg")).toBe("pkg");
  expect(moduleArg("-mpkg", undefined)).toBe("pkg");
  expect(moduleArg("-x", "pkg")).toBeNull();
  // -m last of combined options (the reviewer's R10-06), as Python reads `-Im pip`; an option with a value is no -m.
  expect(moduleNames(["-Im", "tools.lint"])).toEqual(["tools.lint"]);
  expect(moduleNames(["-Bmtools.lint"])).toEqual(["tools.lint"]);
  expect(moduleNames(["-Wm", "x", "-cm", "y"])).toEqual([]);
});

test("python -m runs each enclosing package's __init__.py (or a module file of its name, which wins over a namespace package: F14), then the module as a file or as a package", () => {
  expect(moduleFiles("tools.lint")).toEqual(["tools/__init__.py", "tools.py", "tools/lint.py", "tools/lint/__init__.py", "tools/lint/__main__.py"]);
  expect(moduleFiles("a.b.c")).toEqual(["a/__init__.py", "a.py", "a/b/__init__.py", "a/b.py", "a/b/c.py", "a/b/c/__init__.py", "a/b/c/__main__.py"]);
  expect(moduleFiles("srv")).toEqual(["srv.py", "srv/__init__.py", "srv/__main__.py"]);
  expect(moduleFiles("../x")).toEqual([]);
});

test("a folder runs python's __main__.py, or node's package.json main (as node resolves it) or index.js", () => {
  const dir = tempDir("bunker-run-entry-");
  const web = join(dir, "web");
  mkdirSync(web);
  expect(folderEntries(web)).toEqual([join(web, "__main__.py"), join(web, "package.json"), join(web, "index.js"), join(web, "index.json"), join(web, "index.node")]);
  writeFileSync(join(web, "package.json"), '{"main": "lib/cli"}');
  const entries = folderEntries(web);
  expect(entries).toContain(join(web, "lib/cli"));
  expect(entries).toContain(join(web, "lib/cli.js"));
  expect(entries).toContain(join(web, "lib/cli/index.js"));
  expect(entries).toContain(join(web, "index.js"));
  // Not JSON, or no main: the index only.
  writeFileSync(join(web, "package.json"), "{ not json");
  expect(folderEntries(web)).not.toContain(join(web, "lib/cli.js"));
});

test("node tries the word with its extensions before it as a folder (the reviewer's R10-14)", () => {
  expect(nodeCandidates("/w/tools")).toEqual(["/w/tools.js", "/w/tools.json", "/w/tools.node", "/w/tools.mjs", "/w/tools.cjs"]);
});

test("what Python runs in place of a module's source: its cached bytecode, an extension module, a sourceless .pyc (the reviewer's R10-06)", () => {
  const dir = tempDir("bunker-run-entry-py-");
  mkdirSync(join(dir, "tools/__pycache__"), { recursive: true });
  for (const f of ["lint.py", "lint.cpython-311-x86_64-linux-gnu.so", "lint.abi3.so", "lint.pyc", "linter.py", "lint_x.so", "__pycache__/lint.cpython-311.pyc", "__pycache__/lint.cpython-311.opt-1.pyc", "__pycache__/linter.cpython-311.pyc"]) writeFileSync(join(dir, "tools", f), "");
  const found = pythonSiblings(join(dir, "tools/lint.py")).map((s) => [s.path.slice(dir.length + 1), s.cache]).sort();
  expect(found).toEqual([
    ["tools/__pycache__/lint.cpython-311.opt-1.pyc", true],
    ["tools/__pycache__/lint.cpython-311.pyc", true],
    ["tools/lint.abi3.so", false],
    ["tools/lint.cpython-311-x86_64-linux-gnu.so", false],
    ["tools/lint.pyc", false],
  ]);
  expect(pythonSiblings(join(dir, "tools/lint.js"))).toEqual([]);
  // A __pycache__ that is a link (to bytecode kept elsewhere) counts itself, whatever it holds.
  mkdirSync(join(dir, "lib"));
  mkdirSync(join(dir, "elsewhere"));
  writeFileSync(join(dir, "elsewhere/x.cpython-311.pyc"), "");
  symlinkSync("../elsewhere", join(dir, "lib/__pycache__"));
  expect(pythonSiblings(join(dir, "lib/x.py"))).toEqual([{ path: join(dir, "lib/__pycache__"), cache: false }]);
  // Asked by the name alone (one not there yet): which source it stands for.
  expect(pythonSourceOf("/w/tools/__pycache__/lint.cpython-312.pyc")).toEqual({ source: "/w/tools/lint.py", cache: true });
  expect(pythonSourceOf("/w/tools/lint.cpython-312-darwin.so")).toEqual({ source: "/w/tools/lint.py", cache: false });
  expect(pythonSourceOf("/w/tools/lint.pyc")).toEqual({ source: "/w/tools/lint.py", cache: false });
  expect(pythonSourceOf("/w/tools/lint.py")).toBeNull();
});

test("the top-level modules of a folder python looks in first: files, extension modules, packages by their __init__", () => {
  const dir = tempDir("bunker-run-entry-top-");
  for (const d of ["pkg", "data", "not-a-name"]) mkdirSync(join(dir, d));
  for (const f of ["app.py", "json.py", "fast.cpython-311-x86_64-linux-gnu.so", "old.pyc", "README.md", "setup.cfg", "pkg/__init__.py", "not-a-name/__init__.py"]) writeFileSync(join(dir, f), "");
  expect(pythonModulesIn(dir).map((p) => p.slice(dir.length + 1)).sort()).toEqual(["app.py", "fast.cpython-311-x86_64-linux-gnu.so", "json.py", "old.pyc", "pkg/__init__.py"]);
  expect(moduleIn("/w/re.py")).toEqual({ dir: "/w" });
  expect(moduleIn("/w/yaml/__init__.py")).toEqual({ dir: "/w" });
  expect(moduleIn("/w/notes.txt")).toBeNull();
});

test("a new module where a hook's python looks first counts only under a name python imports from elsewhere: the standard library's, the host python3's packages, a virtual environment's beside it (reviewer's R11-02, R11-16)", () => {
  const dir = tempDir("bunker-shadow-");
  mkdirSync(join(dir, ".venv/lib/python3.11/site-packages/yamlx"), { recursive: true });
  writeFileSync(join(dir, ".venv/pyvenv.cfg"), "home = /usr/bin\n");
  mkdirSync(join(dir, "tools"));
  expect(shadowsStandardModule(join(dir, "json.py"))).toBe(true);
  expect(shadowsStandardModule(join(dir, "re/__init__.py"))).toBe(true);
  expect(shadowsStandardModule(join(dir, "yamlx.py"))).toBe(true);
  expect(shadowsStandardModule(join(dir, "tools/yamlx.py"))).toBe(true);
  expect(shadowsStandardModule(join(dir, "utils.py"))).toBe(false);
  expect(shadowsStandardModule(join(dir, "api/__init__.py"))).toBe(false);
});
