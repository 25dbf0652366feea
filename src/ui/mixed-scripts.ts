// Letters that pass for others. A Cyrillic "о" in `https://gооgle.com` looks
// exactly like the Latin "o" it imitates: escaping (escape.ts) cannot show it,
// because it shows itself, only as the wrong letter. Where text reaches the
// person for a decision (a diff, a command, a URL or host, MCP arguments), a
// word that mixes scripts the way a spoof does has its odd letters marked and
// named in a note, and a host with letters beyond ASCII is also given in the
// form DNS resolves (punycode), which shows the difference in plain ASCII.
// Scripts may mix where writing really does mix them (Unicode TR39's
// "moderately restrictive" level): Japanese (Han, kana) and Korean and Chinese
// with Latin, and Latin with any script that has no Latin lookalikes (Hebrew,
// Arabic, Devanagari…). A whole Russian or Greek word is one script: fine.
// Input is text as it will be shown: already escaped, no colour codes.
import type * as Url from "node:url";

/** node:url, looked up when a host is first checked rather than loaded with every run. */
const url = () => process.getBuiltinModule("node:url") as typeof Url;

/** Scripts told apart; a letter in none of them counts as "Other". Common and Inherited (digits, marks, punctuation) count as none. */
const SCRIPTS = [
  "Latin", "Cyrillic", "Greek", "Armenian", "Cherokee", "Coptic", "Georgian", "Hebrew", "Arabic", "Syriac", "Thaana",
  "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala", "Thai", "Lao",
  "Tibetan", "Myanmar", "Khmer", "Ethiopic", "Mongolian", "Han", "Hiragana", "Katakana", "Bopomofo", "Hangul",
] as const;
type Script = (typeof SCRIPTS)[number] | "Other";
/** One test per script, made when a letter beyond ASCII is first looked at (32 regular expressions cost every run 0.2 ms to build). */
let scriptTests: (readonly [Script, RegExp])[] | undefined;
const SCRIPT_TESTS = () => (scriptTests ??= SCRIPTS.map((name) => [name, new RegExp(`^\\p{Script=${name}}$`, "u")] as const));

/** Scripts with letters that look like Latin ones: mixed with Latin (or with each other), a word may be a spoof. */
const LOOKALIKE = new Set<Script>(["Cyrillic", "Greek", "Armenian", "Cherokee", "Coptic"]);
/** Script sets that real writing mixes in one word (TR39: Japanese, Chinese, Korean, each with Latin). */
const WRITTEN_TOGETHER: Set<Script>[] = [
  new Set(["Latin", "Han", "Hiragana", "Katakana"]),
  new Set(["Latin", "Han", "Bopomofo"]),
  new Set(["Latin", "Han", "Hangul"]),
];

const WORD = /[\p{L}\p{M}\p{N}_]+/gu;
const LETTER = /^\p{L}$/u;
const ONLY_ASCII = /^[\x00-\x7f]*$/;
/** A host name: labels of letters, digits and hyphens joined by dots. */
const HOST = /(?<![\p{L}\p{N}.-])(?:[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?\.)+[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}]/gu;
/** Notes shown at most; the rest counted. */
const MAX_NOTES = 5;

export interface MixedScripts {
  /** Where each odd letter starts in the text (UTF-16 offsets), in order. */
  at: number[];
  /** One line per word with odd letters, naming each (`mixed scripts in "gооgle": о is CYRILLIC SMALL LETTER O U+043E`), and per host its punycode form. */
  notes: string[];
}

/** The odd letters of `text` and what to say about them; null when there is nothing to say (almost all text). */
export function mixedScripts(text: string): MixedScripts | null {
  if (ONLY_ASCII.test(text)) return null;
  const at: number[] = [];
  const words = new Set<string>();
  for (const m of text.matchAll(WORD)) {
    const odd = oddInWord(m[0]);
    if (odd.length === 0) continue;
    at.push(...odd.map((i) => m.index + i));
    const named = [...new Set(odd.map((i) => String.fromCodePoint(m[0].codePointAt(i)!)))].map(describeLetter);
    words.add(`mixed scripts in "${clip(m[0])}", mostly ${mainScript(m[0])}: ${named.join(", ")}`);
  }
  const hosts = [...new Set([...text.matchAll(HOST)].filter((m) => looksLikeHost(m[0], text.slice(0, m.index), text.slice(m.index + m[0].length))).map((m) => m[0]))].flatMap((host) => {
    const ascii = url().domainToASCII(host);
    return ascii && ascii !== host ? [`host ${clip(host)} is ${ascii} (punycode: the name DNS looks up)`] : [];
  });
  const notes = [...words, ...hosts];
  if (notes.length === 0) return null;
  const shown = notes.length > MAX_NOTES ? [...notes.slice(0, MAX_NOTES - 1), `… and ${notes.length - MAX_NOTES + 1} more words of mixed scripts`] : notes;
  return { at, notes: shown };
}

/**
 * `text` with its odd letters marked (reverse video and underline; nothing on a plain screen, where the
 * notes alone say it) and the notes. For text shown whole on one line: a command, a host, an argument.
 */
export function markMixedScripts(text: string, color: boolean): { text: string; notes: string[] } {
  const found = mixedScripts(text);
  if (!found) return { text, notes: [] };
  return { text: color ? markAt(text, found.at, false) : text, notes: found.notes };
}

/**
 * Marks the letters starting at `at` (offsets into `text`). `inverse`: the text is shown in reverse video
 * already (a changed word in a diff): the mark turns it off for the letter instead, so the letter still stands out.
 */
export function markAt(text: string, at: Iterable<number>, inverse: boolean): string {
  const [on, off] = inverse ? ["\x1b[27;4m", "\x1b[24;7m"] : ["\x1b[7;4m", "\x1b[27;24m"];
  let out = "";
  let from = 0;
  for (const i of at) {
    if (i < from || i >= text.length) continue;
    const end = i + (text.codePointAt(i)! > 0xffff ? 2 : 1);
    out += text.slice(from, i) + on + text.slice(i, end) + off;
    from = end;
  }
  return out + text.slice(from);
}

/** Offsets of the letters of `word` outside its main script, when its scripts mix as a spoof's do. */
function oddInWord(word: string): number[] {
  if (ONLY_ASCII.test(word)) return [];
  const { letters, count } = lettersOf(word);
  if (count.size < 2 || !mixesAsSpoof(new Set(count.keys()))) return [];
  const main = mainOf(count);
  return letters.filter((l) => l.script !== main).map((l) => l.i);
}

/** The script most letters are in is the word's; a tie goes to Latin (what a spoof imitates). */
function mainOf(count: Map<Script, number>): Script {
  return [...count.entries()].sort((a, b) => b[1] - a[1] || Number(b[0] === "Latin") - Number(a[0] === "Latin"))[0]![0];
}

function mainScript(word: string): Script {
  return mainOf(lettersOf(word).count);
}

function lettersOf(word: string): { letters: { i: number; script: Script }[]; count: Map<Script, number> } {
  const letters: { i: number; script: Script }[] = [];
  const count = new Map<Script, number>();
  for (let i = 0; i < word.length; ) {
    const ch = String.fromCodePoint(word.codePointAt(i)!);
    const script = LETTER.test(ch) ? scriptOf(ch) : null;
    if (script) {
      letters.push({ i, script });
      count.set(script, (count.get(script) ?? 0) + 1);
    }
    i += ch.length;
  }
  return { letters, count };
}

function mixesAsSpoof(scripts: Set<Script>): boolean {
  if (WRITTEN_TOGETHER.some((set) => [...scripts].every((s) => set.has(s)))) return false;
  // Latin and one script with no Latin lookalikes (an English word in Hebrew text, say).
  if (scripts.size === 2 && scripts.has("Latin")) return [...scripts].some((s) => LOOKALIKE.has(s) || s === "Other");
  return true;
}

function scriptOf(letter: string): Script | null {
  for (const [name, test] of SCRIPT_TESTS()) if (test.test(letter)) return name;
  // Mathematical letters (𝐚, 𝖺) are of no script, yet read as Latin or Greek ones: a script of their own here.
  const code = letter.codePointAt(0)!;
  if (code >= 0x1d400 && code <= 0x1d7ff) return "Other";
  // Letters of Common or Inherited script (rare: ª, º) belong to no word's script.
  return /^[\p{Script=Common}\p{Script=Inherited}]$/u.test(letter) ? null : "Other";
}

/**
 * A dotted name with letters beyond ASCII that is a host: after `://` or `@`, or starting `www.`, or the
 * whole text with a port (a host asked about: `name:443`). A file name (`файл.txt`) or a sentence run into the next
 * without a space is none of these.
 */
function looksLikeHost(name: string, before: string, after: string): boolean {
  if (ONLY_ASCII.test(name)) return false;
  return before.endsWith("://") || before.endsWith("@") || /^www\./i.test(name) || (before === "" && /^:\d+$/.test(after));
}

function clip(word: string): string {
  return word.length > 40 ? `${word.slice(0, 39)}…` : word;
}

/** `о is CYRILLIC SMALL LETTER O U+043E`: the Unicode name where bunker knows it, else the script. */
function describeLetter(ch: string): string {
  const code = ch.codePointAt(0)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  const name = letterName(code);
  if (name) return `${ch} is ${name} ${hex}`;
  const script = scriptOf(ch);
  const kind = code >= 0x1d400 && code <= 0x1d7ff ? "a mathematical letter" : script && script !== "Other" ? `a ${script} letter` : "a letter of another script";
  return `${ch} is ${kind} ${hex}`;
}

// The Unicode names of the letters a spoof uses most: Latin's, the basic Cyrillic and Greek alphabets, and
// the Cyrillic and Armenian letters made to look like Latin ones. Others are named by script and code point.
const CYRILLIC_EXTRA = ["IE WITH GRAVE", "IO", "DJE", "GJE", "UKRAINIAN IE", "DZE", "BYELORUSSIAN-UKRAINIAN I", "YI", "JE", "LJE", "NJE", "TSHE", "KJE", "I WITH GRAVE", "SHORT U", "DZHE"];
const CYRILLIC_BASIC = [
  "A", "BE", "VE", "GHE", "DE", "IE", "ZHE", "ZE", "I", "SHORT I", "KA", "EL", "EM", "EN", "O", "PE",
  "ER", "ES", "TE", "U", "EF", "HA", "TSE", "CHE", "SHA", "SHCHA", "HARD SIGN", "YERU", "SOFT SIGN", "E", "YU", "YA",
];
const GREEK = ["ALPHA", "BETA", "GAMMA", "DELTA", "EPSILON", "ZETA", "ETA", "THETA", "IOTA", "KAPPA", "LAMDA", "MU", "NU", "XI", "OMICRON", "PI", "RHO", "FINAL SIGMA", "SIGMA", "TAU", "UPSILON", "PHI", "CHI", "PSI", "OMEGA"];
const OTHERS: Record<number, string> = {
  0x04bb: "CYRILLIC SMALL LETTER SHHA",
  0x04ba: "CYRILLIC CAPITAL LETTER SHHA",
  0x04c0: "CYRILLIC LETTER PALOCHKA",
  0x04cf: "CYRILLIC SMALL LETTER PALOCHKA",
  0x0501: "CYRILLIC SMALL LETTER KOMI DE",
  0x051b: "CYRILLIC SMALL LETTER QA",
  0x051d: "CYRILLIC SMALL LETTER WE",
  0x03f2: "GREEK LUNATE SIGMA SYMBOL",
  0x03f3: "GREEK LETTER YOT",
  0x0561: "ARMENIAN SMALL LETTER AYB",
  0x0570: "ARMENIAN SMALL LETTER HO",
  0x0578: "ARMENIAN SMALL LETTER VO",
  0x057d: "ARMENIAN SMALL LETTER SEH",
  0x0585: "ARMENIAN SMALL LETTER OH",
};

function letterName(code: number): string | undefined {
  if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) {
    return `LATIN ${code < 0x61 ? "CAPITAL" : "SMALL"} LETTER ${String.fromCharCode(code).toUpperCase()}`;
  }
  if (code >= 0x400 && code <= 0x40f) return `CYRILLIC CAPITAL LETTER ${CYRILLIC_EXTRA[code - 0x400]}`;
  if (code >= 0x410 && code <= 0x42f) return `CYRILLIC CAPITAL LETTER ${CYRILLIC_BASIC[code - 0x410]}`;
  if (code >= 0x430 && code <= 0x44f) return `CYRILLIC SMALL LETTER ${CYRILLIC_BASIC[code - 0x430]}`;
  if (code >= 0x450 && code <= 0x45f) return `CYRILLIC SMALL LETTER ${CYRILLIC_EXTRA[code - 0x450]}`;
  // U+03A2 is unassigned (there is no capital final sigma).
  if (code >= 0x391 && code <= 0x3a9 && code !== 0x3a2) return `GREEK CAPITAL LETTER ${GREEK[code - 0x391]}`;
  if (code >= 0x3b1 && code <= 0x3c9) return `GREEK SMALL LETTER ${GREEK[code - 0x3b1]}`;
  return OTHERS[code];
}

/** `host:port` as it reads: a punycode label (`xn--ggle-55da.com`) in its Unicode form (`gооgle.com`); an address as it is. */
export function readableHost(target: string): string {
  if (!target.includes("xn--") || target.startsWith("[")) return target;
  const colon = target.lastIndexOf(":");
  const [name, port] = colon > 0 ? [target.slice(0, colon), target.slice(colon)] : [target, ""];
  const readable = url().domainToUnicode(name);
  return readable ? readable + port : target;
}

/**
 * For a refusal that names a host to grant (headless: the line a script's author copies): a warning when the host
 * reads as something else (a punycode name whose letters mix scripts), or "".
 */
export function hostWarning(target: string): string {
  const host = readableHost(target);
  const notes = mixedScripts(host)?.notes.filter((n) => n.startsWith("mixed scripts")) ?? [];
  return notes.length === 0 ? "" : ` Careful: ${target} reads as ${host} (${notes.join("; ")}): make sure it is the host you mean before granting it.`;
}
