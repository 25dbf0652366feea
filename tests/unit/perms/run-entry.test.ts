// What python -m, a folder handed to python, and a folder handed to node run (run-entry.ts): one answer for the
// hooks' named files and MCP consent (red team 10's F11).
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { folderEntries, moduleArg, moduleFiles, moduleNames } from "../../../src/perms/run-entry.ts";
import { tempDir } from "../../support/context.ts";

test("-m NAME and -mNAME name a module; anything else does not", () => {
  expect(moduleNames(["-u", "-m", "tools.lint", "--fix"])).toEqual(["tools.lint"]);
  expect(moduleNames(["-mtools.lint"])).toEqual(["tools.lint"]);
  expect(moduleNames(["-m", "$MOD", "-m", "a..b", "-c", "x"])).toEqual([]);
  expect(moduleArg("-m", "pkg")).toBe("pkg");
  expect(moduleArg("-mpkg", undefined)).toBe("pkg");
  expect(moduleArg("-x", "pkg")).toBeNull();
});

test("python -m runs each enclosing package's __init__.py, then the module as a file or as a package", () => {
  expect(moduleFiles("tools.lint")).toEqual(["tools/__init__.py", "tools/lint.py", "tools/lint/__init__.py", "tools/lint/__main__.py"]);
  expect(moduleFiles("a.b.c")).toEqual(["a/__init__.py", "a/b/__init__.py", "a/b/c.py", "a/b/c/__init__.py", "a/b/c/__main__.py"]);
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
