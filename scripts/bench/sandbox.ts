// The added start-up cost of confining a command: `bash -c true` inside
// bubblewrap (the allow-list run_bash builds) versus unconfined, median over
// many runs; and what building that spec costs in a real checkout. Also the cost of the
// run policy deciding a typical command line.
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyGrants, loadRunJudge, Policy } from "../../src/perms/policy.ts";
import { confine, detectSandbox, planSandbox } from "../../src/sandbox/detect.ts";
import { sandboxMounts } from "../../src/sandbox/spec.ts";
import { scanWorkspace } from "../../src/sandbox/git-guard.ts";
import { runsLaterMatcher } from "../../src/perms/runs-later.ts";
import { commandSandboxSpec } from "../../src/tools/run-bash.ts";
import { scrubEnv } from "../../src/sandbox/env.ts";
import { median, timeMedian, type BenchRow } from "./types.ts";

const RUNS = 40;
const round = (ms: number) => Math.round(ms * 100) / 100;

async function runOnce(argv: string[], cwd: string): Promise<void> {
  const p = Bun.spawn(argv, { cwd, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  if ((await p.exited) !== 0) throw new Error(`${argv.join(" ")} failed`);
}

export async function bench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const root = realpathSync(mkdtempSync(join(tmpdir(), "bunker-bench-sandbox-")));
  try {
    const g = emptyGrants();
    g.allow.run.programs = ["git"];
    const line = "cd src && git log --oneline -5 | head -3 && cat package.json | wc -l > /dev/null";
    // One run_bash call's whole decision: verdict, per-command grants, read-only workspace (one parse).
    // The judge's tables load when a command is first judged (off a headless turn's start-up path).
    await loadRunJudge();
    const policy = new Policy(root, g);
    rows.push({ name: "run decision for one run_bash call (parse once + judge a 5-command line)", value: round(await timeMedian(300, () => policy.decide("run", line))), unit: "ms" });
    const withSession = new Policy(root, emptyGrants());
    withSession.grantSession("run", "bun test");
    const tested = "bun test tests/a.test.ts 2>&1 | tail -5";
    rows.push({ name: "run decision covered by a session prefix (`bun test … | tail`)", value: round(await timeMedian(300, () => withSession.decide("run", tested))), unit: "ms" });

    rows.push(...(await afterScanRows(root)));
    rows.push(...(await scrubRows()));

    const shell = Bun.which("bash") ?? "/bin/sh";
    const plain = [shell, "-c", "true"];
    const avail = detectSandbox();
    const plan = planSandbox("on", avail);
    if (!plan.confined) {
      rows.push({ name: `sandbox start-up: unavailable (${avail.reason})`, value: 0, unit: "ms" });
      return rows;
    }
    // The spec as run_bash builds it for a command that may write: the allow-list (system, toolchains, git config,
    // private home, /etc's secrets hidden) and every repository of the workspace found and kept read-only.
    const opts = { sandbox: "on" as const, allowNet: false, allowEnv: [], gitWritable: false };
    const specFor = (ws: string) => commandSandboxSpec("touch x", ws, opts, true, false);
    const boxed = confine(plan, specFor(root), plain, root);
    // Building that spec for this checkout (node_modules and all) as the workspace: the repositories scan dominates.
    const checkout = join(import.meta.dir, "../..");
    specFor(checkout);
    rows.push({ name: "sandbox spec for one command, this checkout as the workspace (allow-list + scan for every .git)", value: round(await timeMedian(30, () => specFor(checkout))), unit: "ms" });
    // The view before the allow-list (the whole root read-only, the workspace writable): what the new mounts add.
    const wholeRoot = plan.kind === "bubblewrap"
      ? [plan.program, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run", "--bind", root, root,
        "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--chdir", root, "--", ...plain]
      : null;
    // Interleave them so drift in machine load hits all alike.
    const unconfined: number[] = [];
    const confined: number[] = [];
    const before: number[] = [];
    await runOnce(plain, root);
    await runOnce(boxed, root);
    const time = async (argv: string[]) => {
      const t0 = performance.now();
      await runOnce(argv, root);
      return performance.now() - t0;
    };
    for (let i = 0; i < RUNS; i++) {
      unconfined.push(await time(plain));
      confined.push(await time(boxed));
      if (wholeRoot) before.push(await time(wholeRoot));
    }
    const m = (xs: number[]) => round(median(xs));
    rows.push({ name: "`bash -c true` unconfined", value: m(unconfined), unit: "ms" });
    rows.push({ name: `\`bash -c true\` in ${plan.kind} (the allow-list: ${sandboxMounts(specFor(root)).length} mounts)`, value: m(confined), unit: "ms" });
    if (wholeRoot) rows.push({ name: "`bash -c true` in bubblewrap with the old whole-root read-only view (reference)", value: m(before), unit: "ms" });
    const added = round(m(confined) - m(unconfined));
    rows.push({ name: `sandbox start-up added per command (${plan.kind})`, value: added, unit: "ms", target: "< 15 ms", ok: added < 15 });
    return rows;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The walk run_bash does after every command that may write (new repositories,
 * .git links and files, runs-later files): on a 5,000-file workspace, the
 * first walk and the usual one (directories unchanged since the last command:
 * their ctime says so, nothing re-read), next to a plain recursive readdir of
 * the same tree (the reference).
 */
async function afterScanRows(base: string): Promise<BenchRow[]> {
  const ws = join(base, "ws5000");
  for (let d = 0; d < 250; d++) {
    const dir = join(ws, `pkg${d % 10}`, `mod${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 20; f++) writeFileSync(join(dir, `f${f}.ts`), "x");
  }
  writeFileSync(join(ws, "pkg1/.envrc"), "x");
  const later = { key: "bench", match: runsLaterMatcher(ws) };
  const t0 = performance.now();
  scanWorkspace(ws, later);
  const first = performance.now() - t0;
  // Directories changed in the last 2 s are re-read whatever their ctime says: let the tree age.
  await Bun.sleep(2_100);
  const walk = (dir: string): number => readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? walk(join(dir, e.name)) : 1), 0);
  const usual = round(await timeMedian(30, () => scanWorkspace(ws, later)));
  return [
    { name: "after-command scan, 5,000-file workspace, first walk", value: round(first), unit: "ms" },
    { name: "after-command scan, 5,000-file workspace, usual (memoised by ctime)", value: usual, unit: "ms", target: "< 20 ms", ok: usual < 20 },
    { name: "plain recursive readdir of the same tree (reference)", value: round(await timeMedian(30, () => walk(ws))), unit: "ms" },
  ];
}

if (import.meta.main) console.table(await bench());

/**
 * Withholding credentials from one command's environment: 100 ordinary
 * variables (PATH, LS_COLORS, URLs, flags) and 3 credentials through the
 * credential table; the table compiles at the first command (timed apart, in
 * a fresh process); and the slowest of long repetitive values (64 KB of
 * spaces, `-u`, `sk-`, `eyJ-`, …), which the bounded patterns keep linear.
 */
async function scrubRows(): Promise<BenchRow[]> {
  const env: Record<string, string> = {
    PATH: "/usr/local/bin:/usr/bin:/bin:/home/me/.bun/bin:/home/me/.cargo/bin:/home/me/go/bin",
    LS_COLORS: "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:".repeat(20),
    GITHUB_TOKEN: "x", ORIGIN: `https://ghp_${"a1B2".repeat(9)}@github.com/o/r.git`, MYSQL_OPTS: "-u root -phunter2",
  };
  for (let i = 0; i < 97; i++) env[`SETTING_${i}`] = i % 2 ? `https://mirror${i}.example/path/${i}` : `-O2 -pthread --jobs=${i} /opt/tool${i}/bin`;
  const first = Bun.spawnSync(["bun", "-e", `const { scrubEnv } = await import(${JSON.stringify(join(import.meta.dir, "../../src/sandbox/env.ts"))}); const env = ${JSON.stringify(env)}; const t = performance.now(); scrubEnv(env); console.log(performance.now() - t);`]);
  const once = Number(first.stdout.toString().trim());
  let worst = 0;
  for (const unit of [" ", "-u", "sk-", "eyJ-", "x.", "a://", "-p", "https://"]) {
    const value = unit.repeat(Math.ceil(65536 / unit.length));
    worst = Math.max(worst, await timeMedian(5, () => scrubEnv({ LONG: value })));
  }
  return [
    { name: "withholding credentials from one command's environment (100 variables)", value: round(await timeMedian(300, () => scrubEnv(env))), unit: "ms" },
    { name: "withholding credentials: the first command's (compiles the table, in a fresh process)", value: round(once), unit: "ms" },
    { name: "withholding credentials: the slowest 64 KB repetitive value", value: round(worst), unit: "ms" },
  ];
}
