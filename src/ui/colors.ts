// Terminal colours, as picocolors gives them (the same API, the same choice
// of when), without its cost: picocolors reads process.stdout.isTTY when it
// is loaded, which builds Node's stream machinery (about 2 ms) in every run,
// a headless turn that prints one line included.
import { isTerminal } from "./is-terminal.ts";

export interface Colors {
  isColorSupported: boolean;
  bold(text: string): string;
  dim(text: string): string;
  inverse(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/** picocolors' rule: NO_COLOR or --no-color say no; FORCE_COLOR, --color, Windows, a terminal on stdout (not TERM=dumb) or CI say yes. */
function colorSupported(): boolean {
  const { argv, env } = process;
  if (env.NO_COLOR || argv.includes("--no-color")) return false;
  return Boolean(env.FORCE_COLOR) || argv.includes("--color") || process.platform === "win32" || (isTerminal(1) && env.TERM !== "dumb") || Boolean(env.CI);
}

/** An SGR pair; a close inside the text (a nested colour) is reopened after it, so the outer colour goes on. */
function style(open: string, close: string, replace = open): (text: string) => string {
  return (input) => {
    const text = String(input);
    let index = text.indexOf(close, open.length);
    if (index === -1) return open + text + close;
    let result = "";
    let cursor = 0;
    do {
      result += text.substring(cursor, index) + replace;
      cursor = index + close.length;
      index = text.indexOf(close, cursor);
    } while (index !== -1);
    return open + result + text.substring(cursor) + close;
  };
}

export function createColors(enabled = colorSupported()): Colors {
  const s = enabled ? style : () => (text: string) => String(text);
  return {
    isColorSupported: enabled,
    bold: s("\x1b[1m", "\x1b[22m", "\x1b[22m\x1b[1m"),
    dim: s("\x1b[2m", "\x1b[22m", "\x1b[22m\x1b[2m"),
    inverse: s("\x1b[7m", "\x1b[27m"),
    red: s("\x1b[31m", "\x1b[39m"),
    green: s("\x1b[32m", "\x1b[39m"),
    yellow: s("\x1b[33m", "\x1b[39m"),
    cyan: s("\x1b[36m", "\x1b[39m"),
  };
}

const pc: Colors & { createColors: typeof createColors } = { ...createColors(), createColors };
export default pc;
