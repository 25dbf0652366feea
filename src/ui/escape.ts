// Makes text from the model or from files safe to print on a terminal. A
// control character could move the cursor, recolour or erase the screen, or
// hide what is really being approved, so every one is shown as a visible
// escape (`\x1b`, `\r`, `\u202e`). Used by everyone who displays model text.

/**
 * C0 controls, DEL, C1 controls, bidi overrides and isolates ("Trojan
 * Source"), line/paragraph separators and the BOM / zero-width no-break space.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

const NAMED: Record<string, string> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

export interface EscapeOptions {
  /** Leave newlines as they are (for multi-line text). Default false. */
  keepNewlines?: boolean;
  /** Leave tabs as they are. Default false. */
  keepTabs?: boolean;
}

export function escapeControl(text: string, opts: EscapeOptions = {}): string {
  return text.replace(UNSAFE, (ch) => {
    if (ch === "\n" && opts.keepNewlines) return ch;
    if (ch === "\t" && opts.keepTabs) return ch;
    const named = NAMED[ch];
    if (named) return named;
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
