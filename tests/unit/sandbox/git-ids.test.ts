import { expect, test } from "bun:test";
import { idAtStart, isId, refTarget } from "../../../src/sandbox/git-ids.ts";

const sha1 = "0123456789abcdef0123456789abcdef01234567";
const sha256 = "0123456789abcdef".repeat(4);

test("an id as git reads it from a ref file or a reflog: either case, 40 or 64 digits, then the end or whitespace; lower-cased", () => {
  expect(idAtStart(`${sha1}\n`)).toBe(sha1);
  expect(idAtStart(sha1.toUpperCase())).toBe(sha1);
  expect(idAtStart(`${sha256} trailing words git ignores`)).toBe(sha256);
  expect(idAtStart(`${sha1}0\n`)).toBeNull(); // 41 digits: neither kind
  expect(idAtStart(`${sha1}x`)).toBeNull();
  expect(idAtStart("ref: refs/heads/main\n")).toBeNull();
  expect(isId(sha1.toUpperCase())).toBe(true);
  expect(isId(`${sha1} `)).toBe(false);
  expect(isId(sha1.slice(0, 39) + "g")).toBe(false);
});

test("a symbolic ref's target as git reads it: after `ref:` any whitespace or none (reviewer's R12-02)", () => {
  expect(refTarget("ref: refs/heads/main\n")).toBe("refs/heads/main");
  expect(refTarget("ref:refs/backup/main\n")).toBe("refs/backup/main");
  expect(refTarget("ref:\t  refs/x")).toBe("refs/x");
  expect(refTarget("ref:")).toBeNull();
  expect(refTarget(`${sha1}\n`)).toBeNull();
});
