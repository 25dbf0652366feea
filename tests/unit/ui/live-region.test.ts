// The redrawn bottom of the screen, replayed on a model terminal to see what a person would see.
import { expect, test } from "bun:test";
import { LiveRegion } from "../../../src/ui/live-region.ts";
import { modelTerminal as screen } from "../../support/model-terminal.ts";

test("printed lines go above the region; the region is redrawn below them, never twice", () => {
  const term = screen(30);
  const region = new LiveRegion(term, ["preview", "input", "status"]);
  region.set("status", ["status: 1"]);
  region.set("input", ["> hi"], { cursor: { line: 0, col: 4 } });
  region.print("first answer line");
  region.set("status", ["status: 2"]);
  region.print("second line");
  expect(term.text()).toBe("first answer line\nsecond line\n> hi\nstatus: 2");
  expect(term.cursor()).toEqual({ r: 2, c: 4 });
});

test("an input line longer than the screen is wide wraps, and the cursor lands where the text ends", () => {
  const term = screen(20);
  const region = new LiveRegion(term, ["input", "status"]);
  region.set("status", ["st"]);
  region.set("input", ["> 123456789012345678"], { cursor: { line: 0, col: 20 } });
  region.set("input", ["> 1234567890123456789abc"], { cursor: { line: 0, col: 24 } });
  expect(term.text()).toBe("> 123456789012345678\n9abc\nst");
  expect(term.cursor()).toEqual({ r: 1, c: 4 });
  region.hide();
  expect(term.text()).toBe("");
});

test("lines other than the input are cut to one row", () => {
  const term = screen(20);
  const region = new LiveRegion(term, ["status"]);
  region.set("status", ["a status much wider than twenty"]);
  // One column is kept free: a line that fills the row would leave the cursor waiting to wrap.
  expect(term.text()).toBe("a status much wide…");
});

test("a redraw writes only from the first line that changed", () => {
  const term = screen(30);
  let written = "";
  const out = { ...term, write: (s: string) => ((written += s), term.write(s)) };
  const region = new LiveRegion(out, ["preview", "input", "status"]);
  region.set("preview", ["one", "two", "thr"]);
  region.set("input", ["> "], { cursor: { line: 0, col: 2 } });
  region.set("status", ["status"]);
  written = "";
  region.set("preview", ["one", "two", "three"]);
  expect(written).not.toContain("one");
  expect(written).toContain("three");
  expect(term.text()).toBe("one\ntwo\nthree\n>\nstatus");
  expect(term.cursor()).toEqual({ r: 3, c: 2 });
  written = "";
  region.set("preview", ["one", "two", "three"]);
  expect(written).toBe("");
  region.set("preview", ["one"]);
  expect(term.text()).toBe("one\n>\nstatus");
  expect(term.cursor()).toEqual({ r: 1, c: 2 });
});

test("input taller than the screen keeps its marker and says how many lines are above; the cursor's line is shown", () => {
  const term = screen(30);
  const region = new LiveRegion(term, ["preview", "input", "status"]);
  region.set("status", ["status"]);
  region.set("preview", ["preview row"]);
  const lines = Array.from({ length: 40 }, (_, i) => `${i === 0 ? ">" : " "} line ${i + 1}`);
  region.set("input", lines, { cursor: { line: 39, col: 9 } });
  // 20 rows, 19 for the region: the status, the note, and the last 17 lines.
  const shown = term.text().split("\n");
  expect(shown).toEqual(["> (23 more lines above)", ...lines.slice(23), "status"]);
  expect(term.cursor()).toEqual({ r: 17, c: 9 });
});

test("after a resize the lines set as fitting the old width are cut to the new one", () => {
  const term = screen(40);
  const region = new LiveRegion(term, ["preview", "status"]);
  region.set("preview", ["x".repeat(35)], { fits: true });
  region.set("status", ["status"]);
  term.columns = 20;
  region.draw();
  expect(term.text().split("\n").slice(-2)).toEqual([`${"x".repeat(18)}…`, "status"]);
});

test("lines printed while hidden (a question has the screen) wait, and show in order when it is shown again", () => {
  const out = screen(40);
  const region = new LiveRegion(out, ["input"]);
  region.set("input", ["› typed"]);
  region.hide();
  out.write("? question drawn by the prompt\n");
  region.print("exit code 0");
  region.print("the answer\n");
  expect(out.text()).toBe("? question drawn by the prompt");
  region.show();
  expect(out.text()).toBe("? question drawn by the prompt\nexit code 0\nthe answer\n› typed");
});

/**
 * A terminal that re-wraps on resize as tmux, kitty or iTerm2 do: rows a line wrapped onto are joined and
 * split again at the new width (a line wider than it is split too), and the cursor keeps its place in its line.
 * Autowrap can be turned off (CSI ?7l): a row then ends at the edge, the last cell overwritten.
 */
function reflowingScreen(cols: number) {
  let rows: { text: string; wrapped: boolean }[] = [{ text: "", wrapped: false }];
  let r = 0;
  let c = 0;
  let autowrap = true;
  let insert = false;
  const row = () => (rows[r] ??= { text: "", wrapped: false });
  const put = (ch: string) => {
    if (c >= cols) {
      if (autowrap) {
        row().wrapped = true;
        r++;
        c = 0;
      } else c = cols - 1;
    }
    const line = row();
    // Insert mode pushes the rest of the row right (what passes the edge is lost), and, as tmux counts it, the row
    // is then written up to its edge: a re-wrap makes rows of its blanks too.
    line.text = insert ? (line.text.padEnd(c, " ").slice(0, c) + ch + line.text.slice(c)).padEnd(cols, " ").slice(0, cols) : line.text.padEnd(c, " ").slice(0, c) + ch + line.text.slice(c + 1);
    c++;
  };
  return {
    write(s: string) {
      const re = /\x1b\[(\d*)([A-Za-z@])|\x1b\[\?(\d+)([hl])|\r|\n|[^\x1b\r\n]/gu;
      for (const m of s.matchAll(re)) {
        const t = m[0];
        if (t === "\r") c = 0;
        else if (t === "\n") (r++, (c = 0));
        else if (m[3] === "7") autowrap = m[4] === "h";
        else if (m[2] === "A") r = Math.max(0, r - Number(m[1] || 1));
        else if (m[2] === "B") r += Number(m[1] || 1);
        else if (m[2] === "C") c = Math.min(cols - 1, c + Number(m[1] || 1));
        else if (m[2] === "J") (rows.length = r + 1), (row().text = row().text.slice(0, c)), (row().wrapped = false);
        else if (m[2] === "K") row().text = row().text.slice(0, c);
        else if (m[2] === "L") rows.splice(r, 0, ...Array.from({ length: Number(m[1] || 1) }, () => ({ text: "", wrapped: false })));
        else if (m[2] === "@") row().text = (row().text.padEnd(c, " ").slice(0, c) + " ".repeat(Number(m[1] || 1)) + row().text.slice(c)).slice(0, cols);
        else if (m[2] === "P") row().text = row().text.slice(0, c) + row().text.slice(c + Number(m[1] || 1));
        else if (m[1] === "4" && (m[2] === "h" || m[2] === "l")) insert = m[2] === "h";
        else if (m[2] || t.startsWith("\x1b")) continue;
        else put(t);
        row();
      }
    },
    resize(to: number) {
      const lines: string[] = [];
      let at = { line: 0, offset: 0 };
      let text = "";
      rows.forEach((row, i) => {
        if (i === r) at = { line: lines.length, offset: text.length + c };
        text += row.wrapped ? row.text.padEnd(cols, " ") : row.text;
        if (!row.wrapped || i === rows.length - 1) (lines.push(text), (text = ""));
      });
      rows = [];
      lines.forEach((line, i) => {
        if (i === at.line) (r = rows.length + Math.floor(at.offset / to)), (c = at.offset % to);
        for (let k = 0; k === 0 || k * to < line.length; k++) rows.push({ text: line.slice(k * to, (k + 1) * to), wrapped: (k + 1) * to < line.length });
      });
      cols = to;
    },
    text: () => rows.map((l) => l.text.trimEnd()).join("\n").trimEnd(),
  };
}

test("a frame drawn for the old width that reaches the terminal after it re-wrapped leaves nothing stranded above the region", () => {
  const term = reflowingScreen(100);
  let columns = 100;
  const region = new LiveRegion({ write: (s) => term.write(s), get columns() { return columns; }, rows: 40 }, ["preview", "status"]);
  const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
  const wrapped = (width: number) => Bun.wrapAnsi(words, width - 1, { hard: true }).split("\n");
  region.print("› go");
  region.set("status", ["status"]);
  region.set("preview", wrapped(100).slice(0, 3), { fits: true });
  // The terminal shrinks to 40 columns and re-wraps; the next frame, drawn for 100, was already on its way.
  term.resize(40);
  region.set("preview", wrapped(100), { fits: true });
  // Then the program learns the new width, and draws for it.
  columns = 40;
  region.set("preview", wrapped(40), { fits: true });
  expect(term.text()).toBe(["› go", ...wrapped(40), "status"].join("\n"));
});

/**
 * What the terminal shows when it shrinks from 100 columns to `to` between two bytes of what `inFlight` writes: for
 * each place it can be cut (between two of its escapes or characters; a real terminal also takes a sequence split
 * in two, which this model does not parse), on a fresh screen. Then the program learns the new width and draws.
 */
function cutEverywhere(to: number, inFlight: (region: LiveRegion) => void, after: (region: LiveRegion) => void): string[] {
  const setUp = (out: { write(s: string): void; readonly columns: number; rows: number }) => {
    const region = new LiveRegion(out, ["preview", "status"]);
    region.print("› go");
    region.set("status", ["status: writing 1.2s · esc to interrupt"]);
    region.set("preview", WRAPPED(100).slice(0, 2), { fits: true });
    return region;
  };
  let bytes = "";
  const recorder = setUp({ write: () => {}, columns: 100, rows: 40 });
  (recorder as unknown as { out: { write(s: string): void } }).out.write = (s: string) => void (bytes += s);
  inFlight(recorder);
  const cuts = [...bytes.matchAll(/\x1b\[\??\d*[A-Za-z]|[^]/gu)].map((m) => m.index!);
  expect(cuts.length).toBeGreaterThan(100);
  return cuts.map((cut) => {
    const term = reflowingScreen(100);
    let columns = 100;
    let cutAt: number | undefined;
    const region = setUp({
      write(s: string) {
        if (cutAt === undefined) return term.write(s);
        // The bytes in flight as one stream: the terminal re-wraps at `cut` of it.
        const at = cutAt;
        if (at >= s.length) return (cutAt = at - s.length), term.write(s);
        term.write(s.slice(0, at));
        term.resize(to);
        term.write(s.slice(at));
        cutAt = undefined;
      },
      get columns() {
        return columns;
      },
      rows: 40,
    });
    cutAt = cut;
    inFlight(region);
    columns = to;
    after(region);
    return term.text();
  });
}

const WORDS = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
const WRAPPED = (width: number) => Bun.wrapAnsi(WORDS, width - 1, { hard: true }).split("\n");

test("a resize that cuts a frame anywhere (the terminal re-wraps between two of its bytes) strands nothing above the region", () => {
  for (const to of [40, 20]) {
    const screens = cutEverywhere(
      to,
      (region) => region.set("preview", WRAPPED(100), { fits: true }),
      (region) => {
        region.set("status", ["status 1.3s"]);
        region.set("preview", WRAPPED(to), { fits: true });
      },
    );
    const want = ["› go", ...WRAPPED(to), "status 1.3s"].join("\n");
    expect(screens.filter((s) => s !== want)).toEqual([]);
  }
});

test("a resize that cuts a finished block's printing, or the frame after it, strands nothing above the region either", () => {
  const block = "The finished paragraph, printed into the transcript as the next one starts to stream in.";
  const screens = cutEverywhere(
    40,
    (region) => {
      region.print(block);
      region.set("preview", WRAPPED(100).slice(0, 3), { fits: true });
    },
    (region) => region.set("preview", WRAPPED(40).slice(0, 5), { fits: true }),
  );
  // The printed block is the transcript's: the terminal re-wraps it (mid-word, as any terminal does a line it wrapped).
  const want = ["› go", block.slice(0, 40), block.slice(40, 80), block.slice(80), ...WRAPPED(40).slice(0, 5), "status: writing 1.2s · esc to interrupt"].join("\n");
  expect(screens.filter((s) => s !== want)).toEqual([]);
});
