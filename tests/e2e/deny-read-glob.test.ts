// Deny-read globs hold for commands too (red team F7): with `--deny-read='**/*.pem'`
// and `read:secrets/**` in the user's settings, a line that only reads (run unasked)
// and a line the judge allows outright (-A --allow-run) find the matching files
// empty, cannot give them another name (a hard link), and the file tools refuse a
// hard link made before bunker started. Each test first shows the secret is there.
// A denied file cannot be taken out of its rule's reach by renaming its folder
// (red team 9's F11): the folder a rule names is pinned, and a file once denied
// stays denied by identity wherever it is moved.
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

  test("the folder a rule names cannot be renamed away: read:secrets/** and a denied file's folder", async () => {
    const fake = runs.start([
      reply([run("mv secrets s2; mv deep d2; ls; cat secrets/key.txt deep/er/b.pem")]),
      reply("Done."),
    ]);
    const { root, env } = setup(fake.url);
    const r = await runHeadless(root, env, ["-p", "go", "--deny-read=deep/er/b.pem", "-A", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [cmd] = toolResults(fake.requests[1]);
    expect(cmd!.content).toContain("mv: cannot move 'secrets' to 's2': Device or resource busy");
    expect(cmd!.content).toContain("mv: cannot move 'deep' to 'd2': Device or resource busy");
    expect(cmd!.content).not.toMatch(/PEMSECRET|TOPSECRET/);
  });

  test("a denied file moved out of its glob's reach stays empty for commands and refused by the file tools", async () => {
    const fake = runs.start([
      reply([run("mv deep/er deep/x && echo moved")]),
      reply([run("cat deep/x/b.pem; cp deep/x/b.pem c.txt; cat c.txt")]),
      reply([toolUse("read_file", { path: "deep/x/b.pem" })]),
      reply([toolUse("grep", { pattern: "PEM.ECRET", path: "deep" })]),
      reply("Done."),
    ]);
    const { root, env } = setup(fake.url);
    // `**/er/*` has no fixed folder to pin: the rename works, the file stays denied.
    const r = await runHeadless(root, env, ["-p", "go", "--deny-read=**/er/*", "-A", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(toolResults(fake.requests[1])[0]!.content).toContain("moved");
    expect(readFileSync(join(root, "deep/x/b.pem"), "utf8")).toBe("PEMSECRET\n"); // the control: it is there, under its new name
    const [cmd] = toolResults(fake.requests[2]);
    const [read] = toolResults(fake.requests[3]);
    expect(read!.content).toBe("deep/x/b.pem is a file the deny-read rules deny, moved or renamed out of their reach");
    const [grep] = toolResults(fake.requests[4]);
    expect(grep!.content).toContain("No matches");
    for (const x of [cmd, read, grep]) expect(x!.content).not.toContain("PEMSECRET");
  });

  test("a denied file a command of one session moved out of its glob's reach stays denied in the next session; dropping the rule frees it", async () => {
    const fake = runs.start([
      reply([run("mv deep/er deep/x && echo moved")]),
      reply("Moved."),
      reply([run("cat deep/x/b.pem; echo read")]),
      reply([toolUse("read_file", { path: "deep/x/b.pem" })]),
      reply("Done."),
      reply([toolUse("read_file", { path: "deep/x/b.pem" })]),
      reply("Done."),
    ]);
    const { root, env } = setup(fake.url);
    const flags = ["-p", "go", "--deny-read=**/er/*", "-A", "--allow-run", "--no-prompt"];
    expect((await runHeadless(root, env, flags)).code).toBe(0);
    expect(toolResults(fake.requests[1])[0]!.content).toContain("moved");
    // A new session, the same rule: it has never matched deep/x/b.pem, yet the file stays denied.
    expect((await runHeadless(root, env, flags)).code).toBe(0);
    const [cmd] = toolResults(fake.requests[3]);
    expect(cmd!.content).toContain("read");
    expect(cmd!.content).not.toContain("PEMSECRET");
    expect(toolResults(fake.requests[4])[0]!.content).toBe("deep/x/b.pem is a file the deny-read rules deny, moved or renamed out of their reach");
    // Without the rule (the person's choice), the file is theirs to read again.
    expect((await runHeadless(root, env, flags.filter((f) => !f.startsWith("--deny-read")))).code).toBe(0);
    expect(toolResults(fake.requests[6])[0]!.content).toContain("PEMSECRET");
  });
});
