// Headless output. A full disk or a closed pipe on stdout is not a success:
// the write errors are caught (never an uncaught EPIPE crash) and decide the
// exit code once everything written has been flushed.
import type { TextSink } from "./std.ts";

export class Stdout {
  private error: NodeJS.ErrnoException | undefined;

  /** `onClosed`: the reader went away (EPIPE), so the work can stop. */
  constructor(
    private readonly stream: TextSink = process.stdout,
    private readonly onClosed: () => void = () => {},
  ) {
    stream.on?.("error", (e: NodeJS.ErrnoException) => this.failed(e));
  }

  private failed(e: NodeJS.ErrnoException): void {
    if (this.error) return;
    this.error = e;
    if (e.code === "EPIPE") this.onClosed();
  }

  write(text: string): void {
    if (this.error) return;
    this.stream.write(text, (e?: Error | null) => {
      if (e) this.failed(e as NodeJS.ErrnoException);
    });
  }

  /** Waits until everything written so far is out (or failed); the first failure, if any. */
  async flush(): Promise<NodeJS.ErrnoException | undefined> {
    if (!this.error) await new Promise<void>((resolve) => this.stream.write("", () => resolve()));
    return this.error;
  }
}
