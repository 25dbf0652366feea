// One run_bash call as a prompt-injected model would make it under -A: the
// judge allows every command, so only the sandbox (or, with sandbox "off",
// nothing) stands between the command and the person's machine.
import { emptyGrants } from "../../src/perms/policy.ts";
import { dirname } from "node:path";
import { parseConfig } from "../../src/config.ts";
import { createRunBashTool, runBashOptions, type RunBashOptions } from "../../src/tools/run-bash.ts";
import type { ToolOutput } from "../../src/tools/tool.ts";
import { makeContext, unseenDir } from "./context.ts";

export interface ConfinedRun {
  env: Record<string, string>;
  home: string;
  /** "off" is the unconfined control: the same command with nothing around it. */
  sandbox?: RunBashOptions["sandbox"];
  allowNet?: boolean;
  /** --allow-read=PATHS. */
  readPaths?: string[];
  /** bunker's state folder (the sessions' folder), as run_bash is given it. */
  sessionsDir?: string;
  /** Folders outside the workspace granted for writing (--allow-write=PATHS). */
  writable?: string[];
  /** Filled with the lines the person is shown while it runs. */
  shown?: string[];
}

/** The tool result's text (status line, output, notes). */
export async function runAllowed(root: string, command: string, o: ConfinedRun): Promise<string> {
  const grants = emptyGrants();
  grants.allow.run.all = true;
  grants.allow.write.workspace = true;
  if (o.allowNet) grants.allow.net.all = true;
  grants.allow.read.paths.push(...(o.readPaths ?? []));
  grants.allow.write.paths = o.writable ?? [];
  const ctx = makeContext(root, { grants });
  const tool = createRunBashTool({ sandbox: o.sandbox ?? "on", allowNet: o.allowNet ?? false, allowEnv: [], gitWritable: false, grants, env: o.env, home: o.home, killGraceMs: 300, writable: o.writable ?? [], ...(o.sessionsDir ? { sessionsDir: o.sessionsDir } : {}) });
  const r = (await tool.run({ command }, ctx)) as Exclude<ToolOutput, string>;
  o.shown?.push(...ctx.notices);
  return r.content;
}

/**
 * The tool result of `command` as bunker started in `root` with `flags` runs it: the real flag parsing and rules
 * files (`--sandbox=on` added), a private home, and `path` as the command's PATH.
 */
export async function runUnderFlags(root: string, command: string, flags: string[], path = process.env.PATH ?? ""): Promise<string> {
  const config = parseConfig(["-C", root, "--sandbox=on", ...flags], { ANTHROPIC_API_KEY: "k", HOME: dirname(root) }, false).config!;
  const ctx = makeContext(root, { grants: config.grants });
  const tool = createRunBashTool({ ...runBashOptions(config), env: { PATH: path }, home: unseenDir("bunker-flags-home-"), killGraceMs: 300 });
  return ((await tool.run({ command }, ctx)) as Exclude<ToolOutput, string>).content;
}
