// The test suite is laid out like the code: every module in src/ is imported
// by at least one unit test under tests/unit (a new module gets one), so no
// module is covered only by end-to-end runs, or not at all.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
/** The entry point runs bunker when loaded; the end-to-end tests run it (tests/e2e/cli.test.ts and the rest). */
const NOT_IMPORTABLE = new Set(["src/main.ts"]);

/** Every module a unit test loads: its relative imports, and relative .ts paths it names (a module loaded in a child process). */
function importedByUnitTests(): Set<string> {
  const seen = new Set<string>();
  for (const rel of new Bun.Glob("tests/unit/**/*.ts").scanSync(ROOT)) {
    const file = join(ROOT, rel);
    for (const m of readFileSync(file, "utf8").matchAll(/["'](\.{1,2}\/[^"']+\.ts)["']/g)) seen.add(resolve(dirname(file), m[1]!).slice(ROOT.length + 1));
  }
  return seen;
}

test("every module in src/ is imported by a unit test", () => {
  const imported = importedByUnitTests();
  const modules = [...new Bun.Glob("src/**/*.ts").scanSync(ROOT)].sort();
  expect(modules.length).toBeGreaterThan(50);
  const missing = modules.filter((m) => !imported.has(m) && !NOT_IMPORTABLE.has(m));
  // A module listed here needs a test in tests/unit/<its folder>/ that imports it and checks what a person would see.
  expect(missing).toEqual([]);
});
