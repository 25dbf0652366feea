// A commit's id as git itself reads one from a ref file, HEAD, a pseudo-ref or a reflog line: 40 (SHA-1) or 64
// (SHA-256) hex digits in either case (git's get_oid_hex takes A-F as well as a-f), ended by the text's end or
// whitespace. Returned in the lower case git prints, so it compares with what git's commands say. A check that took
// lower case only missed a forged reflog line and an ORIG_HEAD written in upper case, and git still followed them
// (red team 12's F02): every reader of such a file in src/sandbox/ goes through here.

/** The id that starts `text` as git reads it (the rest of the line after whitespace is git's to ignore), or null. */
export function idAtStart(text: string): string | null {
  const n = hexRun(text);
  if (n !== 40 && n !== 64) return null;
  const next = text.charCodeAt(n);
  // NaN: the text ends there.
  if (!Number.isNaN(next) && next !== 0x20 && next !== 0x09 && next !== 0x0a && next !== 0x0d) return null;
  return text.slice(0, n).toLowerCase();
}

/** Whether `word` is an id, whole. */
export function isId(word: string): boolean {
  const n = hexRun(word);
  return n === word.length && (n === 40 || n === 64);
}

/** How many hex digits (either case) `text` starts with. A loop, not a regular expression: see jit.ts. */
function hexRun(text: string): number {
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const hex = (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
    if (!hex) break;
  }
  return i;
}

/**
 * Where a symbolic ref's text points, as git reads it: `ref:`, any whitespace or none (`ref:refs/x` and a tab are
 * git's too: reviewer's R12-02), then the name up to whitespace. Null for text that is not a symbolic ref.
 */
export function refTarget(text: string): string | null {
  if (!text.startsWith("ref:")) return null;
  let i = 4;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  let j = i;
  while (j < text.length && !isSpace(text.charCodeAt(j))) j++;
  return j > i ? text.slice(i, j) : null;
}

/** C's isspace: space, tab, newline, vertical tab, form feed, carriage return. */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}
