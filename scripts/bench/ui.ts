// What rendering a streamed answer costs the person: a 20 KB markdown answer
// (paragraphs with the typography models write, lists, code, a table) fed
// delta by delta, as the loop feeds it, to the terminal UI with its live
// region and markdown rendering, against the plain UI that writes the text as
// it comes, in the same run, in turns. Every delta is drawn (as when each
// arrives in its own frame) and every write is a real write(2) to /dev/null.
//
// CPU time of the process. It counts the JIT's compiler threads too, which
// run for the first few dozen answers after start-up, so the warm figure is
// taken after that; what the first answer of a session costs, JIT and all, is
// measured apart in fresh processes (wall time: what the person waits for).
// Target from issue 17: under 5 ms added.
import { closeSync, openSync, writeSync } from "node:fs";
import { LiveRegion } from "../../src/ui/live-region.ts";
import { TerminalUI } from "../../src/ui/terminal.ts";
import { median, type BenchRow } from "./types.ts";

/** About `bytes` of the markdown a model writes. */
export function markdownAnswer(bytes = 20_000): string {
  const section = (i: number) => [
    `## Step ${i}: what changed in module ${i}`,
    "",
    `The function **handle${i}** now validates its input before it touches the cache — so a malformed request gets a clear error instead of a crash deep in the lookup code. The old path (\`parse → lookup → respond\`) didn’t check anything.`,
    "",
    `- moved the parsing into \`parse${i}.ts\``,
    "- added a test for the “empty” case",
    "",
    "```ts",
    `export function handle${i}(req: Request): Response {`,
    "  const input = parse(req);",
    "  if (!input.ok) return badRequest(input.error);",
    "  return respond(lookup(input.value));",
    "}",
    "```",
    "",
    "| file | change |",
    "|------|--------|",
    `| src/handle${i}.ts | validation first |`,
    "",
  ].join("\n");
  let text = "";
  for (let i = 1; text.length < bytes; i++) text += section(i) + "\n";
  return text.slice(0, bytes);
}

/** Characters per delta: a few tokens, as the API streams them (smaller deltas cost the renderer more). */
const DELTA = 16;

/** A terminal 100 columns wide whose writes go to /dev/null. */
function terminal(fd: number): NodeJS.WriteStream {
  return { write: (s: string) => (writeSync(fd, s), true), columns: 100, rows: 40 } as unknown as NodeJS.WriteStream;
}

/** Streams `text` through a fresh UI: plain, or rendered with its live region drawn after every delta. */
function stream(text: string, rendered: boolean, out: NodeJS.WriteStream): void {
  const region = rendered ? new LiveRegion(out, ["preview", "input", "status"]) : undefined;
  const ui = new TerminalUI({ streamText: true, verbose: false, spinner: false, out, err: out, region, markdown: rendered });
  for (let i = 0; i < text.length; i += DELTA) {
    ui.onText(text.slice(i, i + DELTA));
    region?.draw();
  }
  ui.endText();
  region?.erase();
}

function cpuMs(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** Warm: median CPU of each, in turns, after the JIT has settled. */
function warm(text: string, out: NodeJS.WriteStream): { plain: number; rendered: number; added: number } {
  for (let i = 0; i < 80; i++) {
    stream(text, false, out);
    stream(text, true, out);
  }
  const plain: number[] = [];
  const rendered: number[] = [];
  const added: number[] = [];
  for (let i = 0; i < 41; i++) {
    const p = cpuMs(() => stream(text, false, out));
    const r = cpuMs(() => stream(text, true, out));
    plain.push(p);
    rendered.push(r);
    added.push(r - p);
  }
  return { plain: median(plain), rendered: median(rendered), added: median(added) };
}

/** Cold: the first answer in a fresh process, median wall ms of `n` processes each way, in turns. */
async function cold(n: number): Promise<{ plain: number; rendered: number }> {
  const once = async (kind: string) => {
    const proc = Bun.spawn(["bun", import.meta.path, "--first-answer", kind], { stdout: "pipe", stderr: "inherit" });
    const ms = Number(await new Response(proc.stdout).text());
    if ((await proc.exited) !== 0 || !Number.isFinite(ms)) throw new Error(`the ${kind} first-answer run failed`);
    return ms;
  };
  const plain: number[] = [];
  const rendered: number[] = [];
  for (let i = 0; i < n; i++) {
    plain.push(await once("plain"));
    rendered.push(await once("rendered"));
  }
  return { plain: median(plain), rendered: median(rendered) };
}

export async function bench(): Promise<BenchRow[]> {
  const text = markdownAnswer();
  // The line being written at its longest and widest: a 20 KB paragraph of CJK with no line break.
  const oneLine = "漢字かなまじり文の段落、".repeat(1700).slice(0, 6700);
  const fd = openSync("/dev/null", "w");
  let w: ReturnType<typeof warm>;
  let long: ReturnType<typeof warm>;
  try {
    w = warm(text, terminal(fd));
    long = warm(oneLine, terminal(fd));
  } finally {
    closeSync(fd);
  }
  const c = await cold(9);
  return [
    { name: `20 KB answer streamed in ${DELTA}-character deltas, plain text (reference, CPU)`, value: round(w.plain), unit: "ms" },
    { name: "the same, rendered markdown + live region drawn per delta (CPU)", value: round(w.rendered), unit: "ms" },
    { name: "rendering a 20 KB answer adds (CPU, median of paired runs)", value: round(w.added), unit: "ms", target: "< 5 ms", ok: w.added < 5 },
    { name: "a 20 KB answer that is one unbroken line of CJK (the line being written is long and wide): rendering adds (CPU)", value: round(long.added), unit: "ms", target: "< 5 ms", ok: long.added < 5 },
    { name: "first answer of a session (fresh process, JIT cold), plain text: wall", value: round(c.plain), unit: "ms" },
    { name: "the same, rendered: wall", value: round(c.rendered), unit: "ms" },
    { name: "rendering the first answer of a session adds (wall)", value: round(c.rendered - c.plain), unit: "ms" },
  ];
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

// A child of `cold`: stream one answer in this fresh process and print its wall milliseconds.
if (import.meta.main && process.argv[2] === "--first-answer") {
  const text = markdownAnswer();
  const fd = openSync("/dev/null", "w");
  const out = terminal(fd);
  const t0 = performance.now();
  stream(text, process.argv[3] === "rendered", out);
  process.stdout.write(String(performance.now() - t0));
  closeSync(fd);
}
