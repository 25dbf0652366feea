// bunker starting itself (the forwarder in the sandbox, the Landlock wrapper around bwrap): from source here.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { selfCommand, selfInvocation } from "../../src/self-command.ts";
import { tempDir } from "../support/context.ts";

test("the command line starts this bunker, and the paths it names exist", () => {
  const { argv, paths } = selfInvocation("--version");
  expect(argv.at(-1)).toBe("--version");
  const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
  expect(r.stdout.toString()).toMatch(/^bunker \d+\.\d+\.\d+ /);
  for (const p of paths) expect(existsSync(p)).toBe(true);
});

test("started in a workspace, it loads neither the workspace's .env nor its bunfig.toml (whose preload would run first)", () => {
  const ws = tempDir("bunker-self-");
  mkdirSync(join(ws, "sub"));
  writeFileSync(join(ws, ".env"), "FROM_DOTENV=planted\n");
  writeFileSync(join(ws, "bunfig.toml"), 'preload = ["./pre.ts"]\n');
  writeFileSync(join(ws, "pre.ts"), 'console.log("PRELOAD RAN")\n');
  // The control: bun itself, started there, runs the preload and loads the .env.
  const control = Bun.spawnSync([process.execPath, "-e", "console.log(process.env.FROM_DOTENV)"], { cwd: ws, stdout: "pipe", stderr: "pipe" }).stdout.toString();
  expect(control).toBe("PRELOAD RAN\nplanted\n");
  const r = Bun.spawnSync([...selfCommand("__scope-abstract"), "--", "/usr/bin/env"], { cwd: ws, stdout: "pipe", stderr: "pipe" });
  const out = r.stdout.toString() + r.stderr.toString();
  expect(out).not.toContain("PRELOAD RAN");
  expect(out).not.toContain("FROM_DOTENV");
});
