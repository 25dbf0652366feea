// The local imports a project server's consent hash follows (src/mcp/local-imports.ts): read by pattern.
import { expect, test } from "bun:test";
import { followsImports, importCandidates, importedFiles } from "../../../src/mcp/local-imports.ts";

test("Python: plain, from and relative imports, each as the module file or its package folder, from where Python looks", () => {
  const text = ["import os, helpers as h", "from tools.db import connect", "from . import sibling", "from ..up import x", "  import json", "x = 'import evil'"].join("\n");
  expect(importCandidates("/w/srv/main.py", text)).toEqual([
    ["/w/srv/os.py", "/w/srv/os/"],
    ["/w/srv/helpers.py", "/w/srv/helpers/"],
    ["/w/srv/tools.py", "/w/srv/tools/"],
    ["/w/srv/sibling.py", "/w/srv/sibling/"],
    ["/w/up.py", "/w/up/"],
    ["/w/srv/json.py", "/w/srv/json/"],
  ]);
  // Run with -m from the workspace: top-level names are found there.
  expect(importCandidates("/w/srv/main.py", "import helpers", "/w")).toEqual([["/w/helpers.py", "/w/helpers/"]]);
});

test("JavaScript and TypeScript: relative specifiers of import, export, import() and require, with the extensions and index files tried; packages are not followed", () => {
  const text = [
    'import { a } from "./lib/a.js";', "export * from '../shared';", 'const b = await import("./b");', 'const c = require("./c.cjs");',
    'import "./side-effect";', 'import z from "zod";', 'import fs from "node:fs";',
  ].join("\n");
  const found = importCandidates("/w/server/index.ts", text);
  expect(found.map((alts) => alts[0])).toEqual(["/w/server/lib/a.js", "/w/shared", "/w/server/b", "/w/server/c.cjs", "/w/server/side-effect"]);
  // "./lib/a.js" in TypeScript is lib/a.ts on disk: tried right after the name as written.
  expect(found[0]!.slice(0, 2)).toEqual(["/w/server/lib/a.js", "/w/server/lib/a.ts"]);
  expect(found[1]).toContain("/w/shared.ts");
  expect(found[1]).toContain("/w/shared/index.js");
  expect(importCandidates("/w/notes.md", 'import x from "./y"')).toEqual([]);
});

test("what a hook's script imports, file by file in the order each language looks (red team 11's F18)", () => {
  const text = ["import helpers as h, a.b", "from pkg.sub import run, other", "from . import sibling", "x = 1; import late", "mod = importlib.import_module('dyn')", "from os import *"].join("\n");
  expect(importedFiles("/w/tools/lint.py", text, ["/w/tools", "/w"])).toEqual([
    ["/w/tools/dyn/__init__.py", "/w/tools/dyn.py"],
    ["/w/tools/helpers/__init__.py", "/w/tools/helpers.py"],
    ["/w/tools/a/__init__.py", "/w/tools/a.py"],
    ["/w/tools/a/b/__init__.py", "/w/tools/a/b.py"],
    ["/w/tools/pkg/__init__.py", "/w/tools/pkg.py"],
    ["/w/tools/pkg/sub/__init__.py", "/w/tools/pkg/sub.py"],
    ["/w/tools/pkg/sub/run/__init__.py", "/w/tools/pkg/sub/run.py"],
    ["/w/tools/pkg/sub/other/__init__.py", "/w/tools/pkg/sub/other.py"],
    ["/w/tools/sibling/__init__.py", "/w/tools/sibling.py"],
    ["/w/tools/late/__init__.py", "/w/tools/late.py"],
    ["/w/tools/os/__init__.py", "/w/tools/os.py"],
    ["/w/dyn/__init__.py", "/w/dyn.py"],
    ["/w/helpers/__init__.py", "/w/helpers.py"],
    ["/w/a/__init__.py", "/w/a.py"],
    ["/w/a/b/__init__.py", "/w/a/b.py"],
    ["/w/pkg/__init__.py", "/w/pkg.py"],
    ["/w/pkg/sub/__init__.py", "/w/pkg/sub.py"],
    ["/w/pkg/sub/run/__init__.py", "/w/pkg/sub/run.py"],
    ["/w/pkg/sub/other/__init__.py", "/w/pkg/sub/other.py"],
    ["/w/late/__init__.py", "/w/late.py"],
    ["/w/os/__init__.py", "/w/os.py"],
  ]);
  expect(importedFiles("/w/web/check.js", "require('./util');\nimport x from 'zod';\n").map((alts) => alts[0])).toEqual(["/w/web/util"]);
  expect(followsImports("/w/a.py") && followsImports("/w/a.mjs") && !followsImports("/w/a.sh")).toBe(true);
});
