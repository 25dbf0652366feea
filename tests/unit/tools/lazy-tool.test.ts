// run_bash and web_fetch are offered from their specs and load their code on first call.
import { expect, test } from "bun:test";
import { lazyTool, type Tool } from "../../../src/tools/tool.ts";
import { runBashSpec } from "../../../src/tools/run-bash-spec.ts";
import { webFetchSpec } from "../../../src/tools/web-fetch-spec.ts";
import { createRunBashTool } from "../../../src/tools/run-bash.ts";
import { createWebFetchTool } from "../../../src/tools/web-fetch.ts";
import type { ToolContext } from "../../../src/tools/tool.ts";

test("a lazy tool loads its code on the first call only, and answers with it", async () => {
  let loads = 0;
  const real: Tool<{ n: number }> = { ...specOf("double"), run: async (input) => String(input.n * 2) };
  const tool = lazyTool(specOf("double"), async () => {
    loads++;
    return real;
  });
  expect(tool.name).toBe("double");
  expect(loads).toBe(0);
  const ctx = {} as ToolContext;
  expect(await Promise.all([tool.run({ n: 2 }, ctx), tool.run({ n: 5 }, ctx)])).toEqual(["4", "10"]);
  expect(await tool.run({ n: 1 }, ctx)).toBe("2");
  expect(loads).toBe(1);
});

test("the model is told the same about run_bash and web_fetch whether they are loaded or not", () => {
  const runBash = createRunBashTool({ sandbox: "off", allowNet: false, allowEnv: [], gitWritable: false });
  const webFetch = createWebFetchTool();
  for (const [spec, tool] of [[runBashSpec, runBash], [webFetchSpec, webFetch]] as const) {
    expect({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }).toEqual({ name: spec.name, description: spec.description, inputSchema: spec.inputSchema });
  }
});

test("run_bash's summary escapes control characters and cuts long commands", () => {
  expect(runBashSpec.summarize({ command: "echo \x1b[31mred", description: "paint" })).toBe("echo \\x1b[31mred  (paint)");
  const long = runBashSpec.summarize({ command: "x".repeat(300) });
  expect(long).toHaveLength(100);
  expect(long.endsWith("…")).toBe(true);
  expect(webFetchSpec.summarize({ url: "https://a.test/\x07", offset: 20 })).toBe("https://a.test/\\x07 (from 20)");
});

function specOf(name: string) {
  return { name, description: "doubles n", inputSchema: { type: "object" as const, properties: { n: { type: "integer" as const } } }, summarize: () => name };
}

test("a lazy tool offered without a summary line summarizes with its code once ready; a failed load answers the call with the error, not the ready", async () => {
  const { summarize: _, ...offer } = specOf("double");
  const tool = lazyTool<{ n: number }>(offer, async () => ({ ...specOf("double"), summarize: (input) => `n=${input.n}`, run: async (input) => String(input.n * 2) }));
  expect(tool.summarize({ n: 3 })).toBe("");
  await tool.ready!();
  expect(tool.summarize({ n: 3 })).toBe("n=3");
  const broken = lazyTool<{ n: number }>(offer, async () => {
    throw new Error("chunk missing");
  });
  await broken.ready!();
  await expect(broken.run({ n: 1 }, {} as ToolContext)).rejects.toThrow("chunk missing");
});
