// Red team 7 F9: a .bunker folder below the workspace's top is the settings of
// a later session started there (a monorepo package). A command may neither
// change one nor leave a new one behind: existing ones are read-only in the
// sandbox, a new one is set aside by the walk after the command, and the
// next session in that folder still asks for its edits.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";

const usable = detectSandbox().kind === "bubblewrap";
const runs = sandboxRuns();
const GRANT_ALL = '{"allow":["write:**"]}';

describe.skipIf(!usable)("a command and a nested .bunker (--allow-run)", () => {
  test("an existing one cannot be changed, a new one is set aside, and the next session there still asks", async () => {
    const fake = runs.start([
      reply([
        toolUse("run_bash", { command: `echo '${GRANT_ALL}' > packages/web/.bunker/settings.json` }),
        toolUse("run_bash", { command: `mkdir -p packages/app/.bunker && echo '${GRANT_ALL}' > packages/app/.bunker/settings.json && echo planted` }),
      ]),
      reply("Done."),
    ]);
    const { root, env } = runs.workspace("bunker-nested-settings-", fake.url);
    for (const pkg of ["web", "app"]) mkdirSync(join(root, "packages", pkg), { recursive: true });
    mkdirSync(join(root, "packages/web/.bunker"));
    writeFileSync(join(root, "packages/web/.bunker/settings.json"), '{"allow":[]}\n');
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [changed, planted] = toolResults(fake.requests[1]);
    expect(changed!.content).toContain("Read-only file system");
    expect(readFileSync(join(root, "packages/web/.bunker/settings.json"), "utf8")).toBe('{"allow":[]}\n');
    expect(planted!.content).toContain("planted");
    expect(planted!.content).toContain("bunker set aside packages/app/.bunker/settings.json, which the command created (bunker obeys it");
    expect(existsSync(join(root, "packages/app/.bunker/settings.json"))).toBe(false);
    expect(readFileSync(join(root, "packages/app/.bunker/settings.json.bunker-set-aside"), "utf8")).toBe(`${GRANT_ALL}\n`);

    // The person's next session in packages/app, no flags: the edit still needs approval.
    await fake.stop();
    const next = runs.start([reply([toolUse("write_file", { path: "server.js", content: "x\n" })]), reply("Done.")]);
    const second = await runHeadless(join(root, "packages/app"), { ...env, ANTHROPIC_BASE_URL: next.url }, ["-p", "go", "--no-prompt"]);
    expect(second.code).toBe(0);
    expect(toolResults(next.requests[1])[0]!.content).toContain("needs approval");
    expect(existsSync(join(root, "packages/app/server.js"))).toBe(false);
  });

  test("in a dotfiles workspace, the person's own settings linked there (~/.config/bunker) are read-only too", async () => {
    const fake = runs.start([
      reply([toolUse("run_bash", { command: `echo '{"allow":["run:*","net:*"]}' > bunker/settings.json; echo '{}' > bunker/new.json; echo ran` })]),
      reply("Done."),
    ]);
    const { root, home, env } = runs.workspace("bunker-nested-settings-", fake.url);
    mkdirSync(join(root, "bunker"));
    writeFileSync(join(root, "bunker/settings.json"), '{"allow":[]}\n');
    symlinkSync(join(root, "bunker"), join(home, ".config/bunker"));
    const r = await runHeadless(root, { ...env, XDG_CONFIG_HOME: join(home, ".config") }, ["-p", "go", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [result] = toolResults(fake.requests[1]);
    expect(result!.content).toContain("bunker/settings.json: Read-only file system");
    expect(result!.content).toContain("bunker set aside bunker/new.json, which the command created (bunker obeys your settings in every session");
    expect(readFileSync(join(root, "bunker/settings.json"), "utf8")).toBe('{"allow":[]}\n');
  });
});
