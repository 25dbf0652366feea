// stdout and stderr without Node's stream objects. The first touch of
// process.stdout or process.stderr builds Node's stream machinery (about 3 ms
// in the compiled binary: more than a headless turn spends on anything of its
// own before its first request); an FdSink writes the same bytes for a few µs.
import { writeSync } from "node:fs";
import { isTerminal } from "./is-terminal.ts";

/** What bunker writes its output through: process.stdout or process.stderr, an FdSink, or a test's capture. */
export interface TextSink {
  write(text: string, done?: (err?: Error | null) => void): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
  /** A stream's asynchronous failures (Node streams); an FdSink reports its failures to `done`. */
  on?(event: "error", listener: (err: Error) => void): unknown;
}

const encoder = new TextEncoder();

/**
 * stdout or stderr written at once, as Node writes them to files and pipes on
 * Linux. A descriptor left non-blocking and full (EAGAIN) hands what is left,
 * and everything after it, to Node's stream, in order.
 */
export class FdSink implements TextSink {
  private stream: NodeJS.WriteStream | undefined;

  constructor(readonly fd: 1 | 2) {}

  get isTTY(): boolean {
    return isTerminal(this.fd);
  }

  /** The terminal's width (from Node's stream: only on a terminal, where its cost does not matter). */
  get columns(): number | undefined {
    return this.isTTY ? this.node().columns : undefined;
  }

  private node(): NodeJS.WriteStream {
    return this.fd === 1 ? process.stdout : process.stderr;
  }

  write(text: string, done?: (err?: Error | null) => void): boolean {
    if (this.stream) return this.stream.write(text, done);
    const bytes = encoder.encode(text);
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EAGAIN") {
        this.stream = this.node();
        return this.stream.write(bytes.subarray(written), done);
      }
      // A closed pipe (EPIPE), a full disk (ENOSPC): the caller decides what it means, as with a stream.
      if (done) queueMicrotask(() => done(err as Error));
      return false;
    }
    if (done) queueMicrotask(() => done(null));
    return true;
  }
}
