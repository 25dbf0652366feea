// A list to choose one item from with the arrow keys: Enter picks, Escape (or
// q) and Ctrl+C pick nothing, and say which (a caller may treat an interrupt
// apart). Drawn in a live region, so it leaves only the line that says what
// was picked; a cancel leaves nothing (the caller says what it means).
import pc from "./colors.ts";
import { escapeControl } from "./escape.ts";
import { Keyboard, type Key } from "./keys.ts";
import { LiveRegion, type RegionOutput } from "./live-region.ts";

/** A terminal to draw on; a tty stream tells of a new size with 'resize'. */
type PickerOutput = RegionOutput & { on?(event: "resize", listener: () => void): unknown; off?(event: "resize", listener: () => void): unknown };

export interface PickerOptions {
  keyboard?: Keyboard;
  output?: PickerOutput;
}

/** How a pick ended without a choice: Escape or q, or Ctrl+C. */
export type Cancelled = "escape" | "ctrl-c";

/** The index picked from `labels`, or how it was cancelled. `title` is the question above the list. */
export function pick(title: string, labels: string[], opts: PickerOptions = {}): Promise<number | Cancelled> {
  const output: PickerOutput = opts.output ?? process.stderr;
  const keyboard = opts.keyboard ?? new Keyboard(process.stdin, output);
  const region = new LiveRegion(output, ["list"]);
  let at = 0;
  const draw = () => {
    const room = Math.max(3, (output.rows ?? 24) - 3);
    const first = Math.min(Math.max(0, at - room + 1), Math.max(0, labels.length - room));
    const rows = labels.slice(first, first + room).map((l, i) => (first + i === at ? `${pc.cyan("›")} ${pc.bold(escapeControl(l))}` : `  ${escapeControl(l)}`));
    region.set("list", [pc.bold(title), ...rows, pc.dim("↑/↓ to move, Enter to pick, Esc to cancel")]);
  };
  return new Promise((resolve) => {
    // A new size: the list is drawn again for it (how many rows fit, labels cut at the new width; the region
    // clears what the terminal re-wrapped), not left as the old width's rows wrapped in two.
    const resized = () => draw();
    const done = (index: number | Cancelled) => {
      output.off?.("resize", resized);
      keyboard.stop();
      region.set("list", []);
      // The choice on one row, cut at the width ("…"): the whole label wrapped by the terminal, mid-word (N12-02).
      if (typeof index === "number") {
        const line = `${title} ${escapeControl(labels[index]!)}`;
        const columns = output.columns ?? 0;
        region.print(columns > 10 && Bun.stringWidth(line) > columns - 1 ? Bun.sliceAnsi(line, 0, columns - 1, { ellipsis: "…" }) : line);
      }
      resolve(index);
    };
    keyboard.onKey = (k: Key) => {
      if (k.name === "up") at = Math.max(0, at - 1);
      else if (k.name === "down") at = Math.min(labels.length - 1, at + 1);
      else if (k.name === "home") at = 0;
      else if (k.name === "end") at = labels.length - 1;
      else if (k.name === "enter") return done(at);
      else if (k.name === "escape" || (k.name === "text" && k.text === "q")) return done("escape");
      else if (k.name === "ctrl-c") return done("ctrl-c");
      draw();
    };
    keyboard.start();
    output.on?.("resize", resized);
    draw();
  });
}
