// src/flags.ts must parse exactly as node:util's parseArgs (strict, positionals allowed) did:
// the same values and positionals, or the same error message, for bunker's own flags.
import { expect, test } from "bun:test";
import { parseArgs } from "node:util";
import { FLAGS } from "../../src/config.ts";
import { parseFlags, type FlagSpec } from "../../src/flags.ts";

type Outcome = { values: Record<string, unknown>; positionals: string[] } | { error: string };

function outcome(parse: () => { values: object; positionals: string[] }): Outcome {
  try {
    const { values, positionals } = parse();
    return { values: { ...values }, positionals };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const reference = (args: string[], options: Record<string, FlagSpec>) =>
  outcome(() => parseArgs({ args, options, strict: true, allowPositionals: true }));
const ours = (args: string[], options: Record<string, FlagSpec>) => outcome(() => parseFlags(args, options));

// Words that reach every rule: lone and grouped shorts, -mVALUE, --name=value, values starting with "-", "--", unknown names.
const WORDS = [
  "-p", "-A", "-c", "-v", "-h", "-m", "-r", "-C", "-x", "-", "--", "-1", "-=",
  "-pA", "-pm", "-pmfoo", "-mfoo", "-Ap", "-px", "-xp", "-m-", "-rabc", "-cr", "-Cdir",
  "--print", "--print=yes", "--print=", "--model", "--model=", "--model=-x", "--model=a=b", "--allow-read", "--allow-read=src",
  "--allow-read=", "--allow-env=A,B", "--bogus", "--bogus=1", "---x", "--=x", "--__proto__", "--__proto__=1", "--toString",
  "--max-turns", "--resume", "--verbose", "--no-prompt", "--rewind", "--rewind=2",
  "hello", "two words", "3", "-5",
];

test("the same outcome as parseArgs for every argv of up to two words, and for 3000 random argvs of up to six", () => {
  const argvs: string[][] = [[]];
  for (const a of WORDS) {
    argvs.push([a]);
    for (const b of WORDS) argvs.push([a, b]);
  }
  let seed = 17;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = 0; i < 3000; i++) argvs.push(Array.from({ length: 1 + Math.floor(random() * 6) }, () => WORDS[Math.floor(random() * WORDS.length)]!));
  const differ = argvs.filter((argv) => !Bun.deepEquals(ours(argv, FLAGS), reference(argv, FLAGS)));
  expect(differ.slice(0, 5).map((argv) => ({ argv, ours: ours(argv, FLAGS), parseArgs: reference(argv, FLAGS) }))).toEqual([]);
  // The words reach every kind of outcome (so the comparison is not of errors alone).
  const kinds = new Set(argvs.map((argv) => { const o = ours(argv, FLAGS); return "error" in o ? o.error.split(" ")[0]! + o.error.split(" ").at(-1)! : "ok"; }));
  expect(kinds.size).toBeGreaterThanOrEqual(4);
});

test("a repeated flag keeps the last value; a multiple one keeps all, in order", () => {
  expect(parseFlags(["-m", "a", "--model=b", "--allow-read=x", "--allow-read", "y", "say", "hi"], FLAGS)).toEqual({
    values: Object.assign(Object.create(null), { model: "b", "allow-read": ["x", "y"] }),
    positionals: ["say", "hi"],
  });
});
