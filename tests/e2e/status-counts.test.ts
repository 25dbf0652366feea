// The status line's output count in a real terminal (tmux): it moves while a reply streams (estimated from
// what arrived, marked ≈), becomes the reply's own count when it ends, and an interrupted reply keeps what
// arrived, marked ≈, in the status line and in /cost alike (new user 10's F3, F22).
import { describe, expect, test } from "bun:test";
import { reply } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, quitWithCtrlD, waitForCount } from "../support/cli.ts";
import { tmuxAvailable } from "../support/tmux.ts";
import { until } from "../support/wait.ts";

const e2e = endToEnd("bunker-counts-");
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");
/** The output count the status line shows now, and whether it is marked as an estimate. */
const outShown = (screen: string) => {
  const m = [...screen.matchAll(/· (≈?)(\d+) out/g)].at(-1);
  return m ? { estimate: m[1] === "≈", n: Number(m[2]) } : null;
};

describe.skipIf(!tmuxAvailable)("output tokens on the status line", () => {
  test("while a reply streams the count grows (≈); at its end it is the reply's own; Escape keeps what arrived, ≈ in /cost too", async () => {
    const slow = { eventDelayMs: 40, chunkSize: 16 };
    e2e.serve([
      reply(words(60), "end_turn", { ...slow, usage: { input_tokens: 100, output_tokens: 321 } }),
      reply(words(400), "end_turn", { ...slow, usage: { input_tokens: 100, output_tokens: 5000 } }),
    ]);
    const { root, env } = e2e.workspace();
    const t = await e2e.terminal([...BUNKER, "first"], { cwd: root, env, cols: 120, rows: 30 });
    // Mid-stream: more than message_start's 1, and said to be an estimate.
    const mid = await until(() => {
      const o = outShown(t.visible());
      return o && o.n > 20 && !t.visible().includes("word59") ? o : null;
    }, "the count moving mid-stream");
    expect(mid.estimate).toBe(true);
    await waitForCount(t, "word59", 1);
    // Ended: the reply's own count, not an estimate.
    await until(() => (outShown(t.visible())?.n === 321 ? true : null), "the reply's own count");
    expect(outShown(t.visible())!.estimate).toBe(false);

    t.keys(["second"], true);
    t.keys(["Enter"]);
    await until(() => ((outShown(t.visible())?.n ?? 0) > 321 + 30 ? true : null), "the second reply streaming");
    t.keys(["Escape"]);
    await t.waitFor("›");
    await Bun.sleep(300);
    const after = outShown(t.visible())!;
    // What arrived is counted (about 4 characters a token), not the 5000 it would have been, nor nothing.
    expect(after.estimate).toBe(true);
    expect(after.n).toBeGreaterThan(321 + 30);
    expect(after.n).toBeLessThan(321 + 1000);
    t.keys(["/cost"], true);
    t.keys(["Enter"]);
    const screen = await t.waitFor(/tokens in \(0 from cache\), ≈\d+ out/);
    expect(Number(/tokens in \(0 from cache\), ≈(\d+) out/.exec(screen)![1])).toBe(after.n);
    expect(await quitWithCtrlD(t)).not.toBeNull();
  }, 40_000);
});
