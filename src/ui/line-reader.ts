// The REPL's input line. A fresh readline interface per message, so the
// approval prompts (clack) own the terminal alone while a turn runs. Lines
// that arrive together are one message: a pasted stack trace or a pasted
// list of steps is sent whole, not cut at its first line.
import { createInterface } from "node:readline";

export interface ReadResult {
  /** The message (lines joined with "\n"); null at end of input (Ctrl+D). */
  line: string | null;
  /** Ctrl+C at the prompt. */
  interrupted: boolean;
}

export interface LineReaderOptions {
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream;
  /** Lines closer together than this belong to one paste (default 30 ms; typing is far slower). */
  pasteWindowMs?: number;
}

export class LineReader {
  /** Earlier messages, newest first, for the Up arrow. */
  readonly history: string[] = [];
  private ended = false;
  private readonly input: NodeJS.ReadableStream & { isTTY?: boolean };
  private readonly output: NodeJS.WritableStream;
  private readonly pasteWindowMs: number;

  constructor(opts: LineReaderOptions = {}) {
    this.input = opts.input ?? process.stdin;
    this.output = opts.output ?? process.stderr;
    this.pasteWindowMs = opts.pasteWindowMs ?? 30;
  }

  read(prompt: string): Promise<ReadResult> {
    if (this.ended) return Promise.resolve({ line: null, interrupted: false });
    return new Promise((resolve) => {
      const rl = createInterface({
        input: this.input,
        output: this.output,
        terminal: Boolean(this.input.isTTY),
        history: [...this.history],
        historySize: 200,
      });
      const lines: string[] = [];
      let timer: ReturnType<typeof setTimeout> | undefined;
      let done = false;
      const finish = (result: ReadResult) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        rl.close();
        resolve(result);
      };
      const deliver = () => {
        // A paste that ended mid-line: the person finishes that line, then Enter sends it all.
        if (rl.line.length > 0) return;
        const message = lines.join("\n");
        // Multi-line messages stay out of the Up-arrow history: readline cannot redraw them.
        if (lines.length === 1 && message.trim() && message !== this.history[0]) this.history.unshift(message);
        finish({ line: message, interrupted: false });
      };
      rl.on("line", (line: string) => {
        lines.push(line);
        clearTimeout(timer);
        timer = setTimeout(deliver, this.pasteWindowMs);
      });
      rl.on("SIGINT", () => {
        this.output.write("\n");
        finish({ line: "", interrupted: true });
      });
      rl.on("close", () => {
        if (done) return;
        // End of input (Ctrl+D): whatever was already entered still counts.
        this.ended = true;
        finish({ line: lines.length > 0 ? lines.join("\n") : null, interrupted: false });
      });
      rl.setPrompt(prompt);
      rl.prompt();
    });
  }
}
