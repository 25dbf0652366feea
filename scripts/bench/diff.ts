// The diff shown before an edit of a 10,000-line file with 100 scattered
// changes: makeFilePreview (the diff) plus the coloured, bounded rendering.
// Target from issue 3: under 50 ms.
import { makeFilePreview } from "../../src/diff/preview.ts";
import { applyEdit } from "../../src/text/replace.ts";
import { renderFileChange } from "../../src/ui/diff-view.ts";
import { timeMedian, type BenchRow } from "./types.ts";

/** A 10,000-line source-like file and a copy with 100 changed lines spread through it. */
export function bigFileWithChanges(lines = 10_000, changes = 100): { before: string; after: string } {
  const src = Array.from({ length: lines }, (_, i) => `  const value${i} = compute(${i}, "item-${i % 97}"); // line ${i + 1}`);
  const out = [...src];
  const step = Math.floor(lines / changes);
  for (let c = 0; c < changes; c++) {
    const at = c * step + (c * 37) % step;
    out[at] = c % 3 === 0 ? `${out[at]} // changed` : c % 3 === 1 ? `  const inserted${c} = ${c};\n${out[at]}` : `  // removed line ${at + 1}`;
  }
  return { before: src.join("\n") + "\n", after: out.join("\n") + "\n" };
}

export async function bench(): Promise<BenchRow[]> {
  const { before, after } = bigFileWithChanges();
  let shown = 0;
  const ms = await timeMedian(15, () => {
    const lines = renderFileChange(makeFilePreview("src/big.ts", before, after), { color: true });
    shown = lines.length;
  });
  if (shown === 0) throw new Error("diff bench rendered nothing");
  // The slow path of edit_file: old_string not found, so the closest lines are searched for.
  const missMs = await timeMedian(9, () => {
    if (applyEdit(before, 'const value5000 = computeIt(5000, "item");\nconst value5001 = x;', "y").ok) throw new Error("unexpected match");
  });
  return [
    { name: "diff shown for a 10,000-line file, 100 changes", value: round(ms), unit: "ms", target: "< 50 ms", ok: ms < 50 },
    { name: "edit_file no-match message, 10,000-line file", value: round(missMs), unit: "ms" },
  ];
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

if (import.meta.main) console.table(await bench());
