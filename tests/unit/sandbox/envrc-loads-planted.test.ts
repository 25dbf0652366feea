// Red team 6's F10h: the person's allowed .envrc says `dotenv`, so direnv loads .env into their shell on every cd
// (and again when it changes, with no new `direnv allow`). A command writes git's own environment config there
// (GIT_CONFIG_COUNT/KEY/VALUE: core.fsmonitor), and the person's next git runs it. Each row runs unconfined first
// (the marker fires), then in the real sandbox (the judge allows everything), then the person's direnv and git.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { plantingBench } from "../../support/planting.ts";

const direnv = Bun.which("direnv");
const usable = detectSandbox().kind === "bubblewrap" && direnv !== null;
const { hostEnv, MARK, touch, workspace, sandboxed } = plantingBench("bunker-envrc-");

/** The person's shell entering the folder: direnv loads what the .envrc says, then git runs there. */
const personGit = (root: string) => Bun.spawnSync([direnv!, "exec", ".", "git", "status", "--short"], { cwd: root, env: hostEnv, stdout: "pipe", stderr: "pipe", timeout: 10_000 });
const withEnvrc = (dotenv: string, existing?: string) => (root: string) => {
  writeFileSync(join(root, ".envrc"), `${dotenv}\n`);
  if (existing !== undefined) writeFileSync(join(root, existing), "FOO=1\n");
  expect(Bun.spawnSync([direnv!, "allow", "."], { cwd: root, env: hostEnv }).exitCode).toBe(0);
};
const gitConfigEnv = (file: string, append = false) => `printf 'GIT_CONFIG_COUNT=1\\nGIT_CONFIG_KEY_0=core.fsmonitor\\nGIT_CONFIG_VALUE_0="${touch}; false"\\n' ${append ? ">>" : ">"} ${file}`;

describe.skipIf(!usable)("what an allowed .envrc loads is guarded like the .envrc (real bubblewrap)", () => {
  test("red team 6, F10h: `dotenv` and a .env the command creates: set aside, and the person's git runs nothing", async () => {
    const setup = withEnvrc("dotenv");
    const control = workspace(setup);
    expect(Bun.spawnSync(["bash", "-c", gitConfigEnv(".env")], { cwd: control, env: hostEnv }).exitCode).toBe(0);
    personGit(control);
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace(setup);
    const out = await sandboxed(root, gitConfigEnv(".env"));
    expect(out.split("\n")[0]).toBe("exit code 0");
    expect(out).toContain("bunker set aside .env, which the command created (.envrc has direnv load it into your shell on every cd, with no new direnv allow): it is now .env.bunker-set-aside; to restore it after checking it: mv .env.bunker-set-aside .env");
    personGit(root);
    expect(existsSync(MARK)).toBe(false);
  });

  test("`dotenv_if_exists config/app.env` that is there already: read-only to commands (the append fails)", async () => {
    const setup = (root: string) => {
      Bun.spawnSync(["mkdir", "config"], { cwd: root });
      withEnvrc("dotenv_if_exists config/app.env", "config/app.env")(root);
    };
    const control = workspace(setup);
    expect(Bun.spawnSync(["bash", "-c", gitConfigEnv("config/app.env", true)], { cwd: control, env: hostEnv }).exitCode).toBe(0);
    personGit(control);
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace(setup);
    const out = await sandboxed(root, gitConfigEnv("config/app.env", true));
    expect(out.split("\n")[0]).not.toBe("exit code 0");
    expect(out).toContain("Read-only file system");
    expect(readFileSync(join(root, "config/app.env"), "utf8")).toBe("FOO=1\n");
    personGit(root);
    expect(existsSync(MARK)).toBe(false);
  });
});
