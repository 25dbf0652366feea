// Removing a folder bunker made for commands, whatever they left in it (src/fs/remove-tree.ts).
import { expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTree } from "../../../src/fs/remove-tree.ts";
import { tempDir } from "../../support/context.ts";

const asNobody = process.getuid?.() === 0 && Bun.which("setpriv") !== null;

test("a folder closed to its owner inside is opened up and removed; a link in it is removed, not followed (reviewer's R13-11)", () => {
  const outside = tempDir("bunker-remove-tree-outside-");
  writeFileSync(join(outside, "keep"), "mine");
  chmodSync(outside, 0o755);
  const dir = tempDir("bunker-remove-tree-");
  mkdirSync(join(dir, "x/y"), { recursive: true });
  writeFileSync(join(dir, "x/y/f"), "f");
  symlinkSync(outside, join(dir, "x/link"));
  chmodSync(join(dir, "x"), 0o000);
  expect(removeTree(dir)).toBe(true);
  expect(existsSync(dir)).toBe(false);
  // What the link led to is untouched, its mode too.
  expect(readdirSync(outside)).toEqual(["keep"]);
  expect(removeTree(join(dir, "gone"))).toBe(true);
});

test.skipIf(!asNobody)("as a user who is not root, where chmod 000 bites: removed, and nothing thrown", () => {
  const dir = tempDir("bunker-remove-tree-nobody-");
  chmodSync(dir, 0o777);
  const script = `
    const { mkdirSync, writeFileSync, chmodSync, existsSync } = require("node:fs");
    const { removeTree } = require(${JSON.stringify(`${import.meta.dir}/../../../src/fs/remove-tree.ts`)});
    const d = ${JSON.stringify(dir)} + "/mine";
    mkdirSync(d + "/x/y", { recursive: true }); writeFileSync(d + "/x/y/f", "f"); chmodSync(d + "/x", 0);
    console.log(removeTree(d), existsSync(d));`;
  const r = Bun.spawnSync(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "", HOME: dir } });
  expect(r.stdout.toString().trim()).toBe("true false");
});
