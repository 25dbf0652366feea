// grep over this repo's node_modules: bunker's grep tool (in process, as the
// agent runs it) beside ripgrep (spawned, as an agent would run it), same
// tree, same ignore rules (rg --hidden, since bunker searches dotfiles too).
// Runs alternate so both see the same cache and machine load.
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { SessionState } from "../../src/agent/session-state.ts";
import { NoPromptApprover } from "../../src/perms/approver.ts";
import { Permissions } from "../../src/perms/permissions.ts";
import { emptyGrants, Policy } from "../../src/perms/policy.ts";
import { grepTool, type GrepInput } from "../../src/tools/grep.ts";
import type { ToolContext } from "../../src/tools/tool.ts";
import { median, type BenchRow } from "./types.ts";

const RUNS = 11;
const TARGET_RATIO = 3;

/** A literal, a regex with a literal in it, and one with none (the slow path). */
const SEARCHES: { label: string; input: Omit<GrepInput, "path">; rgArgs: string[] }[] = [
  { label: "/createServer/", input: { pattern: "createServer" }, rgArgs: ["createServer"] },
  { label: "/function\\s+\\w+Async/", input: { pattern: "function\\s+\\w+Async" }, rgArgs: ["function\\s+\\w+Async"] },
  { label: "/createserver/i", input: { pattern: "createserver", ignore_case: true }, rgArgs: ["-i", "createserver"] },
];

export async function bench(): Promise<BenchRow[]> {
  const root = realpathSync(resolve(import.meta.dir, "../.."));
  const tree = "node_modules";
  const ctx = benchContext(root);
  const rg = Bun.which("rg");
  const rows: BenchRow[] = [];

  for (const search of SEARCHES) {
    const input: GrepInput = { ...search.input, path: tree };
    const runBunker = async () => {
      const out = await grepTool.run(input, ctx);
      return typeof out === "string" ? out : out.content;
    };
    const runRg = () => {
      const p = Bun.spawnSync([rg!, "-n", "--hidden", ...search.rgArgs, tree], { cwd: root, stdout: "pipe", stderr: "ignore" });
      return p.stdout.toString();
    };

    // Warm-up, and a check that both find the same lines.
    const ours = await runBunker();
    const theirs = rg ? runRg() : undefined;
    const same = theirs === undefined || sameMatches(ours, theirs);

    const bunkerTimes: number[] = [];
    const rgTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      bunkerTimes.push(await timed(runBunker));
      if (rg) rgTimes.push(await timed(runRg));
    }
    const bunkerMs = median(bunkerTimes);
    rows.push({ name: `grep ${tree} ${search.label} (bunker, in process)`, value: round(bunkerMs), unit: "ms" });
    if (rg) {
      const rgMs = median(rgTimes);
      const ratio = bunkerMs / rgMs;
      rows.push({ name: `grep ${tree} ${search.label} (rg, spawned)`, value: round(rgMs), unit: "ms" });
      rows.push({
        name: `grep ${tree} ${search.label} bunker/rg${same ? "" : " (RESULTS DIFFER)"}`,
        value: round(ratio),
        unit: "x",
        target: `≤ ${TARGET_RATIO}x rg`,
        ok: same && ratio <= TARGET_RATIO,
      });
    }
  }
  return rows;
}

function benchContext(root: string): ToolContext {
  const perms = new Permissions({
    policy: new Policy(root, emptyGrants()),
    approver: new NoPromptApprover(),
    notify: () => {},
  });
  return {
    root,
    perms,
    session: new SessionState(),
    ui: { info: () => {}, debug: () => {} },
    signal: new AbortController().signal,
  };
}

/** Same set of file:line pairs (bunker's output may end with a truncation note; rg's never does). */
function sameMatches(ours: string, theirs: string): boolean {
  const key = (line: string) => /^(.+?:\d+):/.exec(line)?.[1];
  const a = new Set(ours.split("\n").map(key).filter(Boolean));
  const b = new Set(theirs.split("\n").map(key).filter(Boolean));
  return a.size === b.size && [...a].every((k) => b.has(k));
}

async function timed(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

if (import.meta.main) {
  for (const row of await bench()) {
    const mark = row.ok === undefined ? "" : row.ok ? "  ok" : "  MISSED";
    console.log(`${row.name.padEnd(60)} ${String(row.value).padStart(8)} ${row.unit}${row.target ? `  (target ${row.target})` : ""}${mark}`);
  }
}
