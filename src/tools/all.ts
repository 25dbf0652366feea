// Every tool bunker offers, in the order the model sees them.
import type { Config } from "../config.ts";
import { lazyTool, type AnyTool } from "./tool.ts";
import { readFileTool } from "./read-file.ts";
import { listFilesTool } from "./list-files.ts";
import { grepTool } from "./grep.ts";
import { globTool } from "./glob.ts";
import { editFileTool } from "./edit-file.ts";
import { writeFileTool } from "./write-file.ts";
import { todoTool } from "./todo.ts";
import { applyPatchTool } from "./apply-patch.ts";
import { runBashSpec } from "./run-bash-spec.ts";
import { webFetchSpec } from "./web-fetch-spec.ts";

export function allTools(config: Config): AnyTool[] {
  // run_bash and web_fetch load their sandbox and network code on first use.
  const runBash = lazyTool(runBashSpec, async () => {
    const { createRunBashTool, runBashOptions } = await import("./run-bash.ts");
    return createRunBashTool(runBashOptions(config));
  });
  const webFetch = lazyTool(webFetchSpec, async () => (await import("./web-fetch.ts")).webFetchTool);
  return [readFileTool, listFilesTool, grepTool, globTool, editFileTool, writeFileTool, applyPatchTool, runBash, webFetch, todoTool];
}
