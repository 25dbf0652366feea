// The bell, the notification and the title that say bunker waits for the person.
import { expect, test } from "bun:test";
import { Attention, attentionCodes } from "../../../src/ui/attention.ts";

test("a bell always; OSC 9 only where the terminal shows it, never inside tmux; the title escaped", () => {
  expect(attentionCodes("done", "waiting: bunker", {})).toBe("\x1b]2;waiting: bunker\x07\x07");
  for (const env of [{ TERM_PROGRAM: "iTerm.app" }, { TERM_PROGRAM: "WezTerm" }, { TERM_PROGRAM: "ghostty" }, { WT_SESSION: "1" }]) {
    expect(attentionCodes("done", "t", env)).toBe("\x1b]2;t\x07\x1b]9;done\x07\x07");
  }
  expect(attentionCodes("done", "t", { TERM_PROGRAM: "iTerm.app", TMUX: "/tmp/tmux-0/default,1,0" })).toBe("\x1b]2;t\x07\x07");
  // A folder named to end the sequence and run another cannot.
  expect(attentionCodes("done", "waiting: bunker · a\x07\x1b]0;owned", {})).toBe("\x1b]2;waiting: bunker · a\\x07\\x1b]0;owned\x07\x07");
});

test("a question signals at once, a turn only when it was long; the answer puts the title back, once", () => {
  let out = "";
  const a = new Attention({ write: (s: string) => (out += s) }, { afterMs: 10_000, name: "proj", env: {} });
  a.turnEnded(9_999);
  expect(out).toBe("");
  a.answered();
  expect(out).toBe("");
  a.question();
  // The terminal's own title saved on its stack, bunker's set, the bell.
  expect(out).toBe("\x1b[22;2t\x1b]2;waiting: bunker · proj\x07\x07");
  out = "";
  a.answered();
  expect(out).toBe("\x1b]2;bunker · proj\x07\x1b[23;2t");
  out = "";
  a.answered();
  expect(out).toBe("");
  a.turnEnded(10_000);
  expect(out).toContain("\x07");
});
