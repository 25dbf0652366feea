// bunker's binary replaced while a session runs (a rebuild, an update): the
// sandbox runs bunker's own checker and network forwarder from the file bunker
// started from, and the Landlock wrapper too, never whatever the path holds
// now. Real binary, real bubblewrap, the scripted server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { freshBinary } from "../../scripts/build/fresh.ts";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { canScopeAbstractSockets } from "../../src/sandbox/landlock.ts";
import { reply, startFakeAnthropic, toolUse } from "../support/fake-anthropic.ts";
import { runBunker, toolResults } from "../support/cli.ts";
import { tempDir } from "../support/context.ts";

let base: string;
let built: string;
beforeAll(async () => {
  built = (await freshBinary()).path;
  base = tempDir("bunker-self-replaced-");
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const run = (command: string) => toolUse("run_bash", { command });

/** A workspace and a copy of the binary in a folder its commands may write (--allow-write), as a build in the project would be. */
function setUp(name: string): { ws: string; dist: string; bin: string; env: Record<string, string> } {
  const ws = join(base, name, "ws");
  const dist = join(base, name, "dist");
  mkdirSync(ws, { recursive: true });
  mkdirSync(dist, { recursive: true });
  const bin = join(dist, "bunker");
  copyFileSync(built, bin);
  return { ws, dist, bin, env: { HOME: join(base, name, "home"), ANTHROPIC_API_KEY: "k" } };
}

describe.skipIf(detectSandbox().kind !== "bubblewrap")("the binary replaced or removed mid-session (real bubblewrap)", () => {
  test("commands that write (the mount checker) and reach a host (the forwarder) still run after the binary was replaced, then removed", async () => {
    const { ws, dist, bin, env } = setUp("rebuild");
    // The copy of the removed binary is made in bunker's state folder (no sandbox sees it), where one left by a
    // killed bunker is cleared away first; its own is removed when bunker exits.
    const state = join(env.HOME!, ".local", "state", "bunker");
    mkdirSync(join(state, "bunker-self-999999999-1"), { recursive: true });
    const fake = startFakeAnthropic([
      reply([run("cp ../dist/bunker ../dist/new && mv ../dist/new ../dist/bunker && echo replaced")]),
      reply([run("echo one > a.txt && cat a.txt")]),
      reply([run("rm ../dist/bunker && echo removed")]),
      reply([run("echo two > b.txt && cat b.txt")]),
      reply([run("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.2:9/ || true; echo three > c.txt && cat c.txt")]),
      reply("Done."),
    ]);
    try {
      const r = await runBunker(["-p", "go", "--allow-all", "--allow-run", `--allow-write=${dist}`, "--allow-net=127.0.0.2:9"], { argv: [bin], cwd: ws, env: { ...env, ANTHROPIC_BASE_URL: fake.url } });
      expect(r.code).toBe(0);
      const out = [1, 2, 3, 4, 5].map((i) => toolResults(fake.requests[i])[0]);
      expect(out[0]).toEqual({ content: "exit code 0\n\nreplaced", is_error: false });
      expect(out[1]).toEqual({ content: "exit code 0\n\none", is_error: false });
      expect(out[2]).toEqual({ content: "exit code 0\n\nremoved", is_error: false });
      expect(existsSync(bin)).toBe(false);
      // Before: `bwrap: execvp …/dist/bunker: No such file or directory`, and nothing ran.
      expect(out[3]).toEqual({ content: "exit code 0\n\ntwo", is_error: false });
      expect(out[4]?.content).toContain("three");
      expect(out[4]?.is_error).toBe(false);
      expect(readdirSync(state).filter((n) => n.startsWith("bunker-self-"))).toEqual([]);
    } finally {
      await fake.stop();
    }
  });

  test.skipIf(!canScopeAbstractSockets())("a program a command put in the binary's place is not what bunker starts outside the sandbox (the Landlock wrapper, bare --allow-net)", async () => {
    const { ws, dist, bin, env } = setUp("planted");
    const marker = join(base, "planted", "ran-outside");
    const fake = startFakeAnthropic([
      reply([run(`printf '#!/bin/sh\\necho ran > ${marker}\\n' > ../dist/new && chmod +x ../dist/new && mv ../dist/new ../dist/bunker && echo planted`)]),
      reply([run("echo after > a.txt && cat a.txt")]),
      reply("Done."),
    ]);
    try {
      const r = await runBunker(["-p", "go", "--allow-all", "--allow-run", `--allow-write=${dist}`, "--allow-net"], { argv: [bin], cwd: ws, env: { ...env, ANTHROPIC_BASE_URL: fake.url } });
      expect(r.code).toBe(0);
      expect(toolResults(fake.requests[1])[0]?.content).toContain("planted");
      expect(toolResults(fake.requests[2])[0]).toEqual({ content: "exit code 0\n\nafter", is_error: false });
      expect(existsSync(marker)).toBe(false);
    } finally {
      await fake.stop();
    }
  });
});
