// The system prompt as the API receives it (bunker run headless against the
// scripted server): the workspace facts, the project's AGENTS.md or CLAUDE.md,
// and never a notes file that leads outside the workspace.
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, runHeadless } from "../support/cli.ts";
import { tmuxAvailable } from "../support/tmux.ts";

const e2e = endToEnd("bunker-system-");

/** Runs one headless turn in a fresh workspace; returns the system prompt sent and stderr. */
async function systemFor(files: Record<string, string>, setup: (root: string) => void = () => {}, flags: string[] = []): Promise<{ system: string; stderr: string; root: string }> {
  const fake = e2e.serve([reply("ok")]);
  const { root, env } = e2e.workspace(files);
  setup(root);
  const r = await runHeadless(root, env, [...flags, "-p", "hi"]);
  expect(r.code).toBe(0);
  const system = fake.requests[0]!.body.system;
  const text = typeof system === "string" ? system : (system ?? []).map((b) => b.text).join("");
  return { system: text, stderr: r.stderr, root };
}

describe("the system prompt", () => {
  test("names the workspace, platform, date and whether it is a git repository; carries AGENTS.md", async () => {
    const { system, root } = await systemFor({ "AGENTS.md": "Run tests with `make check`.\n", "CLAUDE.md": "not this one" });
    expect(system).toContain(`Workspace root: ${root}`);
    expect(system).toContain(`Platform: ${process.platform} (${process.arch})`);
    expect(system).toContain(`Date: ${new Date().toISOString().slice(0, 10)}`);
    expect(system).toContain("Git repository: no");
    expect(system).toContain("Project instructions from AGENTS.md:\nRun tests with `make check`.");
    expect(system).not.toContain("not this one");
  });

  test("CLAUDE.md when there is no AGENTS.md; a git repository, also when the workspace is a folder of one", async () => {
    let { system } = await systemFor({ "CLAUDE.md": "Prefer tabs." }, (root) => mkdirSync(join(root, ".git")));
    expect(system).toContain("Project instructions from CLAUDE.md:\nPrefer tabs.");
    expect(system).toContain("Git repository: yes\n");
    await e2e.fake.stop();

    const fake = e2e.serve([reply("ok")]);
    const { root, env } = e2e.workspace({ "pkg/index.ts": "" });
    mkdirSync(join(root, ".git"));
    await runHeadless(join(root, "pkg"), env, ["-p", "hi"]);
    system = JSON.stringify(fake.requests[0]!.body.system);
    expect(system).toContain(`Git repository: yes (the workspace is a folder of the repository at ${root})`);
  });

  test("an AGENTS.md that links outside the workspace is not sent; bunker says so; --allow-read grants it", async () => {
    let outsideFile = "";
    const plant = (root: string) => {
      outsideFile = join(root, "..", "secret-notes.md");
      writeFileSync(outsideFile, "OUTSIDE-SECRET\n");
      symlinkSync(outsideFile, join(root, "AGENTS.md"));
    };
    let { system, stderr } = await systemFor({ "CLAUDE.md": "inside notes" }, plant);
    expect(system).not.toContain("OUTSIDE-SECRET");
    expect(system).toContain("Project instructions from CLAUDE.md:\ninside notes");
    expect(stderr).toContain(`AGENTS.md was not read: it leads to ${outsideFile}, and it is outside the workspace; --allow-read=${outsideFile} would grant it.`);
    await e2e.fake.stop();

    const fake = e2e.serve([reply("ok")]);
    const { root, env } = e2e.workspace();
    plant(root);
    await runHeadless(root, env, [`--allow-read=${outsideFile}`, "-p", "hi"]);
    expect(JSON.stringify(fake.requests[0]!.body.system)).toContain("OUTSIDE-SECRET");
  });

  test("a denied AGENTS.md is not sent", async () => {
    const { system, stderr } = await systemFor({ "AGENTS.md": "PRIVATE NOTES" }, () => {}, ["--deny-read=AGENTS.md"]);
    expect(system).not.toContain("PRIVATE NOTES");
    expect(stderr).toContain("AGENTS.md was not read");
  });

  test("started in a folder of a repository: the instructions from the repository's root down and the person's own, listed with --verbose; a denied one is left out", async () => {
    // A new user's F17: run in a subfolder, the repository's AGENTS.md was not read.
    const fake = e2e.serve([reply("ok"), reply("ok")]);
    const { root, env } = e2e.workspace({ "AGENTS.md": "Root rules.", "pkg/CLAUDE.md": "Package rules.", "pkg/app/index.ts": "" });
    mkdirSync(join(root, ".git"));
    mkdirSync(join(env.XDG_CONFIG_HOME!, "bunker"), { recursive: true });
    writeFileSync(join(env.XDG_CONFIG_HOME!, "bunker", "AGENTS.md"), "My own rules.");
    // Above the repository: not read.
    writeFileSync(join(root, "..", "AGENTS.md"), "NOT MINE");
    const workspace = join(root, "pkg", "app");
    writeFileSync(join(workspace, "AGENTS.md"), "App \x1b[31mrules.");
    let r = await runHeadless(workspace, env, ["--verbose", "-p", "hi"]);
    expect(r.code).toBe(0);
    const system = fake.requests[0]!.body.system;
    const text = typeof system === "string" ? system : (system ?? []).map((b) => b.text).join("");
    const own = join(env.XDG_CONFIG_HOME!, "bunker", "AGENTS.md");
    expect(text).toContain(`Project instructions from ${own}:\nMy own rules.\n\nProject instructions from ../../AGENTS.md:\nRoot rules.\n\nProject instructions from ../CLAUDE.md:\nPackage rules.\n\nProject instructions from AGENTS.md:\nApp \x1b[31mrules.`);
    expect(text).not.toContain("NOT MINE");
    expect(r.stderr).toContain(`instructions: ${own}, ../../AGENTS.md, ../CLAUDE.md, AGENTS.md\n`);
    // Without --verbose a headless run's stderr does not list them.
    expect((await runHeadless(workspace, env, ["-p", "hi"])).stderr).not.toContain("instructions:");

    await fake.stop();
    const again = e2e.serve([reply("ok")]);
    r = await runHeadless(workspace, { ...env, ANTHROPIC_BASE_URL: again.url }, [`--deny-read=${join(root, "AGENTS.md")}`, "-p", "hi"]);
    const second = JSON.stringify(again.requests[0]!.body.system);
    expect(second).not.toContain("Root rules.");
    expect(second).toContain("Package rules.");
    expect(r.stderr).toContain(`../../AGENTS.md was not read: it leads to ${join(root, "AGENTS.md")}, and a deny rule covers it.`);
  });

  test("the person's Claude Code instructions (~/.claude/CLAUDE.md) go in first, before bunker's own; listed as such; a deny rule keeps them out (N11-18)", async () => {
    const fake = e2e.serve([reply("ok"), reply("ok")]);
    const { root, env } = e2e.workspace({ "AGENTS.md": "Project rules." });
    mkdirSync(join(env.HOME!, ".claude"), { recursive: true });
    writeFileSync(join(env.HOME!, ".claude", "CLAUDE.md"), "Always use pnpm.");
    mkdirSync(join(env.XDG_CONFIG_HOME!, "bunker"), { recursive: true });
    writeFileSync(join(env.XDG_CONFIG_HOME!, "bunker", "AGENTS.md"), "My bunker rules.");
    const own = join(env.XDG_CONFIG_HOME!, "bunker", "AGENTS.md");
    const plain = { ...env, CLAUDE_CONFIG_DIR: "" };
    let r = await runHeadless(root, plain, ["--verbose", "-p", "hi"]);
    expect(r.code).toBe(0);
    const system = JSON.stringify(fake.requests[0]!.body.system);
    expect(system).toContain(JSON.stringify(`Project instructions from ~/.claude/CLAUDE.md:\nAlways use pnpm.\n\nProject instructions from ${own}:\nMy bunker rules.\n\nProject instructions from AGENTS.md:\nProject rules.`).slice(1, -1));
    expect(r.stderr).toContain(`instructions: ~/.claude/CLAUDE.md, ${own}, AGENTS.md\n`);
    r = await runHeadless(root, plain, [`--deny-read=${join(env.HOME!, ".claude")}`, "-p", "hi"]);
    expect(JSON.stringify(fake.requests[1]!.body.system)).not.toContain("pnpm");
    expect(r.stderr).toContain("~/.claude/CLAUDE.md was not read: it leads to");
  });

  test("an AGENTS.md above the workspace that links out of the repository is not sent unless granted", async () => {
    const fake = e2e.serve([reply("ok")]);
    const { root, env } = e2e.workspace({ "pkg/index.ts": "" });
    mkdirSync(join(root, ".git"));
    const secret = join(root, "..", "id_rsa");
    writeFileSync(secret, "PRIVATE KEY");
    symlinkSync(secret, join(root, "AGENTS.md"));
    const r = await runHeadless(join(root, "pkg"), env, ["-p", "hi"]);
    expect(JSON.stringify(fake.requests[0]!.body.system)).not.toContain("PRIVATE KEY");
    expect(r.stderr).toContain(`../AGENTS.md was not read: it leads to ${secret}, and it is outside the workspace; --allow-read=${secret} would grant it.`);
  });

  test.skipIf(!tmuxAvailable)("at the prompt, the instruction files read are listed under the banner, escaped", async () => {
    e2e.serve([]);
    const { root, env } = e2e.workspace({ "AGENTS.md": "Root rules.", "pkg/AGENTS.md": "Package rules." });
    mkdirSync(join(root, ".git"));
    // The person's own file, in a config folder whose name holds an escape sequence.
    const config = join(root, "..", "conf\x1b[2Jig");
    mkdirSync(join(config, "bunker"), { recursive: true });
    writeFileSync(join(config, "bunker", "AGENTS.md"), "Mine.");
    const t = await e2e.terminal(BUNKER, { cwd: join(root, "pkg"), env: { ...env, XDG_CONFIG_HOME: config }, cols: 160, rows: 20 });
    await t.waitFor(/\n› *\n/);
    expect(t.screen()).toContain(`\ninstructions: ${join(root, "..", "conf\\x1b[2Jig")}/bunker/AGENTS.md, ../AGENTS.md, AGENTS.md\n`);
  });

  test("the first request (system prompt and every tool schema) stays under 8 KB", async () => {
    await systemFor({});
    const body = JSON.stringify(e2e.fake.requests[0]!.body);
    expect(body.length).toBeLessThan(8 * 1024);
  });
});
