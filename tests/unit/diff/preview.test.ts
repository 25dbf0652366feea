// The diff shown before a write is computed on the changed region only, and
// must be exactly the diff of the whole files: same hunks, same line numbers,
// same context, for any edit (checked against the diff of the whole texts).
import { expect, test } from "bun:test";
import { structuredPatch } from "diff";
import { makeFilePreview } from "../../../src/diff/preview.ts";

/** The preview format, from a diff of the whole texts. */
function wholeFileDiff(before: string, after: string): string {
  const patch = structuredPatch("a/f", "b/f", before, after, undefined, undefined, { context: 3 });
  const lines = ["--- a/f", "+++ b/f"];
  for (const h of patch.hunks) {
    const oldStart = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart;
    const newStart = h.newLines === 0 ? h.newStart - 1 : h.newStart;
    lines.push(`@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@`, ...h.lines);
  }
  return lines.join("\n");
}

test("3,000 random edits of repetitive text (LF and CRLF, with and without a final newline) give the whole-file diff exactly", () => {
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const alphabet = ["a", "b", "c", "", "dd", "a b"];
  for (let t = 0; t < 3000; t++) {
    const eol = rnd(4) === 0 ? "\r\n" : "\n";
    const from = Array.from({ length: rnd(40) }, () => alphabet[rnd(alphabet.length)]!);
    const to = [...from];
    for (let e = rnd(5); e >= 0; e--) {
      const op = rnd(3);
      const i = rnd(to.length + 1);
      if (op === 0) to.splice(i, 0, alphabet[rnd(alphabet.length)]!);
      else if (to.length > 0 && op === 1) to.splice(Math.min(i, to.length - 1), 1);
      else if (to.length > 0) to[Math.min(i, to.length - 1)] += "x";
    }
    const before = from.join(eol) + (rnd(2) ? eol : "");
    const after = to.join(eol) + (rnd(2) ? eol : "");
    const got = makeFilePreview("f", before, after).diff;
    if (got !== wholeFileDiff(before, after)) {
      throw new Error(`case ${t} differs:\n${JSON.stringify(before)}\n${JSON.stringify(after)}\n${got}\n---\n${wholeFileDiff(before, after)}`);
    }
  }
});

test("one changed line in a million-line file: the hunk sits at the right line with three lines of context each side", () => {
  const lines = Array.from({ length: 1_000_000 }, (_, i) => `line ${i}`);
  const before = lines.join("\n") + "\n";
  const after = before.replace("\nline 654321\n", "\nLINE 654321\n");
  const p = makeFilePreview("big.txt", before, after);
  expect(p.diff.split("\n")).toEqual([
    "--- a/big.txt",
    "+++ b/big.txt",
    "@@ -654319,7 +654319,7 @@",
    " line 654318",
    " line 654319",
    " line 654320",
    "-line 654321",
    "+LINE 654321",
    " line 654322",
    " line 654323",
    " line 654324",
  ]);
  expect([p.added, p.removed]).toEqual([1, 1]);
});
