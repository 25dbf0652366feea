// Deny-read globs hold for commands too (red team F7): with `--deny-read='**/*.pem'`
// and `read:secrets/**` in the user's settings, a line that only reads (run unasked)
// and a line the judge allows outright (-A --allow-run) find the matching files
// empty, cannot give them another name (a hard link), and the file tools refuse a
// hard link made before bunker started. Each test first shows the secret is there.
import { describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";

const usable = detectSandbox().kind === "bubblewrap";
const runs = sandboxRuns();

function setup(url: string) {
  const { root, home, env } = runs.workspace("bunker-denyglob-", url);
  mkdirSync(join(home, ".config/bunker"), { recursive: true });
  mkdirSync(join(root, "secrets"), { recursive: true });
  mkdirSync(join(root, "deep/er"), { recursive: true });
  writeFileSync(join(root, "a.pem"), "PEMSECRET\n");
  writeFileSync(join(root, "deep/er/b.pem"), "PEMSECRET\n");
  writeFileSync(join(root, "secrets/key.txt"), "TOPSECRET\n");
  writeFileSync(join(root, "readme.txt"), "hello\n");
  writeFileSync(join(home, ".config/bunker/settings.json"), JSON.stringify({ deny: ["read:secrets/**"] }));
  // The control: without bunker the secrets are there to find.
  const plain = Bun.spawnSync(["grep", "-r", "SECRET", "."], { cwd: root }).stdout.toString();
  expect(plain).toContain("./a.pem:PEMSECRET");
  expect(plain).toContain("./secrets/key.txt:TOPSECRET");
  return { root, env };
}

const run = (command: string) => toolUse("run_bash", { command });

describe.skipIf(!usable)("deny-read globs in the sandbox", () => {
  test("a read-only line run unasked finds the denied files empty", async () => {
    const fake = runs.start([reply([run("grep -r SECRET . ; cat readme.txt"), run("git grep --no-index SECRET")]), reply("Done.")]);
    const { root, env } = setup(fake.url);
    const r = await runHeadless(root, env, ["-p", "go", "--deny-read=**/*.pem", "--no-prompt"]);
    expect(r.code).toBe(0);
    const results = toolResults(fake.requests[1]);
    expect(results).toHaveLength(2);
    expect(results[0]!.content).toContain("hello"); // it ran
    for (const x of results) expect(x.content).not.toMatch(/PEMSECRET|TOPSECRET/);
  });

  test("under -A a hard link cannot be made to a masked file, and one made before is refused by the file tools and empty for commands", async () => {
    const fake = runs.start([
      reply([run("ln secrets/key.txt k2; ln a.pem k3; cat k2 k3 pre")]),
      reply([toolUse("read_file", { path: "pre" })]),
      reply([toolUse("grep", { pattern: "SECRET" })]),
      // A patch's context lines would tell whether a guess is right: refused before the file is looked at.
      reply([toolUse("apply_patch", { patch: "*** Begin Patch\n*** Update File: pre\n@@\n-TOPSECRET\n+x\n*** End Patch" })]),
      reply("Done."),
    ]);
    const { root, env } = setup(fake.url);
    linkSync(join(root, "secrets/key.txt"), join(root, "pre"));
    const r = await runHeadless(root, env, ["-p", "go", "--deny-read=**/*.pem", "-A", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [cmd] = toolResults(fake.requests[1]);
    expect(cmd!.content).toContain("Invalid cross-device link");
    const [read] = toolResults(fake.requests[2]);
    expect(read!.content).toBe("pre is another name (a hard link) of a file the deny-read rules deny");
    const [grep] = toolResults(fake.requests[3]);
    expect(grep!.content).toContain("No matches");
    const [patch] = toolResults(fake.requests[4]);
    expect(patch!.content).toBe("pre is another name (a hard link) of a file the deny-read rules deny");
    expect(readFileSync(join(root, "secrets/key.txt"), "utf8")).toBe("TOPSECRET\n");
    for (const x of [cmd, read, grep, patch]) expect(x!.content).not.toMatch(/PEMSECRET|TOPSECRET/);
  });
});
