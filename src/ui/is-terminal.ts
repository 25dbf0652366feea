// Whether a standard stream is a terminal, without building Node's stream
// object for it (the first touch of process.stdin/stdout/stderr costs about
// 3 ms in the compiled binary). No imports: main.ts loads this at start-up.

type TtyWrap = { isTTY(fd: number): boolean };
let ttyWrap: TtyWrap | null | undefined;

/** Whether `fd` (0 stdin, 1 stdout, 2 stderr) is a terminal: what `process.stdin.isTTY` says, without building the stream. */
export function isTerminal(fd: number): boolean {
  if (ttyWrap === undefined) {
    try {
      ttyWrap = (process as unknown as { binding(name: string): TtyWrap }).binding("tty_wrap");
    } catch {
      ttyWrap = null;
    }
  }
  if (ttyWrap) return ttyWrap.isTTY(fd);
  // A runtime without the binding: Node's own answer (the slow path; loaded only here, never at start-up).
  const { isatty } = process.getBuiltinModule("node:tty") as typeof import("node:tty");
  return isatty(fd);
}
