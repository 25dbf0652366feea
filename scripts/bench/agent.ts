// A headless one-shot turn (one tool call, then the answer) through the
// compiled binary against the scripted server, side by side with the
// reference: a ~100-line fetch loop (reference-loop.ts) compiled with the
// same flags, doing the same two requests against the same server. Runs
// alternate (bunker, reference, bunker, …) so a noisy moment falls on both.
// Also: peak memory, and the size of the first request as the server
// received it (every later request resends it).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../build/compile.ts";
import { freshBinary, ROOT } from "../build/fresh.ts";
import { startFakeAnthropic, reply, text, toolUse } from "../../tests/support/fake-anthropic.ts";
import { linkedCode, writeSameVolumeEntry } from "./code-volume.ts";
import { freshCopies, median, peakRssMiB, type BenchRow } from "./types.ts";

const RUNS = 21;

/** Wall time, CPU time of the process (user + system, all its threads: what other processes' load moves less), peak memory. */
interface Sample { ms: number; cpuMs: number }

export async function bench(): Promise<BenchRow[]> {
  const { path: built, stamp } = await freshBinary();
  // Built here at bench time, never committed (.bench/ is ignored).
  const referenceBuilt = join(ROOT, ".bench", "reference-loop");
  const referenceLoop = join(ROOT, "scripts/bench/reference-loop.ts");
  await compile({ entry: referenceLoop, outfile: referenceBuilt, stamp, bytecode: true, cwd: ROOT });
  const ws = mkdtempSync(join(tmpdir(), "bunker-bench-ws-"));
  // A home of its own: bunker refuses its home directory as the workspace.
  const home = mkdtempSync(join(tmpdir(), "bunker-bench-home-"));
  writeFileSync(join(ws, "a.txt"), "hello\n");
  const fake = startFakeAnthropic([reply([toolUse("read_file", { path: "a.txt" })]), reply([text("done")])], { loop: true });
  const env = { PATH: "", HOME: home, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: fake.url };
  // The reference loop after running once as many more functions as bunker's turn runs (code-volume.ts).
  const volume = { bunker: await linkedCode([built, "-p", "read a.txt"], { cwd: ws, env }), reference: await linkedCode([referenceBuilt, "read a.txt"], { cwd: ws, env }) };
  const sameVolumeBuilt = join(ROOT, ".bench", "reference-same-volume");
  const sameVolumeEntry = writeSameVolumeEntry(join(ROOT, ".bench", "same-volume"), volume.bunker.blocks - volume.reference.blocks, referenceLoop);
  await compile({ entry: sameVolumeEntry, outfile: sameVolumeBuilt, stamp, bytecode: true, cwd: ROOT });
  const sameVolumeCode = await linkedCode([sameVolumeBuilt, "read a.txt"], { cwd: ws, env });
  // All as copies written at the same moment (freshCopies: a binary's start depends on its file's age in the page cache).
  const copies = freshCopies([built, referenceBuilt, sameVolumeBuilt]);
  const [bunker, reference, sameVolume] = copies.paths as [string, string, string];
  const once = async (argv: string[]): Promise<Sample> => {
    const t0 = performance.now();
    const proc = Bun.spawn(argv, { cwd: ws, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    if ((await proc.exited) !== 0 || out.trim() !== "done") throw new Error(`${argv[0]} failed: ${out}${err}`);
    const usage = proc.resourceUsage();
    const cpuMs = usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1000 : NaN;
    return { ms: performance.now() - t0, cpuMs };
  };
  try {
    // The second bunker row saves nothing (--no-session-persistence): what the session store costs.
    // The fourth is the reference loop running bunker's amount of code once first (code-volume.ts).
    const commands = [[bunker, "-p", "read a.txt"], [reference, "read a.txt"], [bunker, "-p", "read a.txt", "--no-session-persistence"], [sameVolume, "read a.txt"]];
    const samples: Sample[][] = commands.map(() => []);
    for (const argv of commands) await once(argv); // warm-up
    const firstRequest = fake.requests[0]!;
    // Every other round runs in the opposite order, so neither side always follows the other.
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 === 0 ? [0, 1, 2, 3] : [3, 2, 1, 0];
      for (const k of order) samples[k]!.push(await once(commands[k]!));
    }
    const [b, r, unsaved, same] = samples.map((s) => ({ ms: median(s.map((x) => x.ms)), cpuMs: median(s.map((x) => x.cpuMs)) })) as [Sample, Sample, Sample, Sample];
    const kb = (v: { bytes: number }) => Math.round(v.bytes / 1024);
    const ratio = b.ms / r.ms;
    const [bRss, rRss] = [await peakRssMiB(commands[0]!, { cwd: ws, env }), await peakRssMiB(commands[1]!, { cwd: ws, env })];
    // Each bunker run against the reference run beside it: what a load that drifts during the run moves least.
    const paired = (pick: (x: Sample) => number) => median(samples[0]!.map((x, i) => pick(x) / pick(samples[1]![i]!)));
    const round = (n: number, d = 1) => Number(n.toFixed(d));
    return [
      { name: "reference fetch loop, same flags (2 model calls, 1 tool): wall", value: round(r.ms), unit: "ms" },
      { name: "headless one-shot turn (2 model calls, 1 tool): wall", value: round(b.ms), unit: "ms", target: `≤ 1.5x reference (${round(1.5 * r.ms)} ms)`, ok: ratio <= 1.5 },
      { name: "headless one-shot turn / reference loop: wall", value: round(ratio, 2), unit: "x", target: "≤ 1.5x", ok: ratio <= 1.5 },
      { name: "reference fetch loop: CPU (user + system)", value: round(r.cpuMs), unit: "ms" },
      { name: "headless one-shot turn: CPU (user + system)", value: round(b.cpuMs), unit: "ms" },
      { name: "headless one-shot turn / reference loop: CPU", value: round(b.cpuMs / r.cpuMs, 2), unit: "x" },
      { name: "headless one-shot turn / the reference run beside it, median: wall", value: round(paired((x) => x.ms), 2), unit: "x" },
      { name: "headless one-shot turn / the reference run beside it, median: CPU", value: round(paired((x) => x.cpuMs), 2), unit: "x" },
      { name: "the same turn, --no-session-persistence: wall", value: round(unsaved.ms), unit: "ms" },
      { name: "the same turn, --no-session-persistence / reference loop", value: round(unsaved.ms / r.ms, 2), unit: "x" },
      { name: `code run once: bunker's turn made ${volume.bunker.blocks} JavaScriptCore code blocks, the reference ${volume.reference.blocks} (${kb(volume.reference)} KB); bunker's, bytecode and metadata`, value: kb(volume.bunker), unit: "KB" },
      { name: `reference loop after ${sameVolumeCode.blocks - volume.reference.blocks} more functions run once (${sameVolumeCode.blocks} blocks, ${kb(sameVolumeCode)} KB, as bunker's turn): wall`, value: round(same.ms), unit: "ms" },
      { name: "the same code volume / reference loop: wall (what running that much code once costs)", value: round(same.ms / r.ms, 2), unit: "x" },
      { name: "reference fetch loop: peak RSS", value: round(rRss), unit: "MiB" },
      { name: "headless one-shot turn: peak RSS", value: round(bRss), unit: "MiB", target: "< 80 MiB", ok: bRss < 80 },
      { name: "first request (system prompt + tool schemas)", value: round(firstRequest.bytes / 1024, 2), unit: "KB", target: "< 8 KB", ok: firstRequest.bytes < 8 * 1024 },
    ];
  } finally {
    await fake.stop();
    copies.remove();
    rmSync(ws, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.main) console.table(await bench());
