// What the person sees during a turn: a spinner until the first token, text
// as it streams, a dim line per tool call, notices in yellow, errors in red.
// Progress goes to stderr; stdout carries only the answer in headless mode.
// On a terminal (a LiveRegion given) the answer is rendered markdown, block by
// block, with the block being written and the status line drawn below it.
import pc from "./colors.ts";
import type { LoopEvents } from "../agent/loop.ts";
import { foldThinking } from "../agent/thinking.ts";
import { escapeControl, escapeOutput, stripSgr } from "./escape.ts";
import { wrapWords } from "./wrap-words.ts";
import type { TextSink } from "./std.ts";
import type { Attention } from "./attention.ts";
import type { LiveRegion } from "./live-region.ts";
import { MarkdownBlocks, renderMarkdown } from "./markdown.ts";
import { BlockPreview } from "./preview.ts";
import { formatStatus, type RunningStep, type StatusFigures } from "./status-line.ts";
import { formatSize } from "../text/size.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface TerminalOptions {
  /** Stream model text to stdout as it arrives (REPL). Headless prints only the final answer. */
  streamText: boolean;
  verbose: boolean;
  /** Animate a spinner (only on a terminal). */
  spinner: boolean;
  /** Default process.stdout and process.stderr, built only when first written to (headless passes FdSinks). */
  out?: TextSink;
  err?: TextSink;
  /** Draw on a terminal: everything is printed above this region, which holds the open block and the status line. */
  region?: LiveRegion;
  /** Render finished blocks as markdown (with a region; off for NO_COLOR). */
  markdown?: boolean;
  /** Without a region, print a running command's latest line now and then (default true; stream-json's stderr stays quiet). */
  commandProgress?: boolean;
  /** Signals that bunker waits for the person (a terminal's REPL only; none with "notify": false). */
  attention?: Attention;
}

/** Who else reads the terminal, paused while a prompt (an approval) has it. */
export interface TerminalOwner {
  suspend(): void;
  resume(): void;
}

/** Lines of an MCP tool's result shown in the transcript. */
const MCP_LINES = 3;
/** A command's last lines shown live while it runs. */
const TAIL_LINES = 5;
/** …and kept in the transcript when it ends. */
const KEPT_LINES = 3;
/** Without a region (headless, a pipe): a running command's latest line, once it has run this long… */
const PROGRESS_AFTER_MS = 1000;
/** …and then at most this often. */
const PROGRESS_EVERY_MS = 250;

export class TerminalUI implements LoopEvents {
  private timer: ReturnType<typeof setInterval> | undefined;
  private frame = 0;
  private midLine = false;
  private readonly region: LiveRegion | undefined;
  private blocks = new MarkdownBlocks();
  /** The open block's wrapped rows so far. */
  private readonly preview = new BlockPreview();
  /** A block was printed: the next one is set off by a blank line. */
  private afterBlock = false;
  /** Text of the current reply has been shown (a retry then marks where the cut one ended). */
  private textThisReply = false;
  private step: RunningStep | null = null;
  private ticker: ReturnType<typeof setInterval> | undefined;
  /** The figures the status line shows (set by the REPL). */
  statusFigures: (() => StatusFigures) | null = null;
  /** The person's Escape or Ctrl+C at a question stopped this turn, and the closed question said so. */
  private stopShown = false;
  /** Paused while an approval prompt has the terminal. */
  owner: TerminalOwner | null = null;
  /** The last command's output as the model got it (/expand shows it). */
  lastCommand: { summary: string; content: string } | null = null;
  /** A running command's output for its live tail (a terminal only: elsewhere run_bash prints progress lines). */
  readonly output?: (text: string) => void;
  private tail: { partial: string; lines: string[] } | null = null;
  /** Lines tools printed (ui.info) during this call, colours dropped: a note of the result that says the same is not shown again. */
  private readonly infoShown = new Set<string>();
  /** Without a region: the running command's progress lines (the last one printed is not printed again at its end). */
  private progress: { startedAt: number; printedAt: number; printed: string | null; count: number; timer?: ReturnType<typeof setTimeout> } | null = null;

  constructor(private readonly opts: TerminalOptions) {
    this.region = opts.region;
    // Always set: a tool without it prints progress lines of its own.
    this.output = this.region ? (text) => this.liveOutput(text) : opts.commandProgress === false ? () => {} : (text) => this.progressOutput(text);
  }

  private get out(): TextSink {
    return this.opts.out ?? process.stdout;
  }

  private get err(): TextSink {
    return this.opts.err ?? process.stderr;
  }

  /** A turn starts: the status line shows what runs and for how long. */
  beginTurn(): void {
    this.turnStartedAt = Date.now();
    this.opts.attention?.answered();
    this.stopShown = false;
    this.setStep("waiting");
    clearInterval(this.ticker);
    if (this.region) this.ticker = setInterval(() => this.drawStatus(), 100);
  }

  endTurn(): void {
    this.endText();
    clearInterval(this.ticker);
    this.ticker = undefined;
    this.step = null;
    this.drawStatus();
    if (this.turnStartedAt !== null) this.opts.attention?.turnEnded(Date.now() - this.turnStartedAt);
    this.turnStartedAt = null;
  }

  /** When the running turn started (null between turns). */
  private turnStartedAt: number | null = null;

  /** A question (an approval) opens: during a turn the person may be elsewhere, and is told (at their own /undo, not). */
  questionOpens(): void {
    if (this.turnStartedAt !== null) this.opts.attention?.question();
  }

  /** The question was answered. */
  questionAnswered(): void {
    this.opts.attention?.answered();
  }

  private setStep(label: string): void {
    if (this.step?.label === label) return;
    this.step = { label, startedAt: Date.now() };
    this.drawStatus();
  }

  drawStatus(): void {
    if (!this.region || !this.statusFigures) return;
    this.region.set("status", [formatStatus(this.statusFigures(), this.step, Date.now(), true, this.region.columns)]);
  }

  /** Runs `fn` with the whole terminal: the region is taken down and the keyboard paused meanwhile. */
  async aside<T>(fn: () => Promise<T>): Promise<T> {
    this.endText();
    this.region?.hide();
    this.owner?.suspend();
    try {
      return await fn();
    } finally {
      this.owner?.resume();
      this.region?.show();
    }
  }

  onModelStart(): void {
    this.textThisReply = false;
    if (this.region) return this.setStep("waiting");
    if (!this.opts.spinner) return;
    this.stopSpinner();
    this.timer = setInterval(() => {
      this.err.write(`\r${pc.cyan(FRAMES[this.frame++ % FRAMES.length]!)} ${pc.dim("thinking")}`);
    }, 80);
  }

  stopSpinner(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.err.write("\r\x1b[2K");
  }

  onText(delta: string): void {
    this.textThisReply = true;
    if (this.region) return this.liveText(delta);
    this.stopSpinner();
    if (!this.opts.streamText) return;
    const safe = escapeControl(delta, { keepNewlines: true, keepTabs: true });
    this.out.write(safe);
    this.midLine = !safe.endsWith("\n");
  }

  /** Finished blocks go into the transcript rendered; the open one is previewed as plain text. */
  private liveText(delta: string): void {
    const region = this.region!;
    this.setStep("writing");
    for (const block of this.blocks.push(delta)) this.printBlock(block);
    region.set("preview", this.preview.rowsFor(this.blocks, region.columns - 1), { later: true, fits: true });
  }

  private printBlock(block: string): void {
    const region = this.region!;
    const text = this.opts.markdown ? renderMarkdown(block, region.columns - 1) : escapeControl(block, { keepNewlines: true, keepTabs: true });
    region.print((this.afterBlock ? "\n" : "") + text + "\n");
    this.afterBlock = true;
  }

  /** End a streamed reply on its own line. */
  endText(): void {
    if (this.region) {
      const last = this.blocks.finish();
      this.region.set("preview", []);
      if (last !== null) this.printBlock(last);
      this.afterBlock = false;
      return;
    }
    this.stopSpinner();
    if (this.midLine) this.out.write("\n");
    this.midLine = false;
  }

  /** The terminal's width now (read at each line: a resize applies to the next); a pipe or a file has none. */
  /** The width of a tool's output row under its 4-column indent (one column spare: a full row would wrap on some terminals). */
  private get rowWidth(): number | undefined {
    const columns = this.region?.columns ?? this.err.columns;
    return columns ? columns - 5 : undefined;
  }

  private get columns(): number | undefined {
    return this.region?.columns ?? this.err.columns;
  }

  /**
   * Every line bunker writes for the person goes through here: on a terminal it is fitted to the width between
   * words, each note's further rows under its text (the terminal's own wrap cut "run b" / "unker"); a pipe gets
   * it unwrapped.
   */
  private line(text: string): void {
    text = wrapWords(text, this.columns, { hang: true });
    if (this.region) {
      this.endText();
      return this.region.print(text + "\n");
    }
    this.stopSpinner();
    if (this.midLine && this.opts.streamText) {
      this.out.write("\n");
      this.midLine = false;
    }
    this.err.write(text + "\n");
  }

  /** The live tail of a running command: its last lines, redrawn under the transcript as they come. */
  private liveOutput(text: string): void {
    const t = (this.tail ??= { partial: "", lines: [] });
    const parts = (t.partial + text).split(/\r?\n|\r/);
    t.partial = parts.pop()!.slice(-1000);
    for (const p of parts) if (p.trim() !== "") t.lines.push(p);
    t.lines = t.lines.slice(-TAIL_LINES);
    const rows = t.partial.trim() ? [...t.lines, t.partial].slice(-TAIL_LINES) : t.lines;
    this.region!.set("preview", rows.map((l) => pc.dim(`  │ ${escapeOutput(stripSgr(l)).replace(/\n/g, "\\n")}`)), { later: true });
  }

  /**
   * Without a region, a running command shows its latest complete line now and
   * then, on a line of its own: none for a command that ends within a second
   * (its last lines come with its result), and never the same line twice.
   */
  private progressOutput(text: string): void {
    const t = (this.tail ??= { partial: "", lines: [] });
    const parts = (t.partial + text).split(/\r?\n|\r/);
    t.partial = parts.pop()!.slice(-1000);
    for (const p of parts) if (p.trim() !== "") t.lines.push(p);
    t.lines = t.lines.slice(-TAIL_LINES);
    const p = (this.progress ??= { startedAt: Date.now(), printedAt: 0, printed: null, count: 0 });
    if (p.timer) return;
    const at = Math.max(p.startedAt + PROGRESS_AFTER_MS, p.printedAt + PROGRESS_EVERY_MS);
    p.timer = setTimeout(() => {
      p.timer = undefined;
      const last = this.tail?.lines.at(-1);
      // Compared with the result's last lines (colours dropped there too): not printed twice.
      const latest = last === undefined ? undefined : stripSgr(last);
      if (latest === undefined || latest === p.printed || this.progress !== p) return;
      p.printed = latest;
      p.printedAt = Date.now();
      p.count++;
      const shown = escapeOutput(latest).replace(/\n/g, "\\n");
      this.line(`  │ ${shown.length > 160 ? shown.slice(0, 159) + "…" : shown}`);
    }, Math.max(0, at - Date.now()));
  }

  onToolStart(summary: string): void {
    this.infoShown.clear();
    this.setStep(summary.split(" ")[0]!);
    this.line(pc.dim(`  ${escapeControl(summary)}`));
  }

  onToolEnd(summary: string, given: { content: string; isError: boolean; shown?: string; images?: unknown[] }): void {
    const command = summary.startsWith("run_bash ");
    // A command's colours are dropped from what the person is shown (here and in /expand); the model's result keeps them.
    const result = command ? { ...given, content: stripSgr(given.content) } : given;
    // A note the tool already printed whole (a file set aside) is not printed a second time among the last lines.
    const tailed = command ? { ...result, content: result.content.split("\n").filter((l) => !(l.startsWith("note: ") && this.infoShown.has(escapeControl(l.slice(6)).trim()))).join("\n") } : result;
    // A failed command says why at the end of its output: show its status and last lines, not its first.
    // "exit code 0" and "(no output)" is one fact, not a line and "1 more line".
    const quiet = command && /^[^\n]*\n+\(no output\)\s*$/.test(result.content);
    // The last progress line printed (headless) is not printed again under the status.
    const printed = this.progress?.printed ? { last: this.progress.printed, count: this.progress.count } : undefined;
    if (command) {
      this.tail = null;
      clearTimeout(this.progress?.timer);
      this.progress = null;
      this.region?.set("preview", []);
      this.lastCommand = { summary, content: result.content };
    }
    // The turn stopped at the person's Escape, said at the question: of a command stopped with it, only what it
    // printed (not "interrupted by the user", nor the proxy's note of the refusal just made).
    if (command && this.stopShown) {
      const printed = tailed.content.split("\n").slice(1).filter((l) => l.trim() !== "" && l !== "(no output)" && !l.startsWith("note: "));
      if (printed.length > 0) this.line(pc.dim(`    ${clipRows(escapeOutput(statusAndLastLines(["stopped with the turn", ...printed].join("\n"), KEPT_LINES)), this.rowWidth).replace(/\n/g, "\n    ")}`));
      return;
    }
    // The tool's own line for the person ("You refused this change.", "Updated calc.py (+3 -1)"); "" when already said.
    if (given.shown !== undefined) {
      if (given.shown !== "") this.line(given.isError ? pc.red(`  ✗ ${escapeControl(given.shown)}`) : pc.dim(`    ${escapeControl(given.shown)}`));
      return;
    }
    // An MCP tool's result is the server's words: its first lines, clipped to the screen (the model has it all).
    if (!result.isError && summary.startsWith("mcp__")) {
      const images = given.images?.length ?? 0;
      const shown = [firstLines(result.content, MCP_LINES), ...(images > 0 ? [`(+${images} image${images === 1 ? "" : "s"})`] : [])].filter(Boolean).join("\n") || "(no output)";
      const width = ((this.region?.columns ?? this.err.columns) || 100) - 5;
      const rows = escapeOutput(shown).split("\n").map((l) => (Bun.stringWidth(l) > width ? Bun.sliceAnsi(l, 0, width - 1) + "…" : l));
      this.line(pc.dim(rows.map((l) => `    ${l}`).join("\n")));
      return;
    }
    // A command's output ends with what matters (the result, the error): its last lines stay on screen.
    const shown = quiet
      ? result.content.split("\n")[0]!
      : command ? statusAndLastLines(tailed.content, KEPT_LINES, printed) : firstLines(result.content, result.isError ? 3 : 1);
    // A command's lines one row each: the person sees the last lines, not one long line wrapped to column 0 (/expand
    // has it whole); a tool's error is words, wrapped between them.
    if (result.isError) this.line(pc.red(`  ✗ ${(command ? clipRows(escapeOutput(shown), this.rowWidth) : escapeOutput(shown)).replace(/\n/g, "\n    ")}`));
    else if (command) this.line(pc.dim(`    ${clipRows(escapeOutput(shown), this.rowWidth).replace(/\n/g, "\n    ")}`));
    else if (this.opts.verbose) this.line(pc.dim(`    ${escapeControl(summary)}: ${result.content.length} chars`));
  }

  /** Thinking streams: the status line says so. */
  onThinking(): void {
    this.stopSpinner();
    this.setStep("thinking");
  }

  /** A finished thinking block: one dim line, folded (/thinking shows the last one whole). Headless shows only the answer. */
  onThinkingBlock(thinking: string, redacted: boolean): void {
    if (!this.opts.streamText) return;
    const columns = (this.region?.columns ?? this.err.columns) || 80;
    // Escaped before folding: the line is as wide as it looks.
    const line = redacted ? "✻ Thinking (encrypted by the API)" : foldThinking(escapeControl(thinking, { keepNewlines: true }), columns - 3);
    this.line(pc.dim(`  ${line}`));
  }

  onRetry(message: string): void {
    // A reply cut off mid-stream is shown again whole: mark where the cut one ended, so its text does not read as finished.
    if (this.textThisReply && this.opts.streamText) this.line(pc.dim("  ⋯ (cut off here)"));
    this.textThisReply = false;
    this.line(pc.yellow(`  ${escapeControl(message)}`));
  }

  onRequest(bytes: number): void {
    if (this.opts.verbose) this.line(pc.dim(`  request: ${bytes} bytes`));
  }

  /**
   * The person refused a question with Escape or Ctrl+C, which stops the turn, and the closed question said
   * so ("Refused; the turn is cancelled."): what ends because of it is not said again.
   */
  stoppedAtQuestion(): void {
    this.stopShown = true;
  }

  /** The turn was interrupted: said, unless the question the person refused with Escape already said so. */
  onInterrupted(): void {
    if (!this.stopShown) this.onNotice("Interrupted.");
  }

  onNotice(message: string): void {
    this.line(pc.yellow(escapeControl(message)));
  }

  /**
   * A mention that could not be attached: under the "attached" lines, marked as a failure is ("  ✗ "), not a line at
   * the left edge read as stray output (new user 12's N12-05).
   */
  onNotAttached(line: string): void {
    this.line(pc.red(`  ✗ ${escapeControl(line)}`));
  }

  onInjected(text: string): void {
    if (this.opts.verbose) this.line(pc.dim(`  [injected] ${escapeControl(text.replace(/\n/g, " "))}`));
  }

  /** Plain progress from tools (ui.info). */
  info(line: string): void {
    this.infoShown.add(stripSgr(line).trim());
    this.line(line);
  }

  debug(line: string): void {
    if (this.opts.verbose) this.line(pc.dim(line));
  }

  error(message: string): void {
    this.line(pc.red(`error: ${escapeControl(message)}`));
  }
}

/**
 * run_bash's status line (exit code…), then the last `n` non-empty lines of
 * its output, from after the last line `printed` as progress when it is among
 * them; the count is of lines shown nowhere.
 */
function statusAndLastLines(text: string, n: number, printed?: { last: string; count: number }): string {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const [status, ...all] = lines;
  // The middle of a huge output was dropped before anyone saw it (bounded-output.ts): say so, not count its marker as a line.
  const gap = all.findIndex((l) => DROPPED.test(l));
  const found = gap >= 0 ? DROPPED.exec(all[gap]!) : null;
  // A cut among the last lines is said where it is, in bunker's words (the bracketed marker is the model's).
  const inTail = found !== null && gap >= all.length - n;
  const marker = inTail ? null : found;
  const dropped = marker ? Number(marker[1]) : 0;
  // The lines the cut held (a marker from before they were counted says none): counted with the rest.
  const droppedLines = marker?.[2] ? Number(marker[2]) : 0;
  const output = dropped ? all.filter((_, i) => i !== gap) : inTail ? all.map((l, i) => (i === gap ? cutHere(found) : l)) : all;
  let last = output.slice(-n);
  const seen = printed === undefined ? -1 : last.lastIndexOf(printed.last);
  if (seen >= 0) last = last.slice(seen + 1);
  const tail = last.map((l) => (l.length > 400 ? l.slice(0, 400) + "…" : l));
  const hidden = Math.max(0, output.length - tail.length - (printed?.count ?? 0));
  // Every earlier line, those cut from the middle included, and how much of them was not kept. New user:
  // "5094 earlier lines; 14.2 MB cut…" read as if 5094 were all there was, of 2 000 000.
  const earlier = hidden + droppedLines;
  const cut = dropped ? `${droppedLines ? `; ${formatSize(dropped)} of them` : `, after ${formatSize(dropped)}`} cut from the middle, not kept` : "";
  const summary = earlier > 0 ? `… (${earlier.toLocaleString("en-US")} earlier line${earlier === 1 ? "" : "s"}${dropped && !droppedLines ? " kept" : ""}${cut})` : dropped ? `… (${formatSize(dropped)} cut from the middle, not kept)` : null;
  return [status ?? "", ...(summary ? [summary] : []), ...tail].join("\n");
}

const DROPPED = /^\[… (\d+) bytes(?: \((\d+) lines?\))? of output dropped …\]$/;

/** A cut among the last lines shown, where it was: "… (1,204 lines, 2.1 MB cut from the middle, not kept)". */
function cutHere(marker: RegExpExecArray): string {
  const lines = marker[2] ? `${Number(marker[2]).toLocaleString("en-US")} line${marker[2] === "1" ? "" : "s"}, ` : "";
  return `… (${lines}${formatSize(Number(marker[1]))} cut from the middle, not kept)`;
}

/**
 * Each row of a command's output after its first (the status, or the refusal: words, wrapped between them) cut to
 * `width` columns with "…": a kept line of 300 KB is one row, not a screenful at column 0. No width (a pipe): whole.
 */
function clipRows(text: string, width: number | undefined): string {
  if (width === undefined) return text;
  return text.split("\n").map((l, i) => (i > 0 && Bun.stringWidth(l) > width ? Bun.sliceAnsi(l, 0, width - 1) + "…" : l)).join("\n");
}

/** The first `n` non-empty lines, each cut at 400 characters. */
function firstLines(text: string, n: number): string {
  // A loop, not .filter and .map: a read-only headless turn calls neither (jit.ts).
  const shown: string[] = [];
  let nonEmpty = 0;
  for (const l of text.split("\n")) {
    if (l.trim() === "") continue;
    if (nonEmpty++ < n) shown.push(l.length > 400 ? l.slice(0, 400) + "…" : l);
  }
  if (nonEmpty > n) shown.push(`… (${nonEmpty - n} more line${nonEmpty - n === 1 ? "" : "s"})`);
  return shown.join("\n");
}
