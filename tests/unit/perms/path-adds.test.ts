// The folders an .envrc or a mise config puts first on PATH (red team 8's F4), read from their text.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { envrcPathDirs, isMiseConfig, misePathDirs } from "../../../src/perms/path-adds.ts";
import { tempDir } from "../../support/context.ts";

const ws = tempDir("bunker-path-adds-");
afterAll(() => rmSync(ws, { recursive: true, force: true }));

test("an .envrc: PATH_add, path_add PATH, load_prefix, layouts, export PATH with $PWD or ${PATH:+:$PATH}; a folder behind another variable or a command counts by its written tail in the .envrc's folder (red team 10's F08)", () => {
  mkdirSync(join(ws, ".direnv/python-3.12/bin"), { recursive: true });
  const text = [
    "PATH_add bin scripts # two",
    "path_add PATH tools/bin",
    "path_add PYTHONPATH lib",
    "load_prefix local",
    "layout node",
    "layout python3",
    'export PATH="$PWD/x/bin:$PATH"',
    "PATH=$(pwd)/y:$PATH",
    'PATH_add "$(direnv_layout_dir)/z"',
    "export PATH=$HOME/mine:$PATH",
    "PATH_add $SOMEWHERE/bin",
    'export PATH="$PWD/w/bin${PATH:+:$PATH}"',
    "PATH_add $(something)",
  ].join("\n");
  expect(envrcPathDirs(join(ws, ".envrc"), text).sort()).toEqual(
    ["bin", "scripts", "tools/bin", "local/bin", "local/sbin", "node_modules/.bin", ".direnv/python-3.12/bin", ".venv/bin", "x/bin", "y", ".direnv/z", "mine", "w/bin"].map((d) => join(ws, d)).sort(),
  );
  expect(envrcPathDirs(join(ws, ".envrc"), 'PATH_add "$(git rev-parse --show-toplevel)/gitbin"')).toContain(join(ws, "gitbin"));
  // A folder named through the .envrc's own variable (red team 10's F08b).
  expect(envrcPathDirs(join(ws, ".envrc"), 'TOOLS="$PWD/tools/bin"\nexport SUB=sub\nPATH_add "$TOOLS"\nPATH_add ${SUB}/bin')).toEqual([join(ws, "tools/bin"), join(ws, "sub/bin")]);
});

test("a mise config's _.path: a string, a list over lines, the inline table, {{config_root}}; not another template", () => {
  expect(misePathDirs("/w/mise.toml", '[env]\n_.path = "./bin"\n')).toEqual(["/w/bin"]);
  expect(misePathDirs("/w/.config/mise.toml", '[env]\n_.path = [\n  "{{config_root}}/tools",\n  \'node_modules/.bin\',\n  "{{env.HOME}}/x",\n]\n')).toEqual(["/w/tools", "/w/node_modules/.bin"]);
  expect(misePathDirs("/w/.mise/config.toml", '[env]\n_ = { path = ["b"] }\n')).toEqual(["/w/b"]);
  expect(misePathDirs("/w/.config/mise/conf.d/a.toml", '[env]\n_.path = "bin"\n')).toEqual(["/w/bin"]);
  expect(["/w/mise.toml", "/w/.mise.toml", "/w/mise.local.toml", "/w/.config/mise.toml", "/w/.config/mise/config.toml", "/w/.mise/config.toml", "/w/.config/mise/conf.d/a.toml", "/w/app/config.toml", "/w/mise.txt"].map(isMiseConfig)).toEqual([true, true, true, true, true, true, true, false, false]);
});

test("layout ruby puts .direnv/bin (BUNDLE_BIN) and .direnv/ruby/bin on PATH, before either is there (red team 11's F13)", () => {
  expect(envrcPathDirs("/nowhere/w/.envrc", "layout ruby\n")).toEqual(["/nowhere/w/.direnv/bin", "/nowhere/w/.direnv/ruby/bin"]);
  expect(envrcPathDirs("/nowhere/w/.envrc", "layout go\nlayout_perl\n")).toEqual(["/nowhere/w/.direnv/go/bin", "/nowhere/w/.direnv/perl5/bin"]);
});
