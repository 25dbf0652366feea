// Waiting on a condition instead of sleeping a fixed time: a test goes on the
// moment what it needs has happened, and on a loaded machine it waits longer
// rather than racing a delay. The deadline is generous because reaching it
// means failure, never a slow pass.

/** Resolves with `check()`'s first truthy value; throws naming `what` if none comes within `timeoutMs`. */
export async function until<T>(check: () => T | Promise<T>, what: string, timeoutMs = 15_000, stepMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(stepMs);
  }
}
