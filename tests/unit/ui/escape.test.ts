// The one escaping function, over a table of every kind of character that
// does not show itself, and the ones that must stay as they are.
import { describe, expect, test } from "bun:test";
import { escapeControl, stripSgr } from "../../../src/ui/escape.ts";

/** Any character that does not show itself, emoji parts included (so only for text without emoji). */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Cs}]/u;

const ESCAPED: [string, string, string][] = [
  ["C0 control: ESC (cursor moves, colours, OSC 52 clipboard)", "a\x1b]52;c;Y3VybA==\x07b", "a\\x1b]52;c;Y3VybA==\\x07b"],
  ["C0 control: NUL, BEL, backspace", "\x00\x07\x08", "\\x00\\x07\\x08"],
  ["carriage return (hides what came before it)", "cd build\r", "cd build\\r"],
  ["newline and tab, unless kept", "a\nb\tc", "a\\nb\\tc"],
  ["DEL", "a\x7fb", "a\\x7fb"],
  ["C1 control: CSI", "a\x9b2Jb", "a\\x9b2Jb"],
  ["zero-width space (Cf)", "no\u200bte", "no\\u200bte"],
  ["zero-width joiner after a letter (Cf)", "'admin\u200d'", "'admin\\u200d'"],
  ["zero-width non-joiner (Cf)", "a\u200cb", "a\\u200cb"],
  ["word joiner (Cf)", "a\u2060b", "a\\u2060b"],
  ["soft hyphen (Cf)", "pass\u00adword", "pass\\xadword"],
  ["Arabic letter mark (Cf, bidi)", "notes\u061c.txt", "notes\\u061c.txt"],
  ["left-to-right and right-to-left marks", "a\u200e\u200fb", "a\\u200e\\u200fb"],
  ["bidi override (Trojan Source)", "if (admin\u202e) {", "if (admin\\u202e) {"],
  ["bidi isolates", "\u2066x\u2069", "\\u2066x\\u2069"],
  ["BOM / zero-width no-break space", "\ufeffx", "\\ufeffx"],
  ["interlinear annotation (Cf)", "a\ufff9b", "a\\ufff9b"],
  ["line separator (Zl)", "a\u2028b", "a\\u2028b"],
  ["paragraph separator (Zp)", "a\u2029b", "a\\u2029b"],
  ["Hangul filler (default-ignorable; breaks borders)", "x\u3164y", "x\\u3164y"],
  ["halfwidth Hangul filler", "x\uffa0y", "x\\uffa0y"],
  ["Hangul choseong filler", "x\u115fy", "x\\u115fy"],
  ["combining grapheme joiner (default-ignorable)", "a\u034fb", "a\\u034fb"],
  ["Mongolian vowel separator", "a\u180eb", "a\\u180eb"],
  ["variation selector after a letter", "a\ufe0fb", "a\\ufe0fb"],
  ["tag characters (invisible text smuggled after a word)", "ok\u{e0049}\u{e0067}", "ok\\u{e0049}\\u{e0067}"],
  ["language tag", "\u{e0001}x", "\\u{e0001}x"],
  ["tags after a black flag that spell no flag", "\u{1f3f4}\u{e0041}\u{e007f}", "\u{1f3f4}\\u{e0041}\\u{e007f}"],
  ["a joiner dangling after an emoji", "\u{1f468}\u200dx", "\u{1f468}\\u200dx"],
  ["lone surrogate", "a\ud800b", "a\\ud800b"],
];

const KEPT: [string, string][] = [
  ["plain and accented text", "héllo wörld ✓ 日本 Ελληνικά"],
  ["right-to-left script itself", "مرحبا שלום"],
  ["combining accents", "e\u0301"],
  ["ZWJ family emoji", "\u{1f468}\u200d\u{1f469}\u200d\u{1f467}"],
  ["emoji with variation selector", "\u2764\ufe0f"],
  ["skin tone", "\u{1f44d}\u{1f3fd}"],
  ["flag from regional indicators", "\u{1f1eb}\u{1f1f7}"],
  ["keycap", "1\ufe0f\u20e3"],
  ["subdivision flag (tag sequence)", "\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}"],
  ["no-break space and ideographic space show as space", "a\u00a0b\u3000c"],
];

describe("escapeControl: every character that does not show itself", () => {
  test.each(ESCAPED)("%s", (_what, input, shown) => {
    expect(escapeControl(input)).toBe(shown);
  });
  test.each(KEPT)("kept: %s", (_what, input) => {
    expect(escapeControl(input)).toBe(input);
  });
  test("newlines and tabs can be kept; a CR before a newline is still shown", () => {
    expect(escapeControl("a\nb\tc", { keepNewlines: true, keepTabs: true })).toBe("a\nb\tc");
    expect(escapeControl("a\r\nb", { keepNewlines: true })).toBe("a\\r\nb");
    expect(escapeControl("a\tb\n", { keepTabs: true })).toBe("a\tb\\n");
  });
  test("an emoji next to smuggled characters keeps the emoji and escapes the rest", () => {
    expect(escapeControl("\u{1f468}\u200d\u{1f469}\u200d\u{1f467} admin\u200d")).toBe("\u{1f468}\u200d\u{1f469}\u200d\u{1f467} admin\\u200d");
  });
  test("nothing printed raw can reach the terminal: the output has no invisible character left", () => {
    const all = ESCAPED.map(([, input]) => input).join("");
    expect(INVISIBLE.test(escapeControl(all).replace(/\u{1f3f4}|\u{1f468}/gu, ""))).toBe(false);
    expect(/[\x00-\x1f\x7f-\x9f]/.test(escapeControl(all))).toBe(false);
  });
});

test("stripSgr drops colour and style sequences only; escapeControl still shows every other escape", () => {
  expect(stripSgr("\x1b[31mred\x1b[0m \x1b[1;32mbold green\x1b[m")).toBe("red bold green");
  const hostile = "a\x1b[2Ab\x1b]52;c;aGk=\x07c\x1b[?25l";
  expect(stripSgr(hostile)).toBe(hostile);
  expect(escapeControl(stripSgr(`\x1b[31m${hostile}\x1b[0m`))).toBe("a\\x1b[2Ab\\x1b]52;c;aGk=\\x07c\\x1b[?25l");
});

test("stripSgr keeps an SGR that is not colouring: one that styles and is never closed on its line, or a reset with nothing styled (bytes of a file name)", () => {
  // As `ls` lists a file named ESC[31mred.txt: shown escaped, exactly as it is named.
  expect(escapeControl(stripSgr("notes.txt\n\x1b[31mred.txt\nzeta.txt"), { keepNewlines: true })).toBe("notes.txt\n\\x1b[31mred.txt\nzeta.txt");
  expect(escapeControl(stripSgr("a\x1b[0m.txt"))).toBe("a\\x1b[0m.txt");
  // Colouring as programs do it, also beside such a line: a run closed on its line, however it is reset.
  expect(stripSgr("\x1b[0m\x1b[32m(pass)\x1b[0m a test\n\x1b[31mred.txt")).toBe("(pass) a test\n\x1b[31mred.txt");
  expect(stripSgr("\x1b[1;31mFAIL\x1b[22;39m x")).toBe("FAIL x");
});
