import { expect, test } from "bun:test";
import { nearestWord, typoDistance } from "../../../src/text/typos.ts";

test("each typo counts one: a letter added, dropped, replaced, or two neighbours swapped", () => {
  expect(typoDistance("cost", "cost")).toBe(0);
  expect(typoDistance("cots", "cost")).toBe(1);
  expect(typoDistance("cst", "cost")).toBe(1);
  expect(typoDistance("coast", "cost")).toBe(1);
  expect(typoDistance("cast", "cost")).toBe(1);
  expect(typoDistance("rewnid", "rewind")).toBe(1);
  expect(typoDistance("", "abc")).toBe(3);
  expect(typoDistance("config.ts", "cnofig.js")).toBe(2);
});

test("the nearest word: one typo for a short word, two for a longer one; a tie goes to the one the word begins", () => {
  expect(nearestWord("jsn", ["text", "json", "stream-json"])).toBe("json");
  expect(nearestWord("stream_json", ["text", "json", "stream-json"])).toBe("stream-json");
  expect(nearestWord("of", ["auto", "on", "off"])).toBe("off");
  expect(nearestWord("xml", ["text", "json", "stream-json"])).toBeUndefined();
  expect(nearestWord("alow-run", ["allow-run", "allow-read"])).toBe("allow-run");
  expect(nearestWord("mdl", ["model"])).toBeUndefined();
});
