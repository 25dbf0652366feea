// The one escaping function: text from the model, from files or from the
// disk is made safe and honest to print on a terminal. A control character
// could move the cursor, recolour or erase the screen, or set the clipboard
// (OSC 52); an invisible one could make what is approved differ from what is
// shown (`'admin'` that is `'admin\u200d'`, `notes.txt` with U+061C in it, a
// Hangul filler that also breaks a border). Every character that does not
// show itself is printed as a visible escape (`\x1b`, `\r`, `\u200d`,
// `\u{e0041}`): C0/C1 controls and DEL, format characters (Cf: bidi marks,
// overrides and isolates, zero-width joiners and spaces, the soft hyphen,
// U+061C, tag characters), line and paragraph separators (Zl, Zp), the
// default-ignorable set (fillers like U+3164, variation selectors) and lone
// surrogates. Emoji sequences stay whole: the joiners, selectors and tags
// inside a recommended emoji (👨‍👩‍👧, ❤️, 🏴󠁧󠁢󠁳󠁣󠁴󠁿) draw that emoji.

/** Characters that do not show themselves. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Cs}]/u;
const INVISIBLE_ALL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Cs}]/gu;
/** The same without newline and tab, for callers that keep them. */
const INVISIBLE_BUT_NL_TAB = /[^\P{Cc}\n\t]|[\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Cs}]/u;
const INVISIBLE_BUT_NL = /[^\P{Cc}\n]|[\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Cs}]/u;
const INVISIBLE_BUT_TAB = /[^\P{Cc}\t]|[\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Cs}]/u;
/** A whole emoji as Unicode recommends it (ZWJ sequences, flags, keycaps, modifiers, tag sequences). */
const RGI_EMOJI = /^\p{RGI_Emoji}$/v;

/** Anything but printable ASCII, newline and tab: text without it has nothing to escape (but perhaps a newline or tab), and needs no Unicode table. */
const NOT_PLAIN = /[^\x20-\x7e\n\t]/;

const NAMED: Record<string, string> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

export interface EscapeOptions {
  /** Leave newlines as they are (for multi-line text). Default false. */
  keepNewlines?: boolean;
  /** Leave tabs as they are. Default false. */
  keepTabs?: boolean;
}

let segmenter: Intl.Segmenter | undefined;

/** SGR sequences (colour and style: ESC [ digits and semicolons m) and nothing else. */
const SGR = /\x1b\[[0-9;]*m/g;
/** An SGR that ends styling: ESC[m, ESC[0m (0 among its parameters), or only "back to default" parameters (39, 49, 22-29). */
const RESET = /^\x1b\[(?:(?:\d*;)*0?(?:;\d*)*|(?:(?:39|49|2[2-9]);?)+)m$/;

/**
 * Command output as the person reads it: its colours dropped (shown escaped they read as `\x1b[31m` noise).
 * Only colouring goes: on a line whose styling is closed again (its last SGR a reset after one that styled),
 * as programs colour. An SGR that styles and is never closed on its line, or a reset with nothing styled, is
 * not colouring but bytes of the text (a file named `\x1b[31mred.txt` that `ls` lists): it stays, for
 * escapeControl to show escaped. Every other escape is escaped by escapeControl after.
 */
export function stripSgr(text: string): string {
  if (!text.includes("\x1b[")) return text;
  return text
    .split("\n")
    .map((line) => {
      const seqs = line.match(SGR);
      if (!seqs) return line;
      const closed = RESET.test(seqs.at(-1)!) && seqs.some((q) => !RESET.test(q));
      return closed ? line.replace(SGR, "") : line;
    })
    .join("\n");
}

/** Text up to this long is checked for plain ASCII with a loop, longer text with NOT_PLAIN. */
const LOOP_CHECK_MAX = 256;

/** NOT_PLAIN.test(text), without a regular expression for short text (see isPlain). */
function hasNotPlain(text: string): boolean {
  if (text.length > LOOP_CHECK_MAX) return NOT_PLAIN.test(text);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7e || (c < 0x20 && c !== 0x0a && c !== 0x09)) return true;
  }
  return false;
}

export function escapeControl(text: string, opts: EscapeOptions = {}): string {
  // Most text is plain ASCII: answered without the Unicode property tables (the first use of each costs 0.05 ms or more).
  // A short line (a tool's one-line summary) is looked at with a loop: a read-only headless turn then compiles no
  // regular expression at all (the engine's first costs about 0.1 ms; jit.ts).
  if (!hasNotPlain(text) && (opts.keepNewlines || !text.includes("\n")) && (opts.keepTabs || !text.includes("\t"))) return text;
  const check = opts.keepNewlines ? (opts.keepTabs ? INVISIBLE_BUT_NL_TAB : INVISIBLE_BUT_NL) : opts.keepTabs ? INVISIBLE_BUT_TAB : INVISIBLE;
  // Almost all text has nothing to escape: no segmenting for it.
  if (!check.test(text)) return text;
  const escape = (ch: string) => {
    if (ch === "\n" && opts.keepNewlines) return ch;
    if (ch === "\t" && opts.keepTabs) return ch;
    return escapeChar(ch);
  };
  // Only a character inside a whole emoji keeps its meaning; anywhere else it is escaped.
  if (!/\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u.test(text)) return text.replace(INVISIBLE_ALL, escape);
  let out = "";
  for (const { segment } of (segmenter ??= new Intl.Segmenter()).segment(text)) {
    out += segment.length > 1 && RGI_EMOJI.test(segment) ? segment : segment.replace(INVISIBLE_ALL, escape);
  }
  return out;
}

/**
 * A command's output as the person reads it: escaped, newlines kept, and each tab turned into the spaces a terminal
 * would show for it (to the next multiple of 8 columns in its line): `du`'s `36K\t/path` or `make`'s tables read as
 * they do in a shell, where `\t` would read as a backslash and a t the program printed (new user).
 */
export function escapeOutput(text: string): string {
  const safe = escapeControl(text, { keepNewlines: true, keepTabs: true });
  if (!safe.includes("\t")) return safe;
  return safe
    .split("\n")
    .map((line) => {
      if (!line.includes("\t")) return line;
      let out = "";
      let width = 0;
      for (const [i, piece] of line.split("\t").entries()) {
        if (i > 0) {
          const pad = 8 - (width % 8);
          out += " ".repeat(pad);
          width += pad;
        }
        out += piece;
        width += Bun.stringWidth(piece);
      }
      return out;
    })
    .join("\n");
}

/** `\n`, `\x1b`, `\u200d`, `\u{e0041}`: how one invisible character is shown. */
function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\u{${code.toString(16)}}`;
}
