// The JIT policy over start-up: scaled up when it begins, back to normal once
// it is over, and never scaled up again after that.
import { expect, spyOn, test } from "bun:test";
import { STARTUP_JIT_SCALE, startupBegins, startupOver } from "../../src/jit.ts";

test("start-up scales the JIT policy up; once over it is normal and stays so", () => {
  const policy = spyOn(Bun.unsafe, "setJITPolicy");
  try {
    startupBegins();
    startupOver();
    startupOver();
    startupBegins();
    expect(policy.mock.calls).toEqual([[STARTUP_JIT_SCALE], [1]]);
    expect(STARTUP_JIT_SCALE).toBeGreaterThan(1);
  } finally {
    policy.mockRestore();
  }
});
