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

export function allTools(_config: Config): AnyTool[] {
  return [readFileTool, listFilesTool, grepTool, globTool, editFileTool, writeFileTool, todoTool];
}
