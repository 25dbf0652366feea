// A --deny-write file cannot be taken out of its rule's reach by moving the
// folders around it (red team 12's F04): the file's read-only mount moved with
// its folder, the next command found an ordinary file at the new name and
// deleted it, the third moved the folder back, and the person's only copy was
// gone with nothing said. Every folder on the way to a deny-write path or match
// is pinned now (a mount point cannot be renamed), and a match that is gone or
// changed after a command is said and put back.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

function setup() {
  fake = runs.start([]);
  const { root, env } = runs.workspace("bunker-deny-moved-", fake.url);
  mkdirSync(join(root, "app/config"), { recursive: true });
  writeFileSync(join(root, "app/config/prod.local.yml"), "db_password: the-only-copy\n");
  writeFileSync(join(root, "app/config/app.yml"), "x: 1\n");
  return { root, env };
}

async function attack(s: ReturnType<typeof setup>, commands: string[], flags: string[]) {
  fake!.push(reply(commands.map((c) => run(c))), reply("Done."));
  const r = await runHeadless(s.root, s.env, ["-p", "go", "-A", "--allow-run", "--no-prompt", ...flags]);
  expect(r.code).toBe(0);
  const results = toolResults(fake!.requests[1]);
  expect(results).toHaveLength(commands.length);
  return { results, stderr: r.stderr };
}

describe.skipIf(!usable)("a deny-write file's folders", () => {
  for (const [what, flag] of [["a path", "app/config/prod.local.yml"], ["a glob", "app/config/*.local.yml"], ["a ** glob", "**/prod.local.yml"]] as const) {
    test(`cannot be renamed to take the file out of ${what}'s reach`, async () => {
      const s = setup();
      const { results } = await attack(
        s,
        [
          "mv app/config app/cfg && echo moved-config",
          "mv app a2 && echo moved-app",
          "rm -f app/cfg/prod.local.yml a2/config/prod.local.yml a2/cfg/prod.local.yml; echo rm-done",
          "test -d app/cfg && mv app/cfg app/config; test -d a2 && mv a2 app; echo back",
          "echo still-writable >> app/config/app.yml && echo ok",
        ],
        [`--deny-write=${flag}`],
      );
      expect(results[0]!.content).not.toContain("moved-config");
      expect(results[1]!.content).not.toContain("moved-app");
      expect(readFileSync(join(s.root, "app/config/prod.local.yml"), "utf8")).toBe("db_password: the-only-copy\n");
      expect(existsSync(join(s.root, "app/cfg"))).toBe(false);
      expect(existsSync(join(s.root, "a2"))).toBe(false);
      // The rest of the folder is the command's, as before.
      expect(results[4]!.content).toContain("ok");
      expect(readFileSync(join(s.root, "app/config/app.yml"), "utf8")).toBe("x: 1\nstill-writable\n");
    });
  }
});

describe.skipIf(!usable)("a pinned folder", () => {
  test("inside a read-only one stays read-only: a deny-read file in .git/hooks does not make .git/hooks writable", async () => {
    const s = setup();
    Bun.spawnSync(["git", "init", "-q"], { cwd: s.root });
    mkdirSync(join(s.root, ".git/hooks"), { recursive: true });
    writeFileSync(join(s.root, ".git/hooks/notes.txt"), "private\n");
    const { results } = await attack(s, ["printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo planted"], ["--deny-read=.git/hooks/notes.txt"]);
    expect(results[0]!.content).not.toContain("planted");
    expect(existsSync(join(s.root, ".git/hooks/pre-commit"))).toBe(false);
  });
});
