// Command patterns: `git status` (exactly those words) or `bun test *` (and
// any arguments), as rules files, --deny-run and session prefixes name them.
import { isLiteral, type Word } from "../../shell/parse.ts";

export interface RunRules {
  /** Bare flag: every command. */
  all: boolean;
  /** Program names from --allow-run=git,bun. */
  programs: string[];
  /** Rules-file patterns such as `git status` (exactly) or `bun test *` (and any arguments). */
  patterns: string[];
}

export interface CommandPattern {
  words: string[];
  /** Trailing `*`: any further arguments. */
  prefix: boolean;
}

export function parsePattern(pattern: string, forcePrefix = false): CommandPattern | null {
  const words = pattern.trim().split(/\s+/).filter(Boolean);
  let prefix = forcePrefix;
  if (words[words.length - 1] === "*") {
    words.pop();
    prefix = true;
  }
  return words.length > 0 ? { words, prefix } : null;
}

/** The patterns among `texts` that parse (a blank one names nothing). */
export function parsePatterns(texts: string[], forcePrefix = false): CommandPattern[] {
  return texts.map((p) => parsePattern(p, forcePrefix)).filter((p): p is CommandPattern => p !== null);
}

/** Word-for-word: `git status` never matches `git statusx` or `git stat`. */
export function matchesPattern(argv: Word[], p: CommandPattern): boolean {
  if (argv.length < p.words.length) return false;
  if (!p.prefix && argv.length !== p.words.length) return false;
  return p.words.every((w, i) => isLiteral(argv[i]!) && argv[i]!.text === w);
}
