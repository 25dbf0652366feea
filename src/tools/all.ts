// Every tool bunker offers, in the order the model sees them. read_file is
// loaded with start-up (a turn nearly always reads, and images attach through
// it); the others are offered from their specs and load their code on first
// call: a turn that only reads loads no change pipeline, patch parser, search,
// sandbox or network code.
import type { Config } from "../config.ts";
import { lazyTool, type AnyTool } from "./tool.ts";
import { readFileTool } from "./read-file.ts";
import { applyPatchSpec, editFileSpec, globSpec, grepSpec, listFilesSpec, todoSpec, writeFileSpec } from "./specs.ts";
import { runBashSpec } from "./run-bash-spec.ts";
import { webFetchSpec } from "./web-fetch-spec.ts";

export function allTools(config: Config): AnyTool[] {
  const runBash = lazyTool(runBashSpec, async () => {
    const { createRunBashTool, runBashOptions } = await import("./run-bash.ts");
    return createRunBashTool(runBashOptions(config));
  });
  const webFetch = lazyTool(webFetchSpec, async () => (await import("./web-fetch.ts")).webFetchTool);
  return [
    readFileTool,
    lazyTool(listFilesSpec, async () => (await import("./list-files.ts")).listFilesTool),
    lazyTool(grepSpec, async () => (await import("./grep.ts")).grepTool),
    lazyTool(globSpec, async () => (await import("./glob.ts")).globTool),
    lazyTool(editFileSpec, async () => (await import("./edit-file.ts")).editFileTool),
    lazyTool(writeFileSpec, async () => (await import("./write-file.ts")).writeFileTool),
    lazyTool(applyPatchSpec, async () => (await import("./apply-patch.ts")).applyPatchTool),
    runBash,
    webFetch,
    lazyTool(todoSpec, async () => (await import("./todo.ts")).todoTool),
  ];
}
