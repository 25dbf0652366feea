// What @ completion may offer (src/tools/walk.ts readableEntries): a folder's entries the read permission
// allows outright; nothing it refuses, nothing through a link that leads out, never .git.
import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { readableEntries } from "../../../src/tools/walk.ts";
import { makeContext, tempDir } from "../../support/context.ts";

test("the entries the read permission allows, folders marked; a denied file, .git and a link out are left out", () => {
  const root = tempDir("bunker-entries-");
  const outside = tempDir("bunker-entries-out-");
  writeFileSync(join(outside, "secret.txt"), "s\n");
  mkdirSync(join(root, "src"));
  mkdirSync(join(root, ".git"));
  writeFileSync(join(root, "calc.js"), "x\n");
  writeFileSync(join(root, "key.pem"), "k\n");
  writeFileSync(join(root, "src", "app.ts"), "x\n");
  symlinkSync(join(outside, "secret.txt"), join(root, "out-link"));
  symlinkSync(join(root, "src"), join(root, "src-link"));
  const grants = emptyGrants();
  grants.deny.read.globs.push(join(root, "*.pem"));
  const { perms } = makeContext(root, { grants });
  const sorted = (dir: string) => readableEntries(perms, dir)?.sort((a, b) => a.name.localeCompare(b.name));
  expect(sorted("")).toEqual([
    { name: "calc.js", dir: false },
    { name: "src", dir: true },
    { name: "src-link", dir: true },
  ]);
  expect(sorted("src/")).toEqual([{ name: "app.ts", dir: false }]);
  // Outside the workspace (not granted), or not there: nothing.
  expect(readableEntries(perms, `${outside}/`)).toBeNull();
  expect(readableEntries(perms, "../")).toBeNull();
  expect(readableEntries(perms, "nowhere/")).toBeNull();
  expect(readableEntries(makeContext(root, { grants: emptyGrants() }).perms, "")!.map((e) => e.name)).toContain("key.pem");
});
