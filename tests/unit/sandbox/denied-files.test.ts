import { afterEach, expect, test } from "bun:test";
import { linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deniedPins, globBase, hardLinkCheck, scanDenied } from "../../../src/sandbox/denied-files.ts";

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

test("a denied file moved out of its rule's reach stays denied for the session, by identity (red team 9's F11)", () => {
  const root = tree();
  const rules = { paths: [], globs: [join(root, "**/secrets/*")] };
  const first = scanDenied(rules, [root], { always: [root] });
  if ("refused" in first) throw new Error(first.refused);
  expect(first.masks.map((m) => m.path)).toContain(join(root, "secrets/key.txt"));
  renameSync(join(root, "secrets"), join(root, "s2"));
  const again = scanDenied(rules, [root], { always: [root] });
  if ("refused" in again) throw new Error(again.refused);
  expect(again.masks).toEqual([{ path: join(root, "s2/key.txt"), dir: false }]);
  expect(hardLinkCheck(rules, [root])(join(root, "s2/key.txt"))).toBe("s2/key.txt is a file the deny-read rules deny, moved or renamed out of their reach");
  // The control: rules that never matched it (another session's) see a file like any other.
  const fresh = { paths: [], globs: [join(root, "**/secrets/*")] };
  const other = scanDenied(fresh, [root], { always: [root] });
  expect("refused" in other ? other.refused : other.masks).toEqual([]);
  expect(hardLinkCheck(fresh, [root])(join(root, "s2/key.txt"))).toBeNull();
  expect(hardLinkCheck(rules, [root])(join(root, "readme.txt"))).toBeNull();
});

test("the folders pinned on the way to what a rule names, in the folders a command may write", () => {
  const root = tree();
  mkdirSync(join(root, "config/prod"), { recursive: true });
  symlinkSync("config", join(root, "cfg"));
  const pins = (globs: string[], paths: string[], writable = [root]) => deniedPins({ globs: globs.map((g) => join(root, g)), paths: paths.map((p) => join(root, p)) }, writable);
  expect(pins(["secrets/**"], [])).toEqual([join(root, "secrets")]);
  expect(pins(["secrets/sub/*.key"], [])).toEqual([join(root, "secrets"), join(root, "secrets/sub")]);
  expect(pins(["**/*.pem"], ["a.pem"])).toEqual([]);
  expect(pins([], ["config/prod/db.key", "config/prod"])).toEqual([join(root, "config"), join(root, "config/prod")]);
  expect(pins([], ["cfg/prod/db.key", "missing/x.key"])).toEqual([]); // a link, or nothing there: not pinned
  expect(pins(["secrets/**"], [], [join(root, "src")])).toEqual([]); // not in a folder the command may write
});
