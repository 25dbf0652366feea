// Collects a command's output without ever holding more than a bound: the
// first half of the budget is kept as it comes, then only the latest bytes.
// Rendering cuts on UTF-8 character boundaries and replaces invalid bytes.

const CONTINUATION = (b: number) => (b & 0xc0) === 0x80;

export class BoundedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  /** Every byte seen, kept or not. */
  total = 0;
  /** Every line ending seen, kept or not: how many lines a cut middle held. */
  newlines = 0;

  constructor(private readonly maxBytes = 30_000) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.newlines += countNewlines(chunk);
    const headRoom = Math.floor(this.maxBytes / 2) - this.headBytes;
    if (headRoom > 0) {
      const part = chunk.subarray(0, headRoom);
      this.head.push(part);
      this.headBytes += part.length;
      chunk = chunk.subarray(part.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    const keep = this.maxBytes - Math.floor(this.maxBytes / 2);
    // Trim whole chunks first, then the front of the oldest one.
    while (this.tailBytes - this.tail[0]!.length >= keep) this.tailBytes -= this.tail.shift()!.length;
    if (this.tailBytes > keep) {
      const over = this.tailBytes - keep;
      this.tail[0] = this.tail[0]!.subarray(over);
      this.tailBytes -= over;
    }
  }

  get dropped(): number {
    return this.total - this.headBytes - this.tailBytes;
  }

  /** The output as text, with a line saying how many bytes were dropped from the middle. */
  render(): string {
    const decoder = () => new TextDecoder("utf-8", { fatal: false });
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    if (this.dropped === 0) return decoder().decode(Buffer.concat([head, tail]));
    // Do not cut a character in two at either edge of the gap.
    let headEnd = head.length;
    for (let i = 0; i < 3 && headEnd > 0 && CONTINUATION(head[headEnd - 1]!); i++) headEnd--;
    if (headEnd > 0 && head[headEnd - 1]! >= 0xc0) headEnd--;
    let tailStart = 0;
    while (tailStart < 3 && tailStart < tail.length && CONTINUATION(tail[tailStart]!)) tailStart++;
    const dropped = this.dropped + (head.length - headEnd) + tailStart;
    const kept = [head.subarray(0, headEnd), tail.subarray(tailStart)];
    // The lines the cut held, so a count of "earlier lines" is of all of them (new user 10's F10: 5094 of 2,000,000).
    const lines = this.newlines - countNewlines(kept[0]!) - countNewlines(kept[1]!);
    return (
      decoder().decode(kept[0]) +
      `\n[… ${dropped} bytes${lines > 0 ? ` (${lines} line${lines === 1 ? "" : "s"})` : ""} of output dropped …]\n` +
      decoder().decode(kept[1])
    );
  }
}

function countNewlines(b: Uint8Array): number {
  let n = 0;
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++;
  return n;
}
