// Start-up runs a great deal of code once (flags, settings, permissions,
// building the app, the first request and its reply): JavaScriptCore compiles
// some of it for nothing. Until start-up is over its tier-up thresholds are
// scaled up (Bun.unsafe.setJITPolicy), so such code stays in the interpreter;
// then the normal policy comes back. A headless run (-p) is start-up to its
// end: its code runs once or a few times, and what repeats for long (a grep
// over a large tree) still gets compiled, only after 8 times as many runs.
// Measured in the compiled binary: 1.7 ms of CPU and 1.1 ms of wall time off
// a headless turn of two model calls and one tool (README, Benchmarks).
export const STARTUP_JIT_SCALE = 8;
//
// The array and object helpers JavaScriptCore writes in JavaScript (.at,
// .some, .find, .flatMap, .map, .filter, Object.fromEntries, Array.from…) are
// compiled on their first call in each process, 20-160 µs each (map and filter
// together 0.18 ms). The code a read-only headless turn runs uses plain loops
// and indexing instead: 0.2-0.4 ms of CPU, measured in the binary. It compiles
// no regular expression either (the engine's first costs about 0.1 ms): short
// text is checked with loops. Nor does it set up the Buffer global (about
// 0.2 ms): JavaScriptCore looks a global up when it links a function that
// names it, so a function a read-only turn runs must not name Buffer even in a
// branch it does not take (read_file reads into a Uint8Array: text/utf8.ts).
// tests/e2e/binary-turn.test.ts holds all three.

let over = false;

/** Start-up begins: code that runs once stays in the interpreter longer. */
export function startupBegins(): void {
  if (!over) Bun.unsafe.setJITPolicy(STARTUP_JIT_SCALE);
}

/** Start-up is over (the REPL waits for the person): the normal JIT policy from now on. */
export function startupOver(): void {
  if (over) return;
  over = true;
  Bun.unsafe.setJITPolicy(1);
}
