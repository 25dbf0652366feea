import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deniedCaches, dvcCaches } from "../../../src/sandbox/denied-caches.ts";
import { tempDir } from "../../support/context.ts";

const SECRET = "k=v\n";
const md5 = new Bun.CryptoHasher("md5").update(SECRET).digest("hex");

function project(config = "") {
  const root = tempDir("bunker-dvc-");
  mkdirSync(join(root, ".dvc/cache"), { recursive: true });
  mkdirSync(join(root, "data"));
  writeFileSync(join(root, ".dvc/config"), config);
  writeFileSync(join(root, "data/s.csv"), SECRET);
  return root;
}

describe("DVC's caches of denied files", () => {
  test("the caches a project's config names, besides .dvc/cache", () => {
    const root = project("[core]\n  remote = x\n[cache]\n    dir = ../../shared-cache\n");
    writeFileSync(join(root, ".dvc/config.local"), "[ cache ]\ndir = /srv/dvc\n");
    expect(dvcCaches(root)).toEqual([join(root, ".dvc/cache"), join(root, "..", "shared-cache"), "/srv/dvc"]);
  });

  test("a file DVC tracks (a NAME.dvc for it or a folder holding it): its project's cache", () => {
    const root = project();
    expect(deniedCaches([join(root, "data/s.csv")], root)).toEqual([]);
    writeFileSync(join(root, "data.dvc"), "outs:\n- path: data\n");
    expect(deniedCaches([join(root, "data/s.csv")], root)).toEqual([join(root, ".dvc/cache")]);
  });

  test("a file whose bytes are in the cache (DVC 3's and DVC 2's layouts), tracked or not", () => {
    for (const at of [`files/md5/${md5.slice(0, 2)}`, md5.slice(0, 2)]) {
      const root = project();
      mkdirSync(join(root, ".dvc/cache", at), { recursive: true });
      writeFileSync(join(root, ".dvc/cache", at, md5.slice(2)), SECRET);
      expect(deniedCaches([join(root, "data/s.csv")], root)).toEqual([join(root, ".dvc/cache")]);
    }
  });

  test("never a cache the workspace is in, and nothing outside a DVC project", () => {
    const root = project("[cache]\ndir = ../..\n");
    writeFileSync(join(root, "data/s.csv.dvc"), "outs:\n- path: s.csv\n");
    expect(deniedCaches([join(root, "data/s.csv")], join(root, "data"))).toEqual([join(root, ".dvc/cache")]);
    const plain = tempDir("bunker-nodvc-");
    writeFileSync(join(plain, "s.csv"), SECRET);
    expect(deniedCaches([join(plain, "s.csv")], plain)).toEqual([]);
  });
});
