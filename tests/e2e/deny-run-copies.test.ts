// --deny-run holds a program, not one file of it (red team 12's F07): git's exec-path copy (/usr/lib/git-core/git,
// the same bytes as /usr/bin/git but another file) started git; node loading npm's own lib/cli.js ran npm. Now every
// copy with the same content in the system's and toolchains' program folders is masked too, and a program that is a
// file of a Node package (npm, npx, yarn, pnpm) has its package's folder masked.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
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

const gitCopy = "/usr/lib/git-core/git";
const sameBytes = (a: string, b: string) => {
  try {
    return readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
};
const hasGitCopy = existsSync(gitCopy) && sameBytes(gitCopy, "/usr/bin/git");
const npmCli = "/usr/lib/node_modules/npm/lib/cli.js";
const PATH = "/usr/local/bin:/usr/bin:/bin";

async function turn(commands: string[], flags: string[]) {
  fake = runs.start([]);
  const { root, env } = runs.workspace("bunker-deny-run-copies-", fake.url);
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "x", version: "1.0.0", scripts: { hi: "echo npm-script-ran" } }));
  fake.push(reply(commands.map(run)), reply("Done."));
  const r = await runHeadless(root, { ...env, PATH }, ["-p", "go", "--allow-run", "--no-prompt", ...flags]);
  expect(r.code).toBe(0);
  return { results: toolResults(fake.requests[1]), stderr: r.stderr };
}

describe.skipIf(!usable || !hasGitCopy || !Bun.which("python3", { PATH }))("--deny-run=git and git's exec-path copy", () => {
  test(`${gitCopy} (same bytes, another file) does not start git`, async () => {
    const probe = `python3 -c 'import subprocess\nfor p in ("git", "${gitCopy}"):\n    try: print("rc", subprocess.run([p, "--version"]).returncode)\n    except Exception as e: print("refused:", type(e).__name__)'`;
    const { results } = await turn([probe], ["--deny-run=git"]);
    expect(results[0]!.content).not.toContain("git version");
    expect(results[0]!.content.match(/refused: PermissionError/g)?.length).toBe(2);
  });
});

describe.skipIf(!usable || !existsSync(npmCli) || !Bun.which("node", { PATH }))("--deny-run=npm and npm's own code", () => {
  test("node loading npm's lib/cli.js does not run npm; other node code still runs", async () => {
    const { results, stderr } = await turn(
      [
        `node -e 'process.argv=[process.argv[0],"npm","run","hi"]; require("${npmCli}")(process)' 2>&1 | tail -3`,
        "node -e 'console.log(\"node-ran\")'",
      ],
      ["--deny-run=npm"],
    );
    expect(results[0]!.content).not.toContain("npm-script-ran");
    expect(results[1]!.content).toContain("node-ran");
    // npx is a file of the same package: said at start.
    expect(stderr).toContain("--deny-run=npm: npm is a file of the Node package /usr/lib/node_modules/npm, hidden whole from commands, so npx does not run in the sandbox either");
  });
});
