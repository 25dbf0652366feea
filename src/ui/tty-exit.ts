// However bunker ends (a return from main, or SIGTERM/SIGHUP, whose handler
// calls process.exit: see sandbox/process.ts), the terminal is given back as
// it was found: raw mode off, bracketed paste off, the cursor shown, autowrap
// on. The live region and the approval prompt hide the cursor while they
// draw (the region also turns autowrap off), and a signal can come at any
// moment; without this the person's shell is left with no cursor.

/** Bracketed paste off, cursor shown, autowrap on: harmless when they already are. */
export const GIVE_BACK = "\x1b[?2004l\x1b[?25h\x1b[?7h";

export interface TtyIn {
  setRawMode?(mode: boolean): unknown;
}

/** Gives the terminal back at exit until the returned function is called (when its user is done with it). */
export function giveBackAtExit(input: TtyIn, output: { write(text: string): unknown }): () => void {
  const hook = () => {
    output.write(GIVE_BACK);
    input.setRawMode?.(false);
  };
  process.once("exit", hook);
  return () => process.off("exit", hook);
}
