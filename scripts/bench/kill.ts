// The kill test: a 20-file apply_patch (16 updates, 2 adds, a delete, a move)
// killed with SIGKILL again and again, bunker's start-up recovery run after
// each kill, and the workspace checked: exactly as before the patch, exactly
// as after it, or mixed; plus any leftover temp, backup or journal files.
// Kills: one at each rename the commit makes (strace -e inject, every index,
// several times), the rest at random moments during the commit.
// Alone: bun scripts/bench/kill.ts [KILLS]   (details in /tmp/bunker-kill/)
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterTree, beforeTree } from "./kill-commit-patch.ts";
import type { BenchRow } from "./types.ts";

const CHILD = new URL("./kill-commit-child.ts", import.meta.url).pathname;
const OUT = "/tmp/bunker-kill";
const BUNKER_SIDE_FILE = /\.bunker-\d+-[a-z0-9]+\.(tmp|bak)$/;

interface Tally {
  kills: number;
  before: number;
  after: number;
  mixed: number;
  leftovers: number;
  recoveryLines: Map<string, number>;
}

function layDown(root: string, state: string): void {
  rmSync(root, { recursive: true, force: true });
  rmSync(state, { recursive: true, force: true });
  mkdirSync(state, { recursive: true });
  for (const [p, c] of Object.entries(beforeTree())) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), c);
  }
}

/** Every file (path → content) and every directory ("dir/" → ""), as on disk. */
function tree(root: string, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, tree(root, p));
    else out[p] = readFileSync(join(root, p), "utf8");
  }
  return out;
}

function same(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

async function recoverAndCount(root: string, state: string, t: Tally, log: string[], label: string): Promise<void> {
  const rec = Bun.spawnSync(["bun", CHILD, "recover", root, state], { stdout: "pipe", stderr: "pipe" });
  const said = rec.stdout.toString().trim();
  const shape = said.replace(/ at [\d:]+\s?[AP]?M?;/, " at TIME;").replace(/the \d+ files? already written (was|were)/, "the N files already written were");
  t.recoveryLines.set(shape || "(nothing said)", (t.recoveryLines.get(shape || "(nothing said)") ?? 0) + 1);
  const files = tree(root);
  const leftovers = Object.keys(files).filter((p) => BUNKER_SIDE_FILE.test(p));
  const journals = existsSync(join(state, "journal")) ? readdirSync(join(state, "journal")) : [];
  const visible = Object.fromEntries(Object.entries(files).filter(([p]) => !BUNKER_SIDE_FILE.test(p)));
  // Directories the patch made are part of "after"; an empty one left over after a rollback is a leftover.
  const emptyDirs = leftoverDirs(root);
  t.kills++;
  let verdict: string;
  if (same(visible, beforeTree())) verdict = "before";
  else if (same(visible, afterTree())) verdict = "after";
  else verdict = "mixed";
  t[verdict as "before" | "after" | "mixed"]++;
  const left = leftovers.length + journals.length + emptyDirs.length;
  if (left > 0) t.leftovers++;
  if (verdict === "mixed" || left > 0) log.push(`${label}: ${verdict}; leftovers ${[...leftovers, ...journals, ...emptyDirs].join(", ")}; said: ${said}`);
}

function leftoverDirs(root: string): string[] {
  const out: string[] = [];
  for (const d of ["fresh", "fresh/dir", "new"]) {
    const p = join(root, d);
    if (existsSync(p) && readdirSync(p).length === 0) out.push(`${d}/ (empty)`);
  }
  return out;
}

function hasStrace(): boolean {
  return Bun.spawnSync(["sh", "-c", "command -v strace"]).exitCode === 0;
}

export async function runKillTest(total = 1000, onProgress?: (line: string) => void): Promise<{ tally: Tally; renames: number; unlinks: number; injected: number; log: string[] }> {
  mkdirSync(OUT, { recursive: true });
  const root = join(OUT, "ws");
  const state = join(OUT, "state");
  const t: Tally = { kills: 0, before: 0, after: 0, mixed: 0, leftovers: 0, recoveryLines: new Map() };
  const log: string[] = [];

  // How many renames one commit makes, and how long it takes once started.
  layDown(root, state);
  let renames = 0;
  let unlinks = 0;
  if (hasStrace()) {
    const r = Bun.spawnSync(["strace", "-f", "-qq", "-e", "trace=rename,unlink", "-o", join(OUT, "syscalls.txt"), "bun", CHILD, "commit", root, state]);
    if (r.exitCode !== 0) throw new Error(`the unkilled commit failed: ${r.stdout}`);
    const calls = readFileSync(join(OUT, "syscalls.txt"), "utf8").split("\n");
    renames = calls.filter((l) => l.includes("rename(")).length;
    unlinks = calls.filter((l) => l.includes("unlink(")).length;
  }
  const durations: number[] = [];
  for (let i = 0; i < 5; i++) {
    layDown(root, state);
    const child = Bun.spawn(["bun", CHILD, "commit", root, state], { stdout: "pipe" });
    const t0 = await untilReady(child.stdout);
    await child.exited;
    durations.push(performance.now() - t0);
  }
  const window = Math.max(...durations) * 1.2;

  // 1. A kill at every rename, as it is entered ("after rename k" is "before rename k+1"), and at
  // every unlink after them (backups, then the journal: the commit is past its point of no return).
  let injected = 0;
  const points = [...Array.from({ length: renames }, (_, i) => ["rename", i + 1] as const), ...Array.from({ length: unlinks }, (_, i) => ["unlink", i + 1] as const)];
  if (points.length > 0) {
    const rounds = Math.max(1, Math.floor(total / 3 / points.length));
    for (let round = 0; round < rounds; round++) {
      for (const [call, k] of points) {
        layDown(root, state);
        Bun.spawnSync(["strace", "-f", "-qq", "-o", "/dev/null", "-e", `trace=${call}`, "-e", `inject=${call}:signal=KILL:when=${k}`, "bun", CHILD, "commit", root, state]);
        await recoverAndCount(root, state, t, log, `${call} ${k}`);
        injected++;
      }
    }
    onProgress?.(`kill test: ${injected} kills at each of ${renames} renames and ${unlinks} unlinks`);
  }

  // 2. The rest at random moments of the commit.
  while (t.kills < total) {
    layDown(root, state);
    const child = Bun.spawn(["bun", CHILD, "commit", root, state], { stdout: "pipe" });
    await untilReady(child.stdout);
    const delay = Math.random() * window;
    await Bun.sleep(delay);
    child.kill("SIGKILL");
    await child.exited;
    await recoverAndCount(root, state, t, log, `random ${delay.toFixed(2)} ms`);
    if (t.kills % 100 === 0) onProgress?.(`kill test: ${t.kills} kills`);
  }
  writeFileSync(join(OUT, "summary.json"), JSON.stringify({ ...t, recoveryLines: Object.fromEntries(t.recoveryLines), renames, injected, window }, null, 2));
  writeFileSync(join(OUT, "problems.log"), log.join("\n") + "\n");
  return { tally: t, renames, unlinks, injected, log };
}

async function untilReady(stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("ready\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return performance.now();
}

export async function bench(): Promise<BenchRow[]> {
  const total = Number(process.env.BUNKER_KILLS ?? 1000);
  const { tally: t, injected } = await runKillTest(total, (l) => process.stderr.write(`${l}\n`));
  return [
    { name: `kill test: SIGKILLs of a 20-file patch (${injected} at renames/unlinks)`, value: t.kills, unit: "x", target: ">= 1000", ok: t.kills >= 1000 },
    { name: "kill test: workspace as before / as after", value: t.before, unit: "x", target: `after: ${t.after}` },
    { name: "kill test: mixed outcomes", value: t.mixed, unit: "x", target: "0", ok: t.mixed === 0 },
    { name: "kill test: runs leaving temp, backup or journal files", value: t.leftovers, unit: "x", target: "0", ok: t.leftovers === 0 },
  ];
}

if (import.meta.main) {
  const total = Number(process.argv[2] ?? 1000);
  const { tally: t, renames, unlinks, injected, log } = await runKillTest(total, (l) => process.stderr.write(`${l}\n`));
  console.log(`${t.kills} SIGKILLs (${injected} injected at each of the commit's ${renames} renames and ${unlinks} unlinks, the rest at random moments): ${t.before} before, ${t.after} after, ${t.mixed} mixed, ${t.leftovers} with leftovers`);
  for (const [line, n] of t.recoveryLines) console.log(`  ${n}× ${line}`);
  if (log.length) console.log(`problems (first 10 of ${log.length}; all in ${OUT}/problems.log):\n${log.slice(0, 10).join("\n")}`);
  process.exit(t.mixed === 0 && t.leftovers === 0 ? 0 : 1);
}
