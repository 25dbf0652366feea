// What the person sees during a turn: a spinner until the first token, text
// as it streams, a dim line per tool call, notices in yellow, errors in red.
// Progress goes to stderr; stdout carries only the answer in headless mode.
import pc from "picocolors";
import type { LoopEvents } from "../agent/loop.ts";
import { escapeControl } from "./escape.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface TerminalOptions {
  /** Stream model text to stdout as it arrives (REPL). Headless prints only the final answer. */
  streamText: boolean;
  verbose: boolean;
  /** Animate a spinner (only on a terminal). */
  spinner: boolean;
  out?: NodeJS.WriteStream;
  err?: NodeJS.WriteStream;
}

export class TerminalUI implements LoopEvents {
  private timer: ReturnType<typeof setInterval> | undefined;
  private frame = 0;
  private midLine = false;
  private readonly out: NodeJS.WriteStream;
  private readonly err: NodeJS.WriteStream;

  constructor(private readonly opts: TerminalOptions) {
    this.out = opts.out ?? process.stdout;
    this.err = opts.err ?? process.stderr;
  }

  onModelStart(): void {
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
    this.stopSpinner();
    if (!this.opts.streamText) return;
    const safe = escapeControl(delta, { keepNewlines: true, keepTabs: true });
    this.out.write(safe);
    this.midLine = !safe.endsWith("\n");
  }

  /** End a streamed reply on its own line. */
  endText(): void {
    this.stopSpinner();
    if (this.midLine) this.out.write("\n");
    this.midLine = false;
  }

  private line(text: string): void {
    this.stopSpinner();
    if (this.midLine && this.opts.streamText) {
      this.out.write("\n");
      this.midLine = false;
    }
    this.err.write(text + "\n");
  }

  onToolStart(summary: string): void {
    this.line(pc.dim(`  ${escapeControl(summary)}`));
  }

  onToolEnd(summary: string, result: { content: string; isError: boolean }): void {
    const command = summary.startsWith("run_bash ");
    // A failed command says why at the end of its output: show its status and last lines, not its first.
    // "exit code 0" and "(no output)" is one fact, not a line and "1 more line".
    const quiet = command && /^[^\n]*\n+\(no output\)\s*$/.test(result.content);
    const shown = quiet
      ? result.content.split("\n")[0]!
      : command && result.isError ? statusAndLastLines(result.content, 3) : firstLines(result.content, result.isError ? 3 : 1);
    if (result.isError) this.line(pc.red(`  ✗ ${escapeControl(shown, { keepNewlines: true }).replace(/\n/g, "\n    ")}`));
    else if (command) this.line(pc.dim(`    ${escapeControl(shown, { keepNewlines: true }).replace(/\n/g, " ")}`));
    else if (this.opts.verbose) this.line(pc.dim(`    ${summary}: ${result.content.length} chars`));
  }

  onRetry(message: string): void {
    this.line(pc.yellow(`  ${escapeControl(message)}`));
  }

  onRequest(bytes: number): void {
    if (this.opts.verbose) this.line(pc.dim(`  request: ${bytes} bytes`));
  }

  onNotice(message: string): void {
    this.line(pc.yellow(message));
  }

  onInjected(text: string): void {
    if (this.opts.verbose) this.line(pc.dim(`  [injected] ${escapeControl(text.replace(/\n/g, " "))}`));
  }

  /** Plain progress from tools (ui.info). */
  info(line: string): void {
    this.line(line);
  }

  debug(line: string): void {
    if (this.opts.verbose) this.line(pc.dim(line));
  }

  error(message: string): void {
    this.line(pc.red(`error: ${escapeControl(message)}`));
  }
}

/** run_bash's status line (exit code…), then the last `n` non-empty lines of its output. */
function statusAndLastLines(text: string, n: number): string {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const [status, ...output] = lines;
  const tail = output.slice(-n).map((l) => (l.length > 400 ? l.slice(0, 400) + "…" : l));
  const hidden = output.length - tail.length;
  return [status ?? "", ...(hidden > 0 ? [`… (${hidden} earlier line${hidden === 1 ? "" : "s"})`] : []), ...tail].join("\n");
}

/** The first `n` non-empty lines, each cut at 400 characters. */
function firstLines(text: string, n: number): string {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const shown = lines.slice(0, n).map((l) => (l.length > 400 ? l.slice(0, 400) + "…" : l));
  if (lines.length > n) shown.push(`… (${lines.length - n} more line${lines.length - n === 1 ? "" : "s"})`);
  return shown.join("\n");
}
