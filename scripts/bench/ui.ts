// What rendering a streamed answer costs: a 20 KB markdown answer (paragraphs,
// lists, code, a table) fed in 16-character deltas to the terminal UI with
// its live region and markdown rendering, against the plain UI that writes
// the text as it comes, in the same run. Every delta is drawn (the worst case:
// each arrives in its own frame). CPU time, not wall time: on a loaded machine
// the wall clock mostly measures the other processes. Target from issue 17:
// under 5 ms added.
import { LiveRegion } from "../../src/ui/live-region.ts";
import { TerminalUI } from "../../src/ui/terminal.ts";
import { median, type BenchRow } from "./types.ts";

/** About `bytes` of the markdown a model writes. */
export function markdownAnswer(bytes = 20_000): string {
  const section = (i: number) => [
    `## Step ${i}: what changed in module ${i}`,
    "",
    `The function **handle${i}** now validates its input before it touches the cache, so a malformed request gets a clear error instead of a crash deep in the lookup code.`,
    "",
    `- moved the parsing into \`parse${i}.ts\``,
    "- added a test for the empty case",
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

const sink = { write: () => true, columns: 100, rows: 40 } as unknown as NodeJS.WriteStream;

function feed(ui: TerminalUI, text: string, region?: LiveRegion): void {
  for (let i = 0; i < text.length; i += 16) {
    ui.onText(text.slice(i, i + 16));
    region?.draw();
  }
  ui.endText();
}

/** Median CPU milliseconds (user + system) of `fn` over `n` runs after a warm-up. */
function cpuMedian(n: number, fn: () => void): number {
  fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const before = process.cpuUsage();
    fn();
    const used = process.cpuUsage(before);
    times.push((used.user + used.system) / 1000);
  }
  return median(times);
}

export async function bench(): Promise<BenchRow[]> {
  const text = markdownAnswer();
  const plainMs = cpuMedian(31, () => feed(new TerminalUI({ streamText: true, verbose: false, spinner: false, out: sink, err: sink }), text));
  const renderedMs = cpuMedian(31, () => {
    const region = new LiveRegion(sink, ["preview", "input", "status"]);
    feed(new TerminalUI({ streamText: true, verbose: false, spinner: false, out: sink, err: sink, region, markdown: true }), text, region);
  });
  const added = renderedMs - plainMs;
  return [
    { name: "20 KB answer streamed, plain text (reference, CPU)", value: round(plainMs), unit: "ms" },
    { name: "20 KB answer streamed, rendered markdown + live region (CPU)", value: round(renderedMs), unit: "ms" },
    { name: "rendering a 20 KB answer adds", value: round(added), unit: "ms", target: "< 5 ms", ok: added < 5 },
  ];
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
