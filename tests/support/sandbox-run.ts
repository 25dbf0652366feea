// For tests that run the binary against the scripted server in the real
// sandbox: one server and a few folders where no sandbox looks (/srv), per
// test, stopped and removed after it.
import { afterEach } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { unseenDir } from "./context.ts";
import { startFakeAnthropic, type FakeAnthropic } from "./fake-anthropic.ts";
import type { Step } from "./fake-anthropic/steps.ts";

export interface SandboxWorkspace {
  /** The folder holding both (a file beside the workspace goes here). */
  base: string;
  root: string;
  home: string;
  /** A private HOME and config dir, and the scripted server's URL. */
  env: Record<string, string>;
}

export function sandboxRuns(): { start(steps: Step[]): FakeAnthropic; dir(prefix: string): string; workspace(prefix: string, url: string): SandboxWorkspace } {
  let fake: FakeAnthropic | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await fake?.stop();
    fake = undefined;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return {
    start: (steps) => (fake = startFakeAnthropic(steps)),
    dir(prefix) {
      const d = unseenDir(prefix);
      dirs.push(d);
      return d;
    },
    /** An empty workspace and home side by side in a new folder of `dir`'s. */
    workspace(prefix, url) {
      const base = this.dir(prefix);
      const root = join(base, "ws");
      const home = join(base, "home");
      mkdirSync(root, { recursive: true });
      mkdirSync(join(home, ".config"), { recursive: true });
      return { base, root, home, env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: url } };
    },
  };
}
