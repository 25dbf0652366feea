// bunker starting itself (the forwarder in the sandbox, the Landlock wrapper around bwrap): from source here.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { selfInvocation } from "../../src/self-command.ts";

test("the command line starts this bunker, and the paths it names exist", () => {
  const { argv, paths } = selfInvocation("--version");
  expect(argv.at(-1)).toBe("--version");
  const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
  expect(r.stdout.toString()).toMatch(/^bunker \d+\.\d+\.\d+ /);
  for (const p of paths) expect(existsSync(p)).toBe(true);
});
