// What the person is told of a read or a search whose result the model got only part of (a new user's F19: the
// model was told the result was cut, the screen said nothing): a line under the tool's own line, in a headless
// run's stderr and at the prompt alike.
import { describe, expect, test } from "bun:test";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, toolResults } from "../support/cli.ts";
import { tmuxAvailable } from "../support/tmux.ts";

const e2e = endToEnd("bunker-toollines-");

const lines = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i + 1)).join("\n") + "\n";
const files = {
  "huge.log": lines(9001, (i) => (i % 3 === 0 ? "ERROR x" : "ok")),
  "wide.log": lines(300, (i) => `line ${i} ${"w".repeat(200)}`),
  "small.txt": "one\ntwo\n",
  ...Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`many/f${i}.txt`, ""])),
};

describe("a result the model got only part of says so under the tool's line", () => {
  test("read_file, grep, glob and list_files, cut or not", async () => {
    const calls = [
      toolUse("read_file", { path: "huge.log" }),
      toolUse("read_file", { path: "wide.log" }),
      toolUse("read_file", { path: "huge.log", offset: 100, limit: 10 }),
      toolUse("read_file", { path: "small.txt" }),
      toolUse("grep", { pattern: "ERROR", path: "huge.log" }),
      toolUse("glob", { pattern: "many/*.txt" }),
      toolUse("list_files", { path: "many" }),
    ];
    const { fake, run } = await e2e.headless([reply(calls), reply("done")], ["-p", "go"], files);
    expect(run.code).toBe(0);
    const err = run.stderr;
    // Under each cut result's line, what the model got of it.
    expect(err).toContain("  read_file huge.log\n    … first 2,000 lines of 9,001\n");
    expect(err).toMatch(/ {2}read_file wide\.log\n {4}… first \d\d lines of 300 \(the output limit, about 20 KB\)\n/);
    expect(err).toContain("  read_file huge.log:100\n    … lines 100-109 of 9,001\n");
    expect(err).toContain("  read_file small.txt\n  grep");
    expect(err).toMatch(/ {2}grep \/ERROR\/ in huge\.log\n {4}… first \d{3} lines of matches; more exist\n/);
    expect(err).toContain("    … the 500 newest of 600 files\n");
    expect(err).toContain("    … first 500 entries; the listing stopped there\n");
    // What the model was told, for comparison: the same cut, with how to read on.
    const told = toolResults(fake.requests[1]).map((r) => r.content.split("\n").at(-1));
    expect(told[0]).toBe("[showing lines 1-2000 of 9001 (line limit reached); to read on, use offset=2001]");
    expect(told[3]).toBe("2\ttwo");
  });

  test.skipIf(!tmuxAvailable)("at the prompt too", async () => {
    e2e.serve([reply([toolUse("read_file", { path: "huge.log" })]), reply("done")]);
    const { root, env } = e2e.workspace(files);
    const t = await e2e.terminal(BUNKER, { cwd: root, env, cols: 80, rows: 20 });
    await t.waitFor(/\n› *\n/);
    t.keys(["read it"], true);
    t.keys(["Enter"]);
    await t.waitFor("done");
    expect(t.screen()).toContain("  read_file huge.log\n    … first 2,000 lines of 9,001\n");
  });
});
