// What python-portions.ts reads of a folder a hook's python looks in first: the top-level folders and links, and
// the code python could import from each by a dotted name (red team 12's F06, the namespace-folder class).
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { namespaceTopOf, portionsOf, pythonCodeNames, type Portion } from "../../../src/sandbox/python-portions.ts";

/** What the walk gives portionsOf: each folder under `top` with code in it → those paths. */
function codeUnder(top: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true });
    const names = pythonCodeNames(dir, entries);
    if (names.length > 0) out.set(dir, names.map((n) => join(dir, n)));
    for (const e of entries) if (e.isDirectory()) walk(join(dir, e.name));
  };
  walk(top);
  return out;
}

describe("pythonCodeNames", () => {
  test("module files python imports, and links of a module's or package's name; not data, not a venv's lib64 -> lib", () => {
    const dir = mkdtempSync(join(tmpdir(), "bunker-portions-"));
    for (const f of ["a.py", "b.pyc", "c.cpython-311-x86_64-linux-gnu.so", "notes.txt", "x-y.py", "README"]) writeFileSync(join(dir, f), "");
    mkdirSync(join(dir, "lib"));
    symlinkSync("lib", join(dir, "lib64"));
    symlinkSync("/elsewhere", join(dir, "protobuf"));
    symlinkSync("lib", join(dir, "not-a-name"));
    expect(pythonCodeNames(dir, readdirSync(dir, { withFileTypes: true })).sort()).toEqual(["a.py", "b.pyc", "c.cpython-311-x86_64-linux-gnu.so", "protobuf"]);
  });
});

describe("portionsOf", () => {
  test("each top-level folder with the code importable from it by name; a link by what it leads to; __pycache__ and names python cannot import left out", () => {
    const first = mkdtempSync(join(tmpdir(), "bunker-portions-"));
    mkdirSync(join(first, "google/protobuf"), { recursive: true });
    writeFileSync(join(first, "google/protobuf/__init__.py"), "");
    mkdirSync(join(first, "docs/_build"), { recursive: true });
    writeFileSync(join(first, "docs/notes.txt"), "");
    // Not importable by a dotted name: under a folder named python3.11, or in __pycache__.
    mkdirSync(join(first, "venv/lib/python3.11"), { recursive: true });
    writeFileSync(join(first, "venv/lib/python3.11/x.py"), "");
    mkdirSync(join(first, "__pycache__"));
    mkdirSync(join(first, ".hidden"));
    writeFileSync(join(first, "README"), "");
    symlinkSync("README", join(first, "readme_link"));
    symlinkSync(".hidden", join(first, "nslink"));
    const into = new Map<string, Portion>();
    portionsOf(first, "why", codeUnder(first), into);
    const shown = Object.fromEntries([...into].map(([p, v]) => [p.slice(first.length + 1), { code: v.code.map((c) => c.slice(first.length + 1)), link: v.link, file: v.file }]));
    expect(shown).toEqual({
      google: { code: ["google/protobuf/__init__.py"], link: false, file: false },
      docs: { code: [], link: false, file: false },
      venv: { code: [], link: false, file: false },
      readme_link: { code: [], link: true, file: true },
      nslink: { code: [], link: true, file: false },
    });
    // A folder's identity is its inode; a link's, where it leads and what that is now.
    expect(into.get(join(first, "nslink"))!.id).toBe("link:.hidden:dir");
  });
});

describe("namespaceTopOf", () => {
  test("the top folder of code importable by a dotted name through folders with no __init__; not a regular package, data, or a name python cannot import", () => {
    const first = mkdtempSync(join(tmpdir(), "bunker-portions-"));
    mkdirSync(join(first, "pkg"));
    writeFileSync(join(first, "pkg/__init__.py"), "");
    expect(namespaceTopOf(first, join(first, "google/protobuf/__init__.py"))).toBe(join(first, "google"));
    expect(namespaceTopOf(first, join(first, "google/protobuf.py"))).toBe(join(first, "google"));
    expect(namespaceTopOf(first, join(first, "pkg/sub/x.py"))).toBeNull();
    expect(namespaceTopOf(first, join(first, "google/notes.txt"))).toBeNull();
    expect(namespaceTopOf(first, join(first, "google/my-dir/x.py"))).toBeNull();
    expect(namespaceTopOf(first, join(first, "top.py"))).toBeNull();
    expect(namespaceTopOf(join(first, "pkg"), join(first, "google/x.py"))).toBeNull();
  });
});
