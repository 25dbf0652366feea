// The files bunker's sandboxes trust (the mount checker's list, a copy of the
// binary) are kept in bunker's state folder, never in $TMPDIR: a command
// granted the temporary folder could otherwise empty the list the next
// command's checks are read from. Real binary, real bubblewrap, the scripted
// server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { reply, startFakeAnthropic, toolUse } from "../support/fake-anthropic.ts";
import { runBunker, toolResults } from "../support/cli.ts";
import { tempDir } from "../support/context.ts";

let base: string;
beforeAll(() => {
  base = tempDir("bunker-private-folder-");
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe.skipIf(detectSandbox().kind !== "bubblewrap")("bunker's private files (real bubblewrap)", () => {
  test("a command granted $TMPDIR finds neither the mount-check list, the network proxy's socket nor the credential-free git config there; the checks still run", async () => {
    const ws = join(base, "ws");
    const tmp = join(base, "tmp");
    const home = join(base, "home");
    // A .git in the workspace: its read-only mount is checked from inside before each writing command.
    for (const d of [join(ws, ".git"), tmp, home]) mkdirSync(d, { recursive: true });
    // A git config holding a token: commands are shown a copy without it (git-config-copy.ts).
    writeFileSync(join(home, ".gitconfig"), '[user]\n\tname = Ann\n[url "https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/"]\n\tinsteadOf = https://github.com/\n');
    const fake = startFakeAnthropic([
      reply([toolUse("run_bash", { command: "echo one > a.txt && cat a.txt && git config --global user.name" })]),
      reply([toolUse("run_bash", { command: `ls -A ${tmp} | grep bunker-; echo end` })]),
      reply("Done."),
    ]);
    try {
      const r = await runBunker(["-p", "go", "--allow-run", "--allow-write=.", `--allow-write=${tmp}`], {
        cwd: ws,
        env: { HOME: home, TMPDIR: tmp, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
      });
      expect(r.code).toBe(0);
      expect(toolResults(fake.requests[1])[0]).toEqual({ content: "exit code 0\n\none\nAnn", is_error: false });
      // Before: `bunker-mounts-XXXXXX` (whose JSON a command could replace with `[]` for the next one),
      // `bunker-net-XXXXXX` (whose proxy socket it could replace with a listener of its own) and `bunker-gitconfig-XXXXXX`
      // (the global git config of every later command and MCP server: red team 10's F10).
      expect(toolResults(fake.requests[2])[0]).toEqual({ content: "exit code 0\n\nend", is_error: false });
    } finally {
      await fake.stop();
    }
  });

  test("a state folder that cannot be made (a read-only home) does not stop commands: they run, with a .git to check (reviewer's R10-13)", async () => {
    const ws = join(base, "ws2");
    mkdirSync(join(ws, ".git"), { recursive: true });
    const fake = startFakeAnthropic([reply([toolUse("run_bash", { command: "echo hi > f.txt && cat f.txt" })]), reply("Done.")]);
    try {
      const r = await runBunker(["-p", "go", "--allow-run", "--allow-write=."], {
        cwd: ws,
        env: { HOME: join(base, "home"), XDG_STATE_HOME: "/etc/passwd/state", ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
      });
      expect(r.code).toBe(0);
      // Before: "run_bash failed unexpectedly: ENOTDIR: not a directory, mkdir '/etc/passwd/state/bunker'".
      expect(toolResults(fake.requests[1])[0]).toEqual({ content: "exit code 0\n\nhi", is_error: false });
    } finally {
      await fake.stop();
    }
  });
});
