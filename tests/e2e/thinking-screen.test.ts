// Thinking in a real terminal (tmux): each block is one dim, folded line
// above the answer, and /thinking brings back the last one whole.
import { expect, test } from "bun:test";
import { BUNKER, endToEnd } from "../support/cli.ts";
import { reply, text, thinking } from "../support/fake-anthropic.ts";

const e2e = endToEnd("bunker-thinking-screen-");

const PLAN = ["The person asks about the greeting.", "First check how greet() is called,", "then whether the tests cover a name.", "DEEP-DETAIL at the end of the plan."].join("\n");

test("a thinking block shows as one dim line; /thinking shows all of it", async () => {
  e2e.serve([reply([thinking(PLAN), text("The greeting takes a name.")])]);
  const ws = e2e.workspace();
  const tmux = await e2e.terminal(BUNKER, { cwd: ws.root, env: ws.env, cols: 80, rows: 40 });
  await tmux.waitFor("›");
  tmux.keys(["how does greet work?"], true);
  tmux.keys(["Enter"]);
  await tmux.waitFor("The greeting takes a name.");
  const screen = tmux.screen();
  const folded = screen.split("\n").filter((l) => l.includes("✻ Thinking:"));
  expect(folded).toHaveLength(1);
  expect(folded[0]).toContain("The person asks about the greeting. First check how");
  expect(folded[0]).toContain("(4 lines)");
  expect(folded[0]!.length).toBeLessThanOrEqual(80);
  expect(screen).not.toContain("DEEP-DETAIL");
  // Dim (SGR 2) on screen.
  expect(tmux.screenWithColours()).toMatch(/\x1b\[2m[^\n]*✻ Thinking:/);
  tmux.keys(["/thinking"], true);
  tmux.keys(["Enter"]);
  await tmux.waitFor("DEEP-DETAIL at the end of the plan.");
  expect(tmux.screen()).toContain("First check how greet() is called,\nthen whether the tests cover a name.");
});
