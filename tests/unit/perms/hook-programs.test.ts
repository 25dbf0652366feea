// Red team 13's F09/F05: the programs a hook's text runs by name, read without running anything.
import { expect, test } from "bun:test";
import { hookKeyCommands, packageFolderOf, programConfigs, programsNamed } from "../../../src/perms/hook-programs.ts";

test("the word a package runner runs, and each command's first word", () => {
  expect(programsNamed("#!/bin/sh\nnpx --no-install lint-staged\n")).toContain("lint-staged");
  expect(programsNamed("pnpm exec eslint --fix .")).toContain("eslint");
  expect(programsNamed("yarn prettier --check .")).toContain("prettier");
  expect(programsNamed("bunx stylelint x.css && npm exec -- commitlint --edit $1")).toEqual(expect.arrayContaining(["stylelint", "commitlint"]));
  expect(programsNamed("npx lint-staged@15")).toContain("lint-staged");
  expect(programsNamed('{ "*.py": "pylint", "*.js": ["eslint --fix", "prettier -w"] }')).toEqual(expect.arrayContaining(["pylint", "eslint", "prettier"]));
  expect(programsNamed("FORCE_COLOR=1 env eslint .")).toContain("eslint");
  // A package manager's own commands and a comment are no bin it runs.
  expect(programsNamed("yarn install\n# npx evil\npnpm test")).not.toEqual(expect.arrayContaining(["install", "evil", "test"]));
  expect(programsNamed("npx -c 'eslint .'")).toContain("eslint");
});

test("the table of configs loaded as code, and a bin file's package folder", () => {
  expect(programConfigs("eslint")).toContain("eslint.config.js");
  expect(programConfigs("pylint")).toContain(".pylintrc");
  expect(programConfigs("black")).toEqual([]);
  expect(programConfigs("constructor")).toEqual([]);
  expect(packageFolderOf("/w/node_modules/lint-staged/bin/lint-staged.js")).toBe("/w/node_modules/lint-staged");
  expect(packageFolderOf("/w/node_modules/@commitlint/cli/cli.js")).toBe("/w/node_modules/@commitlint/cli");
  expect(packageFolderOf("/w/node_modules/.pnpm/eslint@9/node_modules/eslint/bin/eslint.js")).toBe("/w/node_modules/.pnpm/eslint@9/node_modules/eslint");
  expect(packageFolderOf("/w/tools/x.js")).toBeNull();
});

test("a package.json's hook keys' commands, one a line", () => {
  const pkg = JSON.stringify({ name: "app", scripts: { build: "tsc" }, "lint-staged": { "*.js": ["eslint --fix", "prettier -w"] } });
  expect(hookKeyCommands(pkg, ["lint-staged", "husky"])).toBe("eslint --fix\nprettier -w");
  expect(programsNamed(hookKeyCommands(pkg, ["lint-staged"])!)).toEqual(["eslint", "prettier"]);
  expect(hookKeyCommands(JSON.stringify({ scripts: { lint: "eslint ." } }), ["lint-staged"])).toBeNull();
  expect(hookKeyCommands("{ not json", ["lint-staged"])).toBeNull();
});
