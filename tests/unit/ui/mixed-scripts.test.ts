// Letters that pass for another script's, marked and named; real writing that mixes scripts left alone.
import { describe, expect, test } from "bun:test";
import { markAt, markMixedScripts, mixedScripts } from "../../../src/ui/mixed-scripts.ts";

const REVERSE = (s: string) => `\x1b[7;4m${s}\x1b[27;24m`;

describe("spoofs are found, their odd letters named", () => {
  test("Cyrillic o's in google.com, as a URL in a command: the letters, their names, and the host as DNS looks it up", () => {
    const text = "curl https://g\u043e\u043egle.com/login";
    const found = mixedScripts(text)!;
    expect(found.at).toEqual([14, 15]);
    expect(found.notes).toEqual([
      'mixed scripts in "gооgle", mostly Latin: о is CYRILLIC SMALL LETTER O U+043E',
      "host gооgle.com is xn--ggle-55da.com (punycode: the name DNS looks up)",
    ]);
    expect(markMixedScripts(text, true).text).toBe(`curl https://g${REVERSE("о")}${REVERSE("о")}gle.com/login`);
    // A plain screen: the text as it is, the notes say it.
    expect(markMixedScripts(text, false)).toEqual({ text, notes: found.notes });
  });

  test("one Cyrillic a in a Latin word in code; a Cyrillic DZE and IEs in 'Server'; Greek omicron and Armenian oh", () => {
    expect(mixedScripts('if (user == "\u0430dmin") grant()')!.notes).toEqual(['mixed scripts in "аdmin", mostly Latin: а is CYRILLIC SMALL LETTER A U+0430']);
    expect(mixedScripts("\u0405\u0435rv\u0435r")!.notes).toEqual([
      'mixed scripts in "Ѕеrvеr", mostly Latin: Ѕ is CYRILLIC CAPITAL LETTER DZE U+0405, е is CYRILLIC SMALL LETTER IE U+0435',
    ]);
    expect(mixedScripts("t\u03bfken")!.notes).toEqual(['mixed scripts in "tοken", mostly Latin: ο is GREEK SMALL LETTER OMICRON U+03BF']);
    expect(mixedScripts("g\u0585\u0585gle")!.notes).toEqual(['mixed scripts in "gօօgle", mostly Latin: օ is ARMENIAN SMALL LETTER OH U+0585']);
    // A letter bunker has no name for is named by its script and code point; a mathematical letter as such.
    expect(mixedScripts("r\u04e9ot")!.notes).toEqual(['mixed scripts in "rөot", mostly Latin: ө is a Cyrillic letter U+04E9']);
    expect(mixedScripts("\u{1d41a}pple")!.notes).toEqual(['mixed scripts in "𝐚pple", mostly Latin: 𝐚 is a mathematical letter U+1D41A']);
  });

  test("a mostly Cyrillic word with one Latin letter names the Latin one", () => {
    expect(mixedScripts("\u0440\u0430\u0443\u0440\u0430l")!.notes).toEqual(['mixed scripts in "раураl", mostly Cyrillic: l is LATIN SMALL LETTER L U+006C']);
  });

  test("a host all in Cyrillic (аррӏе.com) is one script per word, but its punycode form shows it is not apple.com", () => {
    const found = mixedScripts("see https://\u0430\u0440\u0440\u04cf\u0435.com for details")!;
    expect(found.at).toEqual([]);
    expect(found.notes).toEqual(["host аррӏе.com is xn--80ak6aa92e.com (punycode: the name DNS looks up)"]);
    // An internationalised name after a scheme is given in punycode too, for what it is.
    expect(mixedScripts("https://\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444/x")!.notes).toEqual(["host пример.рф is xn--e1afmkfd.xn--p1ai (punycode: the name DNS looks up)"]);
    // A host asked about on its own (web_fetch's, with its port), and one in an address.
    expect(mixedScripts("\u0430\u0440\u0440\u04cf\u0435.com:443")!.notes).toEqual(["host аррӏе.com is xn--80ak6aa92e.com (punycode: the name DNS looks up)"]);
    expect(mixedScripts("mail admin@\u0430\u0440\u0440\u04cf\u0435.com")!.notes).toEqual(["host аррӏе.com is xn--80ak6aa92e.com (punycode: the name DNS looks up)"]);
  });

  test("each word is said once; past five notes the rest are counted", () => {
    expect(mixedScripts("g\u043eogle g\u043eogle")!.notes).toHaveLength(1);
    const many = ["\u0430a", "\u0430b", "\u0430c", "\u0430d", "\u0430e", "\u0430f", "\u0430g"].join(" ");
    const notes = mixedScripts(many)!.notes;
    expect(notes).toHaveLength(5);
    expect(notes.at(-1)).toBe("… and 3 more words of mixed scripts");
  });
});

describe("no false alarms", () => {
  for (const [what, text] of [
    ["plain ASCII", "const url = 'https://google.com'; // fine"],
    ["a Russian sentence", "Привет, мир! Это обычный текст на русском языке."],
    ["a Greek sentence", "Γειά σου κόσμε, αυτό είναι ελληνικό κείμενο."],
    ["Japanese mixed with Latin in prose", "Reactコンポーネントを使う。東京Towerに行きます。"],
    ["Chinese and Korean with Latin", "使用React组件 · React를 사용하세요"],
    ["Latin with Hebrew and Arabic", "שלוםhello مرحباworld"],
    ["accented Latin", "Straße, café, naïve, Ærøskøbing, İstanbul, ıi"],
    ["a Russian word and an English one side by side", "файл config.json"],
    ["emoji and symbols", "done ✅ 👨‍👩‍👧 1ª Nº µs"],
    ["a Russian sentence run into the next", "Конец.Начало"],
    ["a Russian file name", "открой файл.txt и отчёт.pdf"],
  ] as const) {
    test(what, () => expect(mixedScripts(text)).toBeNull());
  }
});

test("markAt inside a word already in reverse video (a changed word in a diff) turns reverse off for the letter, so it still stands out", () => {
  expect(markAt("gоogle", [1], true)).toBe("g\x1b[27;4mо\x1b[24;7mogle");
  expect(markAt("a\u{1d41a}b", [1], false)).toBe(`a${REVERSE("\u{1d41a}")}b`);
});
