// Red team 13's F10: a hook that runs a package.json script (`npm test`, what `husky init` writes into
// .husky/pre-commit) runs that script's text at the person's next commit, as a "lint-staged" key is run. A command's
// change to it is undone after the command (the rest of its edit to package.json kept), and said; the commit runs the
// person's script.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { ALL_SCRIPTS, scriptsRunBy } from "../../src/sandbox/package-hooks.ts";
import { runBunker, toolResults } from "../support/cli.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { committedRepo, hostGit } from "../support/hook-repo.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";

const usable = detectSandbox().kind === "bubblewrap" && Bun.which("npm") !== null;
const runs = sandboxRuns();

test("the scripts a hook's words run: npm test and npm run, pnpm's, yarn's and bun run's, with npm's pre- and post- scripts; not npx, not install", () => {
  expect(scriptsRunBy("npm test --silent")).toEqual(["test", "pretest", "posttest"]);
  expect(scriptsRunBy("pnpm lint && yarn run build:css")).toEqual(["lint", "prelint", "postlint", "build:css", "prebuild:css", "postbuild:css"]);
  expect(scriptsRunBy("bun run check; npm run --silent fmt")).toEqual(["check", "precheck", "postcheck", "fmt", "prefmt", "postfmt"]);
  expect(scriptsRunBy("npx --no-install lint-staged\npnpm exec eslint .\n# npm test")).toEqual([]);
});

test("the reviewer's R13-01 forms: bun NAME, options that take a value, yarn workspace, installs' lifecycle scripts, and a name bunker cannot read (the whole table)", () => {
  for (const line of ["bun lint", "pnpm -C web lint", "pnpm --filter web lint", "yarn workspace web lint"]) expect({ line, s: scriptsRunBy(line) }).toEqual({ line, s: ["lint", "prelint", "postlint"] });
  expect(scriptsRunBy("npm --prefix web test")).toEqual(["test", "pretest", "posttest"]);
  const install = ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"];
  for (const line of ["npm install", "npm ci", "pnpm install", "yarn", "bun install"]) expect({ line, s: scriptsRunBy(line) }).toEqual({ line, s: install });
  expect(scriptsRunBy("npm it")).toEqual([...install, "test", "pretest", "posttest"]);
  expect(scriptsRunBy('npm run "$TASK"')).toEqual([ALL_SCRIPTS]);
});

test("the monorepo task runners a hook calls run the packages' scripts by name (reviewer's R13-13)", () => {
  const lint = ["lint", "prelint", "postlint"];
  for (const line of ["nx run-many -t lint", "nx affected --target=lint", "nx run web:lint", "turbo run lint", "turbo lint", "lerna run lint", "run-s lint", "npm-run-all lint", 'concurrently "npm:lint"']) {
    expect({ line, s: scriptsRunBy(line) }).toEqual({ line, s: lint });
  }
  expect(scriptsRunBy("run-p 'lint:*'")).toEqual([ALL_SCRIPTS]);
});

describe.skipIf(!usable)("red team 13's F10: the package.json script a hook runs (real bubblewrap)", () => {
  test("`npm test` in .husky/pre-commit: a command's change to scripts.test (and a new pretest) is undone, its dependency bump kept; the next commit runs the person's test", async () => {
    const { base, root, home, env } = runs.workspace("bunker-hook-scripts-", "");
    const MARK = join(base, "PWNED");
    const edit = `node -e 'const fs=require("fs"),p=JSON.parse(fs.readFileSync("package.json"));p.version="1.0.1";p.scripts.test="echo pwned > ${MARK}";p.scripts.pretest="echo pwned > ${MARK}";fs.writeFileSync("package.json",JSON.stringify(p,null,2)+"\\n")' && echo edited`;
    const fake = runs.start([reply([toolUse("run_bash", { command: edit })]), reply("Done.")]);
    mkdirSync(join(root, ".husky"));
    writeFileSync(join(root, ".husky/pre-commit"), "npm test --silent\n");
    chmodSync(join(root, ".husky/pre-commit"), 0o755);
    writeFileSync(join(root, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", scripts: { test: "echo tests ok", build: "echo build" } }, null, 2) + "\n");
    committedRepo(root, home, ".husky");

    const r = await runBunker(["-p", "go", "--allow-write", "--allow-run", "--no-prompt"], { cwd: root, env: { ...env, ANTHROPIC_BASE_URL: fake.url } });
    expect(r.code).toBe(0);
    const [edited] = toolResults(fake.requests[1]);
    expect(edited!.content).toContain("edited");
    expect(edited!.content).toContain('bunker undid the command\'s change to "scripts.test", "scripts.pretest" in package.json (run on your next git commit by your git hooks)');
    const now = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(now.version).toBe("1.0.1");
    expect(now.scripts).toEqual({ test: "echo tests ok", build: "echo build" });
    expect(hostGit(root, home, ["commit", "-q", "--allow-empty", "-m", "next"])).toBe(0);
    expect(existsSync(MARK)).toBe(false);
  });

  test("edit_file's change to scripts.test, which the hook's npm test runs, asks even under --allow-write (reviewer's R13-14)", async () => {
    const { root, home, env } = runs.workspace("bunker-hook-scripts-edit-", "");
    const fake = runs.start([reply([toolUse("read_file", { path: "package.json" })]), reply([toolUse("edit_file", { path: "package.json", old_string: '"test": "echo tests ok"', new_string: '"test": "echo pwned"' })]), reply("Done.")]);
    mkdirSync(join(root, ".husky"));
    writeFileSync(join(root, ".husky/pre-commit"), "npm test\n");
    writeFileSync(join(root, "package.json"), JSON.stringify({ name: "app", scripts: { test: "echo tests ok" } }, null, 2) + "\n");
    committedRepo(root, home, ".husky");
    const r = await runBunker(["-p", "go", "--allow-write", "--no-prompt"], { cwd: root, env: { ...env, ANTHROPIC_BASE_URL: fake.url } });
    expect(r.code).toBe(0);
    const [edit] = toolResults(fake.requests[2]);
    expect(edit!.is_error).toBe(true);
    expect(edit!.content).toContain('"scripts.test" runs on your next git commit (your git hooks run it)');
    expect(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.test).toBe("echo tests ok");
  });
});
