// One run_bash command in the real sandbox with a judge that allows everything: the sandbox and the walk alone hold.
import { emptyGrants } from "../../src/perms/policy.ts";
import { createRunBashTool } from "../../src/tools/run-bash.ts";
import type { ToolOutput } from "../../src/tools/tool.ts";
import { makeContext } from "./context.ts";

/** One run_bash command in the real sandbox, as under -A (and --allow-write=PATHS): its result's text, or the refusal's. */
export async function runSandboxed(root: string, command: string, env: Record<string, string>, home: string, writable: string[] = []): Promise<string> {
  const grants = emptyGrants();
  grants.allow.run.all = true; // -A: the judge allows everything
  grants.allow.write.workspace = true;
  grants.allow.write.paths = writable; // --allow-write=PATHS outside the workspace
  const ctx = makeContext(root, { grants });
  const tool = createRunBashTool({ sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false, writable, grants, env, home, killGraceMs: 300 });
  try {
    const r = (await tool.run({ command }, ctx)) as Exclude<ToolOutput, string>;
    return r.content;
  } catch (e) {
    return `refused: ${(e as Error).message}`;
  }
}
