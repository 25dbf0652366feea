// A link in the home's dot-folders that leads to the workspace makes the workspace the program's folder (nvim reads
// ~/.config/nvim/lua/*.lua): commands see the workspace read-only then. A link an earlier command of the same session
// made there counts from the next command on (red team 11's F08: the look was made once, and missed it).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
import type { FakeAnthropic } from "../support/fake-anthropic.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";

const usable = detectSandbox().kind === "bubblewrap";
const runs = sandboxRuns();
let fake: FakeAnthropic | undefined;
const run = (command: string) => toolUse("run_bash", { command });

describe.skipIf(!usable)("a dot-folder link to the workspace made by an earlier command", () => {
  test("the next command sees the workspace read-only, and is told why", async () => {
    fake = runs.start([]);
    const { root, home, env } = runs.workspace("bunker-dot-link-", fake.url);
    mkdirSync(join(home, ".config/nvim"), { recursive: true });
    // Made deep in a dot-folder the person granted: ~/.config's own entries do not change.
    fake.push(
      reply([run(`ln -s ${root} ~/.config/nvim/lua && echo linked`)]),
      reply([run("echo 'os.execute(\"touch /srv/pwned\")' > init.lua && echo wrote")]),
      reply("Done."),
    );
    const r = await runHeadless(root, env, ["-p", "go", "-A", "--allow-run", "--no-prompt", "--allow-write=~/.config/nvim"]);
    expect(r.code).toBe(0);
    expect(toolResults(fake.requests[1])[0]!.content).toContain("linked");
    const second = toolResults(fake.requests[2])[0]!.content;
    expect(second).toContain("Read-only file system");
    // (The link itself was set aside after the first command, as a new link there is: the set-aside name leads there too.)
    expect(second).toMatch(/The workspace is read-only to commands: ~\/\.config\/nvim\/lua\S* in the person's home leads to it/);
    expect(existsSync(join(root, "init.lua"))).toBe(false);
  });
});
