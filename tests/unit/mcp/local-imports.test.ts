// The local imports a project server's consent hash follows (src/mcp/local-imports.ts): read by pattern.
import { expect, test } from "bun:test";
import { importCandidates } from "../../../src/mcp/local-imports.ts";

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
