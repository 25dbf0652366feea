// The added start-up cost of confining a command: `bash -c true` inside
// bubblewrap versus unconfined, median over many runs. Also the cost of the
// run policy deciding a typical command line.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyGrants } from "../../src/perms/policy.ts";
import { Policy } from "../../src/perms/policy.ts";
import { confine, detectSandbox, planSandbox } from "../../src/sandbox/detect.ts";
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
    const policy = new Policy(root, g);
    rows.push({ name: "run decision for one run_bash call (parse once + judge a 5-command line)", value: round(await timeMedian(300, () => policy.decide("run", line))), unit: "ms" });
    const withSession = new Policy(root, emptyGrants());
    withSession.grantSession("run", "bun test");
    const tested = "bun test tests/a.test.ts 2>&1 | tail -5";
    rows.push({ name: "run decision covered by a session prefix (`bun test … | tail`)", value: round(await timeMedian(300, () => withSession.decide("run", tested))), unit: "ms" });

    const shell = Bun.which("bash") ?? "/bin/sh";
    const plain = [shell, "-c", "true"];
    const avail = detectSandbox();
    const plan = planSandbox("on", avail);
    if (!plan.confined) {
      rows.push({ name: `sandbox start-up: unavailable (${avail.reason})`, value: 0, unit: "ms" });
      return rows;
    }
    const boxed = confine(plan, { root, allowNet: false, gitWritable: false, writable: [] }, plain, root);
    // Interleave the two so drift in machine load hits both alike.
    const unconfined: number[] = [];
    const confined: number[] = [];
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
    }
    const m = (xs: number[]) => round(median(xs));
    rows.push({ name: "`bash -c true` unconfined", value: m(unconfined), unit: "ms" });
    rows.push({ name: `\`bash -c true\` in ${plan.kind}`, value: m(confined), unit: "ms" });
    const added = round(m(confined) - m(unconfined));
    rows.push({ name: `sandbox start-up added per command (${plan.kind})`, value: added, unit: "ms", target: "< 15 ms", ok: added < 15 });
    return rows;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.main) console.table(await bench());
