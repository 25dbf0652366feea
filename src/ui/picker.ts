// A list to choose one item from with the arrow keys: Enter picks, Escape or
// Ctrl+C picks nothing. Drawn in a live region, so it leaves only the line
// that says what was picked.
import pc from "./colors.ts";
import { escapeControl } from "./escape.ts";
import { Keyboard, type Key } from "./keys.ts";
import { LiveRegion, type RegionOutput } from "./live-region.ts";

export interface PickerOptions {
  keyboard?: Keyboard;
  output?: RegionOutput;
}

/** The index picked from `labels`, or null. `title` is the question above the list. */
export function pick(title: string, labels: string[], opts: PickerOptions = {}): Promise<number | null> {
  const output = opts.output ?? process.stderr;
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
    const done = (index: number | null) => {
      keyboard.stop();
      region.set("list", []);
      region.print(index === null ? pc.dim(`${title} (cancelled)`) : `${title} ${escapeControl(labels[index]!)}`);
      resolve(index);
    };
    keyboard.onKey = (k: Key) => {
      if (k.name === "up") at = Math.max(0, at - 1);
      else if (k.name === "down") at = Math.min(labels.length - 1, at + 1);
      else if (k.name === "home") at = 0;
      else if (k.name === "end") at = labels.length - 1;
      else if (k.name === "enter") return done(at);
      else if (k.name === "escape" || k.name === "ctrl-c" || (k.name === "text" && k.text === "q")) return done(null);
      draw();
    };
    keyboard.start();
    draw();
  });
}
