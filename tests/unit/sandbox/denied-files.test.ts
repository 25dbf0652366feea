import { afterEach, expect, test } from "bun:test";
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { globBase, hardLinkCheck, scanDenied } from "../../../src/sandbox/denied-files.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(): string {
  const root = mkdtempSync(join(tmpdir(), "bunker-denied-"));
  dirs.push(root);
  mkdirSync(join(root, "secrets/sub"), { recursive: true });
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "a.pem"), "x");
  writeFileSync(join(root, "src/b.pem"), "x");
  writeFileSync(join(root, "secrets/key.txt"), "x");
  writeFileSync(join(root, "readme.txt"), "x");
  symlinkSync("a.pem", join(root, "link.pem"));
  return root;
}

test("a glob's fixed part", () => {
  expect(globBase("/w/secrets/**")).toBe("/w/secrets");
  expect(globBase("/w/**/*.pem")).toBe("/w");
  expect(globBase("/**/x")).toBe("/");
});

test("every match is masked (a matching folder whole), links are not, and a hard link to a denied file is masked too", () => {
  const root = tree();
  linkSync(join(root, "secrets/key.txt"), join(root, "src/other-name"));
  const scan = scanDenied({ paths: [], globs: [join(root, "**/*.pem"), join(root, "secrets/**")] }, [root], { always: [root] });
  if ("refused" in scan) throw new Error(scan.refused);
  const masks = scan.masks.map((m) => `${m.path.slice(root.length + 1)}${m.dir ? "/" : ""}`).sort();
  expect(masks).toEqual(["a.pem", "secrets/key.txt", "secrets/sub/", "src/b.pem", "src/other-name"]);
});

test("a hard link to a file under a denied path is masked; the path itself is left to the path mask", () => {
  const root = tree();
  linkSync(join(root, "secrets/key.txt"), join(root, "copy"));
  const scan = scanDenied({ paths: [join(root, "secrets")], globs: [] }, [root], { always: [root] });
  if ("refused" in scan) throw new Error(scan.refused);
  expect(scan.masks).toEqual([{ path: join(root, "copy"), dir: false }]);
});

test("too many matches or entries: refused, naming the rule and what to change", () => {
  const root = tree();
  const rules = { paths: [], globs: [join(root, "**/*.pem")] };
  const few = scanDenied(rules, [root], { limits: { maxMatches: 1, maxEntries: 1000, budgetMs: 1000 } });
  expect("refused" in few && few.refused).toContain("match more than 1 files");
  const small = scanDenied(rules, [root], { limits: { maxMatches: 100, maxEntries: 3, budgetMs: 1000 } });
  expect("refused" in small && small.refused).toContain(`the deny-read rules (${join(root, "**/*.pem")})`);
  expect("refused" in small && small.refused).toContain("--deny-read=PATH");
});

test("the file tools' check: only another name of a denied file is refused", () => {
  const root = tree();
  linkSync(join(root, "secrets/key.txt"), join(root, "k2"));
  linkSync(join(root, "readme.txt"), join(root, "readme2"));
  const check = hardLinkCheck({ paths: [], globs: [join(root, "secrets/**")] }, [root]);
  expect(check(join(root, "k2"))).toContain("is another name (a hard link) of a file the deny-read rules deny");
  expect(check(join(root, "readme2"))).toBeNull();
  expect(check(join(root, "a.pem"))).toBeNull();
});
