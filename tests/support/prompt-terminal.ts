// A clack prompt driven through injected streams: keys in, the screen (ANSI
// stripped) and the answer out.
import { PassThrough } from "node:stream";

export const KEY = { down: "\x1b[B", up: "\x1b[A", enter: "\r", escape: "\x1b", ctrlC: "\x03" };

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

export class Terminal {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  raw = "";
  constructor() {
    this.output.on("data", (d: Buffer) => (this.raw += d.toString()));
  }
  get screen(): string {
    return stripAnsi(this.raw);
  }
  /** Waits until `text` has been printed (after what was there when called, if `fresh`). */
  async waitFor(text: string, from = 0): Promise<void> {
    for (let i = 0; i < 600; i++) {
      if (this.screen.indexOf(text, from) !== -1) return;
      await sleep(5);
    }
    throw new Error(`timed out waiting for ${JSON.stringify(text)}; screen:\n${this.screen}`);
  }
  async press(...keys: string[]): Promise<void> {
    for (const k of keys) {
      this.input.write(k);
      // a lone Escape is only recognised after readline's 50 ms escape timeout
      await sleep(k === KEY.escape ? 80 : 10);
    }
  }
}
