// A path that does not exist gets the names the model most likely meant: a
// near name in the same directory (typo, extension, case) or the same name
// elsewhere in the workspace.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolvePath } from "../../../src/perms/workspace.ts";
import { notFoundError, suggestNearNames } from "../../../src/tools/not-found.ts";
import { tempDir } from "../../support/context.ts";

function workspace(files: string[]): string {
  const root = tempDir("bunker-nf-");
  for (const f of files) {
    mkdirSync(join(root, f, ".."), { recursive: true });
    writeFileSync(join(root, f), "");
  }
  return root;
}
const all = () => true;

describe("suggestNearNames", () => {
  const root = workspace(["src/config.ts", "src/Config.test.ts", "src/main.ts", "docs/guide.md", "lib/deep/guide.md", "README.md"]);
  const TABLE: [string, string[]][] = [
    ["src/confg.ts", ["src/config.ts"]],
    ["src/config.js", ["src/config.ts"]],
    ["src/MAIN.ts", ["src/main.ts"]],
    ["guide.md", ["docs/guide.md", "lib/deep/guide.md"]],
    ["src/zzzzzzzz.ts", []],
  ];
  for (const [missing, near] of TABLE) {
    test(`${missing} → ${near.join(", ") || "nothing"}`, () => {
      expect(suggestNearNames(root, join(root, missing), all).sort()).toEqual(near.sort());
    });
  }

  test("names the policy would not let the model read are never suggested", () => {
    expect(suggestNearNames(root, join(root, "guide.md"), (p) => !p.includes("/lib"))).toEqual(["docs/guide.md"]);
  });
});

describe("notFoundError", () => {
  test("says the path does not exist and offers the near names", () => {
    const root = workspace(["src/config.ts"]);
    expect(notFoundError(root, resolvePath(root, "src/confg.ts"), all).message).toBe("src/confg.ts does not exist. Did you mean: src/config.ts?");
  });

  test("says when its directory does not exist either", () => {
    const root = workspace(["a.txt"]);
    expect(notFoundError(root, resolvePath(root, "nodir/x.txt"), all).message).toBe("nodir/x.txt does not exist (nor does its directory nodir)");
  });
});
