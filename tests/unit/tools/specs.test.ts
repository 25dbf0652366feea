// The file tools offered from their specs (src/tools/specs.ts) and loaded on
// first call (src/tools/all.ts): the model is told exactly what their code
// says, and a call's summary line is their code's once they are ready.
import { expect, test } from "bun:test";
import { parseConfig } from "../../../src/config.ts";
import { allTools } from "../../../src/tools/all.ts";
import { applyPatchTool } from "../../../src/tools/apply-patch.ts";
import { editFileTool } from "../../../src/tools/edit-file.ts";
import { globTool } from "../../../src/tools/glob.ts";
import { grepTool } from "../../../src/tools/grep.ts";
import { listFilesTool } from "../../../src/tools/list-files.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { applyPatchSpec, editFileSpec, globSpec, grepSpec, listFilesSpec, todoSpec, writeFileSpec } from "../../../src/tools/specs.ts";
import { todoTool } from "../../../src/tools/todo.ts";
import { writeFileTool } from "../../../src/tools/write-file.ts";
import { tempDir } from "../../support/context.ts";

const config = () => parseConfig(["-C", tempDir("bunker-specs-"), "-p", "hi"], { ANTHROPIC_API_KEY: "k", HOME: tempDir("bunker-specs-home-") }, false).config!;

test("each spec is what its tool's code offers, and the registry offers the specs as the code would", () => {
  const pairs = [[listFilesSpec, listFilesTool], [grepSpec, grepTool], [globSpec, globTool], [editFileSpec, editFileTool], [writeFileSpec, writeFileTool], [applyPatchSpec, applyPatchTool], [todoSpec, todoTool]] as const;
  const offered = new ToolRegistry(allTools(config())).apiTools();
  for (const [spec, tool] of pairs) {
    expect({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }).toEqual(spec);
    expect(offered.find((t) => t.name === spec.name)).toEqual({ name: tool.name, description: tool.description, input_schema: tool.inputSchema as (typeof offered)[number]["input_schema"] });
  }
});

test("a call to a tool loaded on first call is summarized by its own code once ready: apply_patch names the files of the patch", async () => {
  const registry = new ToolRegistry(allTools(config()));
  const patch = "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** Add File: b.txt\n+hi\n*** End Patch";
  await registry.ready("apply_patch");
  expect(registry.summarize("apply_patch", { patch })).toBe("apply_patch src/a.ts, b.txt");
  await registry.ready("grep");
  expect(registry.summarize("grep", { pattern: "x+", path: "src" })).toBe("grep /x+/ in src");
  // A tool that needs no loading, and one that does not exist.
  await registry.ready("read_file");
  await registry.ready("nope");
  expect(registry.summarize("read_file", { path: "a.txt" })).toBe("read_file a.txt");
});
