import { expect, test } from "bun:test";
import { shellQuote } from "../../../src/shell/quote.ts";

test("plain words stay bare; anything else is single-quoted so bash reads it back as the same word", () => {
  expect(shellQuote("/home/a/proj-1")).toBe("/home/a/proj-1");
  expect(shellQuote("a b")).toBe("'a b'");
  expect(shellQuote("it's $HOME")).toBe(`'it'\\''s $HOME'`);
  for (const word of ["a b", "it's $HOME", "x;rm -rf ~", "`id`", "tab\there"]) {
    const r = Bun.spawnSync(["bash", "-c", `printf %s ${shellQuote(word)}`]);
    expect(r.stdout.toString()).toBe(word);
  }
});
