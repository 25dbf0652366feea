// Red team 8's F9, F19, F6, F13, F15: files other programs read from the folder to pick what they run (a toolchain
// pin, Maven's JVM options, a devcontainer, mise, other coding agents' settings, CI in a repository inside the
// workspace). Each row runs a command in the real sandbox (the judge allows everything): what it creates is set
// aside after it, and one the person has is read-only. Maven's row runs the person's `mvn -v` on the host too.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { hostProgram } from "../../../src/sandbox/host-program.ts";
import { plantingBench } from "../../support/planting.ts";

const usable = detectSandbox().kind === "bubblewrap";
const mvn = hostProgram("mvn", process.env.PATH ?? "", []);
const { hostEnv, MARK, touch, hostGit, workspace, sandboxed } = plantingBench("bunker-later-planted-");

describe.skipIf(!usable)("what a command writes where a tool picks what it runs is set aside, or cannot be written (real bubblewrap)", () => {
  const made = [
    "rust-toolchain.toml",
    ".mvn/maven.config",
    ".tool-versions",
    "mise.toml",
    ".devcontainer/devcontainer.json",
    ".devcontainer.json",
    ".Rprofile",
    ".claude/settings.json",
    ".mcp.json",
    ".cursor/mcp.json",
    ".aider.conf.yml",
    ".github/actions/setup/action.yml",
    "libs/client/.github/workflows/ci.yml",
    "libs/client/.gitlab-ci.yml",
  ];
  test("each one a command creates is set aside, with the mv that restores it; a CI file in a plain folder stays", async () => {
    // libs/client is a repository of its own inside the workspace (a submodule, a vendored repo).
    const root = workspace();
    mkdirSync(join(root, "libs/client"), { recursive: true });
    hostGit(join(root, "libs/client"), "init", "-q", ".");
    const out = await sandboxed(root, [...made, "docs/.gitlab-ci.yml"].map((f) => `mkdir -p $(dirname ${f}) && echo '${touch}' > ${f}`).join(" && "));
    expect(out.split("\n")[0]).toBe("exit code 0");
    for (const f of made) {
      expect(out).toContain(`bunker set aside ${f}, which the command created (`);
      expect(existsSync(join(root, f))).toBe(false);
      expect(existsSync(join(root, `${f}.bunker-set-aside`))).toBe(true);
    }
    expect(out).not.toContain("docs/.gitlab-ci.yml");
  });

  test.skipIf(!mvn)("red team 8 F19: .mvn/jvm.config (mvn -v runs its -XX:OnOutOfMemoryError): the person's is read-only, a new one set aside", async () => {
    const plant = `mkdir -p .mvn && echo '-Xmx3m -XX:OnOutOfMemoryError=${touch.replace(/ /g, "${IFS}")}' > .mvn/jvm.config`;
    const mvnV = (cwd: string) => Bun.spawnSync([mvn!, "-v"], { cwd, env: hostEnv, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
    const control = workspace((r) => writeFileSync(join(r, "pom.xml"), "<project/>\n"));
    expect(Bun.spawnSync(["bash", "-c", plant], { cwd: control }).exitCode).toBe(0);
    mvnV(control);
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace((r) => writeFileSync(join(r, "pom.xml"), "<project/>\n"));
    const out = await sandboxed(root, plant);
    expect(out).toContain("bunker set aside .mvn/jvm.config, which the command created (Maven obeys it at every mvn");
    mvnV(root);
    expect(existsSync(MARK)).toBe(false);

    const theirs = workspace((r) => {
      mkdirSync(join(r, ".mvn"));
      writeFileSync(join(r, ".mvn/jvm.config"), "-Xmx1g\n");
    });
    expect((await sandboxed(theirs, `echo ' -XX:OnOutOfMemoryError=x' >> .mvn/jvm.config`)).split("\n")[0]).not.toBe("exit code 0");
    expect(readFileSync(join(theirs, ".mvn/jvm.config"), "utf8")).toBe("-Xmx1g\n");
  });
});
