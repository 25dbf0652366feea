// Terminal colours (picocolors' API and rule, without its load-time cost):
// the codes, nesting that keeps the outer style, and when colour is on.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { createColors } from "../../../src/ui/colors.ts";

test("each style wraps the text in its SGR codes; off, the text is unchanged", () => {
  const c = createColors(true);
  expect(c.red("x")).toBe("\x1b[31mx\x1b[39m");
  expect(c.yellow("x")).toBe("\x1b[33mx\x1b[39m");
  expect(c.dim("x")).toBe("\x1b[2mx\x1b[22m");
  expect(c.inverse("x")).toBe("\x1b[7mx\x1b[27m");
  const off = createColors(false);
  expect([off.red("x"), off.bold("x"), off.isColorSupported]).toEqual(["x", "x", false]);
});

test("a style nested inside the same kind does not end the outer one early", () => {
  const c = createColors(true);
  // dim and bold share the close code 22: after the inner bold ends, dim is turned back on.
  expect(c.dim(`a ${c.bold("b")} c`)).toBe("\x1b[2ma \x1b[1mb\x1b[22m\x1b[2m c\x1b[22m");
  expect(c.red(`a ${c.green("b")} c`)).toBe("\x1b[31ma \x1b[32mb\x1b[31m c\x1b[39m");
});

/** The default choice in a child with this environment and stdout (a pipe: not a terminal). */
async function defaultChoice(env: Record<string, string>, args: string[] = []): Promise<boolean> {
  const mod = JSON.stringify(join(import.meta.dir, "../../../src/ui/colors.ts"));
  const proc = Bun.spawn([process.execPath, "-e", `import pc from ${mod}; console.log(String(pc.isColorSupported))`, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdout: "pipe" });
  return (await new Response(proc.stdout).text()).trim() === "true";
}

test("colour is off on a pipe and with NO_COLOR, on with FORCE_COLOR or CI (picocolors' rule)", async () => {
  // Side by side: four bun starts in a row took over 30 s with two test suites running beside this one.
  const chosen = await Promise.all([defaultChoice({}), defaultChoice({ FORCE_COLOR: "1" }), defaultChoice({ CI: "true" }), defaultChoice({ FORCE_COLOR: "1", NO_COLOR: "1" })]);
  expect(chosen).toEqual([false, true, true, false]);
});
