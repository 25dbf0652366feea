// For rows that run an attack on the git wall for real: a command (or MCP
// call) in the real sandbox plants something the person's own git runs later,
// outside the sandbox; the person's git then runs on the host and a marker
// file says whether the planted program ran. One bench per test file: a
// folder no sandbox shows (/srv), a private home, the marker, the person's
// git, their repository as a workspace, and run_bash in bubblewrap with a
// judge that allows everything (the sandbox and the walk alone hold).
import { afterAll, expect } from "bun:test";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unseenDir } from "./context.ts";
import { runSandboxed } from "./run-sandboxed.ts";

export interface PlantingBench {
  base: string;
  home: string;
  /** The environment bunker and commands start from. */
  env: Record<string, string>;
  /** The person's, for their git on the host (no system config, an identity for commits). */
  hostEnv: Record<string, string>;
  /** Where the planted program leaves its mark: on the host, outside every workspace. */
  MARK: string;
  /** A shell command that leaves the mark. */
  touch: string;
  /** The person's git on the host, as they would type it (bounded: a FIFO where git reads a file makes it wait). */
  hostGit(cwd: string, ...args: string[]): { code: number; out: string };
  /** A fresh workspace that is the person's repository (one commit), with `setup` done by them. */
  workspace(setup?: (root: string) => void): string;
  /** The next fresh folder name in the bench (not made). */
  next(prefix: string): string;
  /** One run_bash command in the real sandbox, as under -A (and --allow-write=PATHS): its result's text. */
  sandboxed(root: string, command: string, writable?: string[]): Promise<string>;
}

export function plantingBench(prefix: string): PlantingBench {
  const base = unseenDir(prefix);
  // Open to every user: a row may run as an unprivileged one (walk-gaps: root lists any folder).
  chmodSync(base, 0o755);
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const home = join(base, "home");
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
  const hostEnv = { ...env, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@b", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@b" };
  const MARK = join(base, "PWNED");
  let n = 0;
  const hostGit = (cwd: string, ...args: string[]) => {
    const r = Bun.spawnSync(["git", ...args], { cwd, env: hostEnv, stdout: "pipe", stderr: "pipe", timeout: 10_000 });
    return { code: r.exitCode ?? -1, out: r.stdout.toString() + r.stderr.toString() };
  };
  const next = (p: string) => join(base, `${p}${++n}`);
  return {
    base,
    home,
    env,
    hostEnv,
    MARK,
    touch: `touch ${MARK}`,
    hostGit,
    next,
    workspace(setup = () => {}) {
      const root = next("ws");
      mkdirSync(root);
      hostGit(root, "init", "-q", ".");
      writeFileSync(join(root, "a.txt"), "hi\n");
      setup(root);
      hostGit(root, "add", "-A");
      expect(hostGit(root, "commit", "-qm", "init", "--no-verify").code).toBe(0);
      return root;
    },
    sandboxed: (root, command, writable = []) => runSandboxed(root, command, env, home, writable),
  };
}
