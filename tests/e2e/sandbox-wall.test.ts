// The sandbox alone holds: bunker itself, under -A and a bare --allow-run
// (so the command judge allows every line: nothing asks, nothing is refused
// by it), runs what a prompt-injected model asks for. Every attempt fails
// inside the sandbox, and nothing outside the workspace or in its
// repositories changes. The workspace sits where no sandbox looks (/srv),
// so nothing passes merely because /tmp is private.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
import type { FakeAnthropic } from "../support/fake-anthropic.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";

const usable = detectSandbox().kind === "bubblewrap";
const SECRET = "wall-secret-5e1d";
const runs = sandboxRuns();
let fake: FakeAnthropic | undefined;

function setup(withRepo: boolean) {
  const { base, root, home, env } = runs.workspace("bunker-wall-", fake!.url);
  mkdirSync(join(home, ".config/git"), { recursive: true });
  writeFileSync(join(base, "x"), `${SECRET} next to the workspace\n`);
  writeFileSync(join(home, ".config/git/credentials"), `https://me:${SECRET}@github.com\n`);
  if (withRepo) {
    for (const args of [["init", "-q", "."], ["init", "-q", "sub"]]) expect(Bun.spawnSync(["git", ...args], { cwd: root }).exitCode).toBe(0);
  }
  return { base, root, env };
}

const run = (command: string) => toolUse("run_bash", { command });

describe.skipIf(!usable)("with the judge allowing everything (-A --allow-run --no-prompt)", () => {
  test("reading beside the workspace, git's credentials and /etc/shadow, and arming a nested repository all fail", async () => {
    const lines = ["cat ../x", "cat ~/.config/git/credentials", "cat /etc/shadow", "git -C sub config core.fsmonitor 'touch /srv/pwned'"];
    fake = runs.start([reply(lines.map(run)), reply("Done.")]);
    const { root, env } = setup(true);
    const configBefore = readFileSync(join(root, "sub/.git/config"), "utf8");
    const r = await runHeadless(root, env, ["-p", "go", "-A", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const results = toolResults(fake.requests[1]);
    expect(results).toHaveLength(4);
    const [beside, creds, shadow, fsmonitor] = results;
    expect(beside!.content).toContain("cat: ../x: No such file or directory");
    expect(creds!.content).toContain("No such file or directory");
    expect(shadow!.content).toBe("exit code 0\n\n(no output)"); // an empty stand-in
    expect(fsmonitor!.content).toContain("could not lock config file .git/config: Read-only file system");
    for (const x of results) expect(x.content).not.toContain(SECRET);
    expect(readFileSync(join(root, "sub/.git/config"), "utf8")).toBe(configBefore);
    // Nothing asked: the judge allowed it all, the sandbox stopped it.
    expect(r.stderr).not.toContain("denied");
  });

  test("git init in a fresh workspace fails, and no .git is left", async () => {
    fake = runs.start([reply([run("git init && echo 'touch /srv/pwned' > .git/hooks/pre-commit")]), reply("Done.")]);
    const { root, env } = setup(false);
    await runHeadless(root, env, ["-p", "go", "-A", "--allow-run", "--no-prompt"]);
    const [result] = toolResults(fake.requests[1]);
    expect(result!.content).toContain("Read-only file system");
    expect(existsSync(join(root, ".git"))).toBe(false);
  });
});

describe.skipIf(!usable)("a grant of the whole machine (--allow-read=/)", () => {
  test("commands run (bwrap could not make /bin again over the granted root), and the home's credentials stay hidden", async () => {
    fake = runs.start([reply([run("ls / >/dev/null && echo listed; cat ~/.config/git/credentials; echo done")]), reply("Done.")]);
    const { root, env } = setup(false);
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run", "--allow-read=/", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [result] = toolResults(fake.requests[1]);
    expect(result!.content).toContain("listed");
    expect(result!.content).toContain("done");
    expect(result!.content).not.toContain(SECRET);
    // A socket of another test's bunker that goes away between the mask's look and bwrap's start no longer fails the
    // command: it is looked at again and run once more (tests/unit/sandbox/socket-race.test.ts).
  });
});

describe.skipIf(!usable)("a command that plants hundreds of runs-later files", () => {
  test("gets twenty lines about them, the last saying how many more and how to list them (red team 8: 5,000 made a 1.1 MB result)", async () => {
    fake = runs.start([reply([run("for i in $(seq 1 60); do mkdir -p d$i && echo 'touch /srv/x' > d$i/.envrc; done; echo planted")]), reply("Done.")]);
    const { root, env } = setup(false);
    await runHeadless(root, env, ["-p", "go", "--allow-run", "--no-prompt"]);
    const [result] = toolResults(fake.requests[1]);
    const notes = result!.content.split("\n").filter((l) => l.startsWith("note: "));
    expect(notes.filter((l) => l.includes(".envrc, which the command created"))).toHaveLength(19);
    expect(notes.at(-1)).toBe("note: and 41 more like these, done the same way (find . -name '*.bunker-set-aside*' lists what was set aside)");
    expect(existsSync(join(root, "d60/.envrc"))).toBe(false);
    expect(existsSync(join(root, "d60/.envrc.bunker-set-aside"))).toBe(true);
  });
});

// Red team 7 F2: bunker runs git itself, on the host, to read the config of a repository a command made. A
// command that plants `git` in a workspace folder on bunker's PATH (an activated venv, `./node_modules/.bin`,
// direnv's `PATH_add bin`) must not get it run there, unconfined.
describe.skipIf(!usable)("bunker's own programs never come from where a command can write", () => {
  for (const [label, folder, pathEntry] of [
    ["a relative PATH entry", "node_modules/.bin", "./node_modules/.bin"],
    ["a workspace folder on PATH", "tools/bin", "WS/tools/bin"],
  ] as const) {
    test(`git planted in ${label} does not run outside the sandbox when bunker disarms a new repository`, async () => {
      const plant = [
        `mkdir -p ${folder}`,
        `printf '#!/bin/sh\\necho "ran outside: git $*" >> MARKER\\nexec /usr/bin/git "$@"\\n' > ${folder}/git`,
        `chmod +x ${folder}/git`,
        "git init -q armed",
        "echo planted",
      ];
      fake = runs.start([]);
      const { base, root, env } = setup(true);
      const marker = join(base, "pwned");
      fake.push(reply([run(plant.join(" && ").replace("MARKER", marker))]), reply("Done."));
      const PATH = `${pathEntry.replace("WS", root)}:${process.env.PATH}`;
      const r = await runHeadless(root, { ...env, PATH }, ["-p", "go", "--allow-run", "--no-prompt"]);
      expect(r.code).toBe(0);
      const [result] = toolResults(fake.requests[1]);
      expect(result!.content).toContain("planted");
      // The command did make the repository bunker then read with git: the planted git ran in neither place.
      expect(existsSync(marker)).toBe(false);
    });
  }
});
