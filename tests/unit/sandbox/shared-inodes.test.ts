// Red team 8's F22: bun install (hard links by default on Linux), pnpm and uv fill node_modules with hard links to one
// global cache; a command appending to node_modules/is-number/index.js wrote the cache, and every other project using
// it ran the command's code. Real runs: the same append unconfined changes the cache (the control); in the sandbox the
// workspace's file gets a copy of its own first, so the cache and the other project are untouched.
import { afterAll, describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { ownCopiesOfShared } from "../../../src/sandbox/shared-inodes.ts";
import { runAllowed } from "../../support/confined.ts";
import { unseenDir } from "../../support/context.ts";

const base = unseenDir("bunker-shared-");
const home = join(base, "home");
mkdirSync(home);
const env = { PATH: "/usr/bin:/bin", HOME: home };
afterAll(() => rmSync(base, { recursive: true, force: true }));
const CODE = "module.exports = (n) => typeof n === 'number';\n";

/** A global cache, and a project (the workspace) plus another project installed from it by hard links. */
function installed(name: string): { cache: string; root: string; other: string } {
  const cache = join(base, name, "cache/is-number@7.0.0/index.js");
  const root = join(base, name, "p1");
  const other = join(base, name, "p2/node_modules/is-number/index.js");
  for (const d of [join(base, name, "cache/is-number@7.0.0"), join(root, "node_modules/is-number"), join(base, name, "p2/node_modules/is-number")]) mkdirSync(d, { recursive: true });
  writeFileSync(cache, CODE);
  linkSync(cache, join(root, "node_modules/is-number/index.js"));
  linkSync(cache, other);
  return { cache, root, other };
}
const append = `echo 'require("fs").appendFileSync("/tmp/pwned", "x");' >> node_modules/is-number/index.js && echo appended`;

describe.skipIf(detectSandbox().kind !== "bubblewrap")("hard links into a package cache (red team 8 F22)", () => {
  test("control: unconfined, the append changes the cache and the other project", async () => {
    const p = installed("control");
    expect(await runAllowed(p.root, append, { env, home, sandbox: "off" })).toContain("appended");
    expect(readFileSync(p.other, "utf8")).toContain("appendFileSync");
    expect(readFileSync(p.cache, "utf8")).toContain("appendFileSync");
  });

  test("in the sandbox the workspace's file gets its own copy first: the cache and the other project are untouched, the result says so", async () => {
    const p = installed("attack");
    const shown: string[] = [];
    const out = await runAllowed(p.root, append, { env, home, shown });
    expect(out).toContain("appended");
    // The person is told too (red team 9 F05: their own hard-linked dotfiles are split the same way).
    expect(shown).toContain("  1 hard-linked file was given a copy of its own before the command (node_modules/is-number/index.js): a change to it no longer reaches its other name outside the workspace");
    expect(out).toContain("note: bunker gave 1 file (47 bytes) a copy of their own before the command: each was a hard link to a file outside the folders commands may write");
    expect(out).toContain("node_modules/is-number/index.js");
    expect(readFileSync(p.cache, "utf8")).toBe(CODE);
    expect(readFileSync(p.other, "utf8")).toBe(CODE);
    expect(readFileSync(join(p.root, "node_modules/is-number/index.js"), "utf8")).toContain("appendFileSync");
    expect(statSync(p.cache).nlink).toBe(2);
    // The next command finds nothing more to copy.
    expect(await runAllowed(p.root, "echo again", { env, home })).not.toContain("a copy of their own");
  });
});

describe("what gets a copy", () => {
  test("links whose every name is in the roots are kept; a link out is copied; over the bounds nothing is copied and the command is refused", () => {
    const p = installed("kept");
    linkSync(join(p.root, "node_modules/is-number/index.js"), join(base, "kept/p1/same.js")); // a third name, inside
    writeFileSync(join(p.root, "a.txt"), "a");
    linkSync(join(p.root, "a.txt"), join(p.root, "b.txt")); // the person's own link inside the workspace
    const limits = { maxFiles: 100, budgetMs: 3000, maxBytes: 10 };
    const over = ownCopiesOfShared([p.root], new Set(), limits);
    expect("refused" in over && over.refused).toContain("2 such files here hold 94 bytes, more than the 10 bytes it copies before a command. To run it, give them copies yourself: reinstall with copies instead of links (bun install --backend=copyfile");
    expect(statSync(p.cache).nlink).toBe(4);
    const few = ownCopiesOfShared([p.root], new Set(), { ...limits, maxFiles: 2 });
    expect("refused" in few && few.refused).toContain("holds more than 2 files, too many to look through each time");
    const done = ownCopiesOfShared([p.root], new Set(), { ...limits, maxBytes: 1024 * 1024 });
    expect("copied" in done && done.copied.sort()).toEqual([join(p.root, "node_modules/is-number/index.js"), join(p.root, "same.js")]);
    expect(statSync(join(p.root, "a.txt")).ino).toBe(statSync(join(p.root, "b.txt")).ino);
    expect(statSync(p.cache).nlink).toBe(2);
  });
});
