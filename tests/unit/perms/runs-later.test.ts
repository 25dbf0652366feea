// Files other programs run later without asking: a write there asks even
// under -A, is never covered by "all edits for the session", and commands
// under a session prefix do not write them either.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants, Policy } from "../../../src/perms/policy.ts";
import { evaluateRun } from "../../../src/perms/run/evaluate.ts";
import { parseRulesFile } from "../../../src/perms/rules-file.ts";
import { laterMatch, runsLaterReason } from "../../../src/perms/runs-later.ts";
import { protectRule } from "../../../src/perms/rules-file.ts";
import { tempDir } from "../../support/context.ts";

const root = tempDir("bunker-runs-later-");
mkdirSync(join(root, ".git"));
writeFileSync(join(root, ".git", "config"), "[core]\n\tbare = false\n\thooksPath = tools/hooks\n");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** -A: every write inside the workspace granted. */
const allowAll = () => {
  const g = emptyGrants();
  g.allow.write.workspace = true;
  g.allow.run.all = true;
  return g;
};

describe("under -A, writing a file that runs code later asks, saying what runs it", () => {
  test.each([
    [".envrc", "direnv runs it when you enter the folder"],
    ["sub/.envrc", "direnv runs it when you enter the folder"],
    [".vscode/tasks.json", "runs when you open the folder (VS Code tasks)"],
    [".husky/pre-commit", "runs on git commit (husky hooks)"],
    ["lefthook.yml", "runs on git commit once lefthook is installed (lefthook hooks)"],
    ["lefthook.yaml", "runs on git commit once lefthook is installed (lefthook hooks)"],
    [".lefthook.yml", "runs on git commit once lefthook is installed (lefthook hooks)"],
    ["sub/lefthook-local.yml", "runs on git commit once lefthook is installed (lefthook hooks)"],
    [".config/lefthook.yml", "runs on git commit once lefthook is installed (lefthook hooks)"],
    [".pre-commit-config.yaml", "runs on git commit once pre-commit is installed (pre-commit hooks)"],
    [".npmrc", "npm obeys it on every npm run (node-options can preload code, script-shell picks the shell)"],
    ["packages/a/.npmrc", "npm obeys it on every npm run (node-options can preload code, script-shell picks the shell)"],
    ["bunfig.toml", "bun obeys it on every bun run and bun test (preload runs code first)"],
    [".yarnrc.yml", "yarn obeys it on every yarn command (yarnPath runs that file as yarn)"],
    [".github/workflows/ci.yml", "runs in CI when pushed (GitHub Actions)"],
    [".GitHub/Workflows/ci.yml", "runs in CI when pushed (GitHub Actions)"],
    [".gitlab-ci.yml", "runs in CI when pushed (GitLab CI)"],
    [".forgejo/workflows/ci.yml", "runs in CI when pushed (Forgejo/Gitea Actions)"],
    [".gitea/workflows/ci.yaml", "runs in CI when pushed (Forgejo/Gitea Actions)"],
    [".circleci/config.yml", "runs in CI when pushed (CircleCI)"],
    ["azure-pipelines.yml", "runs in CI when pushed (Azure Pipelines)"],
    ["bitbucket-pipelines.yml", "runs in CI when pushed (Bitbucket Pipelines)"],
    [".buildkite/pipeline.yml", "runs in CI when pushed (Buildkite)"],
    [".drone.yml", "runs in CI when pushed (Drone/Woodpecker)"],
    [".woodpecker/build.yaml", "runs in CI when pushed (Woodpecker)"],
    [".travis.yml", "runs in CI when pushed (Travis CI)"],
    ["Jenkinsfile", "runs in CI when pushed (Jenkins)"],
    [".vscode/settings.json", "VS Code obeys it when you open the folder (it can name programs VS Code runs)"],
    ["proj.code-workspace", "runs when you open it in VS Code (its tasks and settings)"],
    [".lintstagedrc.json", "runs on git commit through the commit hook (lint-staged)"],
    ["lint-staged.config.mjs", "runs on git commit through the commit hook (lint-staged)"],
    ["src/package.yml", "runs on git commit through the commit hook (lint-staged)"],
    ["package.yaml", "runs on git commit through the commit hook (lint-staged)"],
    [".huskyrc.json", "runs on git commit (husky v4's hooks)"],
    ["husky.config.js", "runs on git commit (husky v4's hooks)"],
    ["commitlint.config.js", "runs on git commit through the commit-msg hook (commitlint loads it)"],
    ["uv.toml", "uv, pdm or poetry obeys it at every install here: it can point the install at another index or a folder of the model's packages"],
    ["api/poetry.toml", "uv, pdm or poetry obeys it at every install here: it can point the install at another index or a folder of the model's packages"],
    [".commitlintrc.yml", "runs on git commit through the commit-msg hook (commitlint loads it)"],
    ["tools/hooks/pre-push", "runs as a git hook (core.hooksPath is tools/hooks)"],
  ])("%s", (path, why) => {
    const policy = new Policy(root, allowAll());
    const d = policy.decide("write", join(root, path));
    expect(d).toMatchObject({ verdict: "ask", reason: `${path} ${why}: writing it always asks` });
    // "Yes, and all edits for the session" does not reach it; "this file for the session" does.
    policy.grantKindForSession("write");
    expect(policy.decide("write", join(root, path)).verdict).toBe("ask");
    policy.grantSession("write", join(root, path));
    expect(policy.decide("write", join(root, path))).toEqual({ verdict: "allow", grantedBy: "session" });
  });

  test("ordinary files stay granted; look-alikes are not on the list", () => {
    const policy = new Policy(root, allowAll());
    for (const path of ["src/a.ts", "envrc", ".envrc.example/x", ".vscode/extensions.json", "docs/.github/workflows/x", "tools/hooksx/y", "docs/.gitlab-ci.yml", "lefthook.yml.orig", ".circleci.md"]) {
      expect({ path, d: policy.decide("write", join(root, path)) }).toEqual({ path, d: { verdict: "allow", grantedBy: "flag" } });
    }
  });

  test("red team 6, F12i/F10f: what a hook or runs-later link leads to (a chain, inside the workspace) asks; a target outside needs nothing", () => {
    const ws = tempDir("bunker-runs-later-links-");
    const outside = tempDir("bunker-runs-later-outside-");
    mkdirSync(join(ws, ".git/hooks"), { recursive: true });
    writeFileSync(join(ws, ".git/config"), "[core]\n\tbare = false\n");
    mkdirSync(join(ws, "scripts"));
    for (const f of ["pre-commit", "env.sh"]) writeFileSync(join(ws, "scripts", f), "echo theirs\n");
    symlinkSync("pre-commit", join(ws, "scripts/hook"));
    symlinkSync("../../scripts/hook", join(ws, ".git/hooks/pre-commit"));
    symlinkSync("scripts/env.sh", join(ws, ".envrc"));
    writeFileSync(join(outside, "post"), "echo x\n");
    symlinkSync(join(outside, "post"), join(ws, ".git/hooks/post-commit"));
    const policy = new Policy(ws, allowAll());
    expect(policy.decide("write", join(ws, "scripts/pre-commit"))).toMatchObject({ verdict: "ask", reason: "scripts/pre-commit runs later through the link .git/hooks/pre-commit: writing it always asks" });
    expect(policy.decide("write", join(ws, "scripts/env.sh"))).toMatchObject({ verdict: "ask", reason: "scripts/env.sh runs later through the link .envrc: writing it always asks" });
    expect(policy.decide("write", join(ws, "scripts/other.sh")).verdict).toBe("allow");
    rmSync(ws, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  test("settings' \"protect\" entries extend the list, naming the settings file", () => {
    const g = allowAll();
    parseRulesFile("/home/me/.config/bunker/settings.json", '{"protect": ["scripts/deploy.sh", "Makefile", "ops/**/*.sh"]}', root, g, "user", {});
    const policy = new Policy(root, g);
    for (const path of ["scripts/deploy.sh", "Makefile", "ops/a/b.sh"]) {
      expect(policy.decide("write", join(root, path))).toMatchObject({ verdict: "ask", reason: `${path} listed under "protect" in /home/me/.config/bunker/settings.json: writing it always asks` });
    }
    expect(policy.decide("write", join(root, "scripts/other.sh")).verdict).toBe("allow");
    expect(() => parseRulesFile("/x/settings.json", '{"protect": "Makefile"}', root, emptyGrants(), "user", {})).toThrow(/"protect" must be a list/);
  });

  test("a directory entry covers what is below it", () => {
    expect(runsLaterReason(root, join(root, "deploy/x/y"), [protectRule("deploy/", "s.json")])).toBe('listed under "protect" in s.json');
    expect(runsLaterReason(root, join(root, "deployx"), [protectRule("deploy", "s.json")])).toBeNull();
  });

  test("a command under a session prefix does not write them either", () => {
    const g = emptyGrants();
    for (const line of ["touch .envrc", "cp a.txt .husky/pre-commit", "echo x > .vscode/tasks.json"]) {
      expect({ line, v: evaluateRun(line, { root, grants: g, sessionPrefixes: ["touch", "cp", "echo"] }).verdict }).toEqual({ line, v: "ask" });
    }
    expect(evaluateRun("touch notes.txt", { root, grants: g, sessionPrefixes: ["touch"] }).verdict).toBe("allow");
  });
});

describe("a folder granted outside the workspace (--allow-write=../shared) has the same protections", () => {
  const shared = tempDir("bunker-runs-later-shared-");
  mkdirSync(join(shared, ".git/hooks"), { recursive: true });
  // A linked worktree of it whose git directory sits beside it (`gitdir: ./.bare`), granted too.
  const wt = tempDir("bunker-runs-later-wt-");
  mkdirSync(join(wt, ".bare/hooks"), { recursive: true });
  writeFileSync(join(wt, ".git"), "gitdir: ./.bare\n");
  afterAll(() => rmSync(wt, { recursive: true, force: true }));
  const elsewhere = tempDir("bunker-runs-later-elsewhere-");
  afterAll(() => rmSync(shared, { recursive: true, force: true }));
  afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));
  const grants = () => {
    const g = allowAll();
    g.allow.write.paths = [shared, wt];
    return g;
  };

  test.each([
    [".git/hooks/pre-commit", "is protected: writes there always ask"],
    ["new/.git/config", "is protected: writes there always ask"],
    [".envrc", "direnv runs it when you enter the folder: writing it always asks"],
    [".vscode/tasks.json", "runs when you open the folder (VS Code tasks): writing it always asks"],
    [".github/workflows/ci.yml", "runs in CI when pushed (GitHub Actions): writing it always asks"],
    ["lefthook.yml", "runs on git commit once lefthook is installed (lefthook hooks): writing it always asks"],
  ])("%s asks, and all edits for the session do not cover it", (path, why) => {
    const policy = new Policy(root, grants());
    const target = join(shared, path);
    expect(policy.decide("write", target)).toMatchObject({ verdict: "ask", reason: `${target} ${why}` });
    policy.grantKindForSession("write");
    expect(policy.decide("write", target).verdict).toBe("ask");
  });

  test("the git directory a granted folder's .git file names beside it is protected too", () => {
    const policy = new Policy(root, grants());
    expect(policy.decide("write", join(wt, ".bare/hooks/pre-commit"))).toMatchObject({ verdict: "ask", reason: `${join(wt, ".bare/hooks/pre-commit")} is protected: writes there always ask` });
    expect(policy.decide("write", join(wt, "notes.txt"))).toEqual({ verdict: "allow", grantedBy: "flag" });
  });

  test("an ordinary file there is granted; the same names in a folder not granted are denied, not asked", () => {
    const policy = new Policy(root, grants());
    expect(policy.decide("write", join(shared, "notes.txt"))).toEqual({ verdict: "allow", grantedBy: "flag" });
    for (const path of [".envrc", ".git/hooks/pre-commit", "x.txt"]) expect(policy.decide("write", join(elsewhere, path)).verdict).toBe("deny");
  });
});

describe("what a command is asked about names the real cause", () => {
  const ws = tempDir("bunker-runs-later-why-");
  mkdirSync(join(ws, ".git"));
  const out = tempDir("bunker-runs-later-out-");
  symlinkSync(out, join(ws, "out"));
  afterAll(() => rmSync(ws, { recursive: true, force: true }));
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  const reason = (line: string, prefix: string) => evaluateRun(line, { root: ws, grants: emptyGrants(), sessionPrefixes: [prefix] }).reason;

  test.each([
    ["ln -sf .envrc x", "ln", "`ln` names .envrc, a file other programs run later (direnv runs it when you enter the folder; writing it always asks)"],
    ["touch lefthook.yml", "touch", "`touch` names lefthook.yml, a file other programs run later (runs on git commit once lefthook is installed (lefthook hooks); writing it always asks)"],
    ["touch .git/x", "touch", "`touch` names .git/x, in .git or .bunker (changes there always ask)"],
    ["touch o*/x", "touch", "`touch` names o*/x, outside the workspace"],
    ["echo x > .envrc", "echo", "the redirection to .envrc writes a file other programs run later (direnv runs it when you enter the folder; writing it always asks)"],
  ])("%s", (line, prefix, why) => {
    expect(reason(line, prefix)).toContain(why);
  });
});

describe("red team 3, F6: a file reached through a link to a folder is protected by the name the link gives it", () => {
  const ws = tempDir("bunker-runs-later-links-");
  afterAll(() => rmSync(ws, { recursive: true, force: true }));
  mkdirSync(join(ws, "vsc"));
  symlinkSync("vsc", join(ws, ".vscode"));
  mkdirSync(join(ws, "ops"));
  symlinkSync("ops", join(ws, ".ops"));

  test("vsc/tasks.json (opened as .vscode/tasks.json) asks, by either name, saying which", () => {
    const policy = new Policy(ws, allowAll());
    const reason = "runs when you open the folder (VS Code tasks) (as .vscode/tasks.json, through a link)";
    // write_file .vscode/tasks.json resolves to vsc/tasks.json before the policy sees it.
    expect(policy.decide("write", join(ws, "vsc/tasks.json"))).toMatchObject({ verdict: "ask", reason: `vsc/tasks.json ${reason}: writing it always asks` });
    expect(policy.decide("write", join(ws, "vsc/extensions.json"))).toEqual({ verdict: "allow", grantedBy: "flag" });
  });

  test("a settings \"protect\" entry holds through a link too", () => {
    const g = allowAll();
    parseRulesFile("/s.json", '{"protect": [".ops/deploy.sh"]}', ws, g, "user", {});
    expect(new Policy(ws, g).decide("write", join(ws, "ops/deploy.sh")).verdict).toBe("ask");
  });
});

test("a relative core.hooksPath in the person's global git config: writing that folder in a repository asks", () => {
  const ws = tempDir("bunker-runs-later-global-");
  mkdirSync(join(ws, ".git"));
  const home = tempDir("bunker-runs-later-home-");
  writeFileSync(join(home, ".gitconfig"), "[core]\n\thooksPath = .githooks\n");
  const saved = process.env.HOME;
  process.env.HOME = home;
  try {
    expect(new Policy(ws, allowAll()).decide("write", join(ws, ".githooks/pre-commit"))).toMatchObject({ verdict: "ask", reason: ".githooks/pre-commit runs as a git hook (core.hooksPath is .githooks): writing it always asks" });
  } finally {
    process.env.HOME = saved;
  }
});

test("a relative PATH entry outside the workspace (../tools) is watched where the shell and path-shadow.ts read it, from the workspace, not from bunker's own folder", () => {
  const ws = join(root, "later-ws");
  const tools = join(root, "tools");
  mkdirSync(join(ws, "bin"), { recursive: true });
  mkdirSync(tools, { recursive: true });
  const path = "bin:../tools:/usr/bin";
  const before = laterMatch([ws], [], path);
  expect(before.match(join(ws, "bin/bunker-fmt-tool"))).toBeNull();
  Bun.sleepSync(20);
  writeFileSync(join(tools, "bunker-fmt-tool"), "#!/bin/sh\n");
  chmodSync(join(tools, "bunker-fmt-tool"), 0o755);
  // Installing bunker-fmt-tool in ../tools changes the answer for bin/bunker-fmt-tool, so the key changes with it.
  const after = laterMatch([ws], [], path);
  expect(after.key).not.toBe(before.key);
  expect(after.match(join(ws, "bin/bunker-fmt-tool"))).toContain(`instead of ${join(tools, "bunker-fmt-tool")}`);
});

describe("red team 8: toolchain pins, launcher settings, other agents' and editors' configs ask (F9, F19, F6, F15)", () => {
  test.each([
    ["rust-toolchain.toml", "rustup obeys it"],
    ["crates/a/rust-toolchain", "rustup obeys it"],
    [".mvn/jvm.config", "Maven obeys it"],
    [".mvn/maven.config", "Maven obeys it"],
    [".mvn/wrapper/maven-wrapper.properties", "Maven obeys it"],
    [".tool-versions", "asdf and mise obey it"],
    ["global.json", "dotnet obeys it"],
    [".bazeliskrc", "bazelisk obeys it"],
    [".pnpmfile.cjs", "pnpm runs or obeys it"],
    ["pnpm-workspace.yaml", "pnpm runs or obeys it"],
    ["mise.toml", "mise obeys it"],
    [".mise.toml", "mise obeys it"],
    ["mise.local.toml", "mise obeys it"],
    [".mise.dev.toml", "mise obeys it"],
    [".mise/config.toml", "mise obeys it"],
    [".config/mise/config.toml", "mise obeys it"],
    [".config/mise.toml", "mise obeys it"],
    [".devcontainer.json", "initializeCommand"],
    [".devcontainer/devcontainer.json", "initializeCommand"],
    [".devcontainer/init.sh", "initializeCommand"],
    [".Rprofile", "R, irb, pry or Octave"],
    [".irbrc", "R, irb, pry or Octave"],
    [".pryrc", "R, irb, pry or Octave"],
    [".octaverc", "R, irb, pry or Octave"],
    [".pdbrc", "pdb at every breakpoint"],
    ["app/.ghci", "GHCi"],
    [".ocamlinit", "OCaml"],
    [".iex.exs", "IEx"],
    [".perldb", "perl -d"],
    [".idea/watcherTasks.xml", "file watchers"],
    [".cargo/config.toml", "rustc-wrapper"],
    ["crates/x/.cargo/config", "cargo obeys it"],
    [".zed/settings.json", "your editor obeys it"],
    [".claude/settings.json", "Claude Code runs its hooks"],
    ["sub/.claude/settings.local.json", "Claude Code runs its hooks"],
    [".mcp.json", "start the MCP servers it names"],
    [".vscode/mcp.json", "start the MCP servers it names"],
    [".cursor/mcp.json", "start the MCP servers it names"],
    [".gemini/settings.json", "a coding agent obeys it"],
    [".aider.conf.yml", "aider obeys it"],
    [".continue/config.yaml", "Continue obeys it"],
    [".github/actions/setup/action.yml", "a GitHub Actions workflow calls it"],
  ])("%s", (path, why) => {
    const d = new Policy(root, allowAll()).decide("write", join(root, path));
    expect(d.verdict).toBe("ask");
    expect((d as { reason: string }).reason).toContain(why);
  });

  test("look-alikes stay granted: the gradle wrapper (build.gradle runs at import anyway), a mise.toml.orig, a .claude command", () => {
    const policy = new Policy(root, allowAll());
    for (const path of ["gradle/wrapper/gradle-wrapper.properties", "mise.toml.orig", ".claude/commands/x.md", "docs/mcp.json", "rust-toolchain.md", ".idea/modules.xml", ".idea/workspace.xml", ".cargo/credentials.md"]) {
      expect({ path, d: policy.decide("write", join(root, path)).verdict }).toEqual({ path, d: "allow" });
    }
  });
});

test("red team 8 F13: CI files ask at the top of every repository inside the workspace, not in a plain folder", () => {
  const ws = tempDir("bunker-runs-later-nested-");
  mkdirSync(join(ws, ".git"));
  mkdirSync(join(ws, "libs/client/.git"), { recursive: true });
  mkdirSync(join(ws, "libs/server"), { recursive: true });
  writeFileSync(join(ws, "libs/server/.git"), "gitdir: ../../.git/modules/server\n");
  const policy = new Policy(ws, allowAll());
  for (const path of ["libs/client/.github/workflows/ci.yml", "libs/client/.gitlab-ci.yml", "libs/client/.circleci/config.yml", "libs/client/.forgejo/workflows/b.yml", "libs/server/.travis.yml", "libs/client/.github/actions/setup/action.yml"]) {
    expect({ path, v: policy.decide("write", join(ws, path)).verdict }).toEqual({ path, v: "ask" });
  }
  for (const path of ["docs/.gitlab-ci.yml", "libs/.github/workflows/x.yml", "libs/client/docs/.travis.yml"]) {
    expect({ path, v: policy.decide("write", join(ws, path)).verdict }).toEqual({ path, v: "allow" });
  }
  rmSync(ws, { recursive: true, force: true });
});
