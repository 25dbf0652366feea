// Every tool bunker offers, in the order the model sees them.
import type { Config } from "../config.ts";
import type { AnyTool } from "./tool.ts";
import { readFileTool } from "./read-file.ts";
import { listFilesTool } from "./list-files.ts";
import { grepTool } from "./grep.ts";
import { globTool } from "./glob.ts";
import { editFileTool } from "./edit-file.ts";
import { writeFileTool } from "./write-file.ts";
import { todoTool } from "./todo.ts";
import { applyPatchTool } from "./apply-patch.ts";
import { createRunBashTool, runBashOptions } from "./run-bash.ts";
import { webFetchTool } from "./web-fetch.ts";

export function allTools(config: Config): AnyTool[] {
  return [readFileTool, listFilesTool, grepTool, globTool, editFileTool, writeFileTool, applyPatchTool, createRunBashTool(runBashOptions(config)), webFetchTool, todoTool];
}
