// apply_patch benchmarks: placing a 50-hunk patch on a 20,000-line file (pure
// dry run), and the whole tool's dry run of a 20-file patch (reads included).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionState } from "../../src/agent/session-state.ts";
import { applyPatches } from "../../src/patch/apply.ts";
import { parsePatch } from "../../src/patch/parse.ts";
import { NoPromptApprover } from "../../src/perms/approver.ts";
import { Permissions } from "../../src/perms/permissions.ts";
import { emptyGrants, Policy } from "../../src/perms/policy.ts";
import { resolveRoot } from "../../src/perms/workspace.ts";
import { applyPatchTool } from "../../src/tools/apply-patch.ts";
import type { ToolContext } from "../../src/tools/tool.ts";
import { timeMedian, type BenchRow } from "./types.ts";

/** A source-like file: mostly unique lines, with the usual repeated "}" and blank lines. */
function sourceLines(n: number, tag: string): string[] {
  return Array.from({ length: n }, (_, i) =>
    i % 10 === 9 ? "" : i % 10 === 8 ? "}" : i % 10 === 0 ? `function ${tag}_${i}(x) {` : `  const v${i} = compute(x, ${i % 97}); // ${tag}`,
  );
}

/** A unified diff changing the line at each of `at` (0-based), 3 context lines each side, headers `skew` lines off. */
function unifiedPatch(path: string, lines: string[], at: number[], skew: number): string {
  const out = [`--- a/${path}`, `+++ b/${path}`];
  for (const k of at) {
    const ctx = (a: number, b: number) => lines.slice(a, b).map((l) => ` ${l}`);
    out.push(`@@ -${k - 2 + skew},7 +${k - 2 + skew},7 @@`, ...ctx(k - 3, k), `-${lines[k]}`, `+${lines[k]} // changed`, ...ctx(k + 1, k + 4));
  }
  return out.join("\n") + "\n";
}

export async function bench(): Promise<BenchRow[]> {
  // 1. 50 hunks on a 20,000-line file, header numbers 12 lines off.
  const big = sourceLines(20_000, "big");
  const bigText = big.join("\n") + "\n";
  const at = Array.from({ length: 50 }, (_, h) => 200 + h * 395 + 3);
  const bigPatch = unifiedPatch("big.js", big, at, 12);
  const place = () => {
    const r = applyPatches(parsePatch(bigPatch), () => bigText);
    if (!r.ok) throw new Error("bench patch did not apply");
  };
  const placeMs = await timeMedian(30, place);

  // 2. The tool's dry run of a 20-file patch (3 hunks per 600-line file).
  const root = resolveRoot(mkdtempSync(join(tmpdir(), "bunker-bench-patch-")));
  let manyMs: number;
  try {
    mkdirSync(join(root, "src"));
    const parts: string[] = [];
    for (let f = 0; f < 20; f++) {
      const lines = sourceLines(600, `f${f}`);
      writeFileSync(join(root, "src", `m${f}.js`), lines.join("\n") + "\n");
      parts.push(unifiedPatch(`src/m${f}.js`, lines, [50, 300, 550], 0));
    }
    const patch = parts.join("");
    const ctx: ToolContext = {
      root,
      perms: new Permissions({ policy: new Policy(root, emptyGrants()), approver: new NoPromptApprover(), notify: () => {} }),
      session: new SessionState(),
      ui: { info: () => {}, debug: () => {} },
      signal: new AbortController().signal,
    };
    manyMs = await timeMedian(20, async () => {
      const out = await applyPatchTool.run({ patch, dry_run: true }, ctx);
      if (typeof out !== "string") throw new Error(`bench dry run failed: ${out.content.slice(0, 200)}`);
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }

  return [
    { name: "apply_patch: 50 hunks placed on a 20,000-line file", value: round(placeMs), unit: "ms", target: "< 20 ms", ok: placeMs < 20 },
    { name: "apply_patch: dry run of a 20-file patch", value: round(manyMs), unit: "ms", target: "< 50 ms", ok: manyMs < 50 },
  ];
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

if (import.meta.main) console.table(await bench());
