// A table too wide for the screen, laid out by its content. Bun.markdown.ansi
// gives every column the same share when a table does not fit, so a column of
// flag names was cut inside `--allow-read` while a column holding "none" kept
// spare room (new user 12's N12-17). Here each column first gets its longest
// word (when all of them fit), and the rest of the width goes to the columns
// with the most text still to wrap. A table that fits, or one this cannot
// read, is left to the renderer.

/** Columns that let the renderer keep a cell's text on one line. */
const UNWRAPPED = 100_000;
/** The narrowest a column is made, however many there are. */
const MIN_COLUMN = 3;

type Align = "left" | "right" | "center";

/** The table in `block` (escaped markdown) fitted to `width` columns, or null to let the renderer draw it. */
export function fitTable(block: string, width: number, colors: boolean, light: boolean): string | null {
  const lines = block.replace(/\n+$/, "").split("\n");
  if (lines.length < 2) return null;
  const header = cellsOf(lines[0]!);
  const aligns = alignsOf(lines[1]!, header.length);
  if (aligns === null) return null;
  const rows = [header, ...lines.slice(2).map((l) => cellsOf(l))].map((cells) => Array.from({ length: header.length }, (_, i) => inline(cells[i] ?? "", colors, light)));
  const n = header.length;
  // "│ a │ b │": a border and a space each side of every cell.
  const room = width - (3 * n + 1);
  if (room < n * MIN_COLUMN) return null;
  const natural = Array.from({ length: n }, (_, i) => Math.max(1, ...rows.map((r) => widthOf(r[i]!))));
  if (natural.reduce((a, b) => a + b, 0) <= room) return null;
  const longestWord = Array.from({ length: n }, (_, i) => Math.max(1, ...rows.map((r) => Math.max(0, ...Bun.stripANSI(r[i]!).split(/\s+/).map((w) => Bun.stringWidth(w))))));
  const widths = share(natural, longestWord, room);
  // Columns at their narrowest still wider than the screen: the renderer's equal shares are no worse (reviewer's R13-04).
  if (widths.reduce((a, b) => a + b, 0) > room) return null;
  const dim = (s: string) => (colors ? `\x1b[2m${s}\x1b[0m` : s);
  const [h, v, corners] = colors ? ["─", "│", ["┌┬┐", "├┼┤", "└┴┘"]] : ["-", "|", ["+++", "+++", "+++"]];
  const rule = (c: string) => dim(c[0] + widths.map((w) => h.repeat(w + 2)).join(c[1]) + c[2]);
  const out = [rule(corners[0]!)];
  rows.forEach((row, r) => {
    const wrapped = row.map((cell, i) => Bun.wrapAnsi(cell, widths[i]!, { hard: true, trim: true }).split("\n"));
    const height = Math.max(...wrapped.map((w) => w.length));
    for (let k = 0; k < height; k++) {
      const cells = wrapped.map((w, i) => pad(w[k] ?? "", widths[i]!, aligns[i]!));
      out.push(`${dim(v)} ${cells.map((c) => (r === 0 && colors ? `\x1b[1m${c}\x1b[0m` : c)).join(` ${dim(v)} `)} ${dim(v)}`);
    }
    if (r === 0) out.push(rule(corners[1]!));
  });
  out.push(rule(corners[2]!));
  return out.join("\n");
}

/**
 * Each column's width: its longest word first (all scaled down together when even those do not fit), then the rest
 * of `room` to the columns by how much of their text is still wider than they are, never past their natural width.
 */
function share(natural: number[], longestWord: number[], room: number): number[] {
  let widths = longestWord.map((w, i) => Math.min(w, natural[i]!));
  const words = widths.reduce((a, b) => a + b, 0);
  if (words > room) {
    widths = widths.map((w) => Math.max(MIN_COLUMN, Math.floor((w * room) / words)));
    // The floor can take the sum past the room: taken back from the widest columns.
    for (let over = widths.reduce((a, b) => a + b, 0) - room; over > 0; over--) {
      const widest = widths.indexOf(Math.max(...widths));
      if (widths[widest]! <= MIN_COLUMN) break;
      widths[widest]!--;
    }
  }
  for (;;) {
    const left = room - widths.reduce((a, b) => a + b, 0);
    const wants = widths.map((w, i) => Math.max(0, natural[i]! - w));
    const total = wants.reduce((a, b) => a + b, 0);
    if (left <= 0 || total === 0) return widths;
    // Shared by what each still wants; at least one column each round, so the loop ends.
    const given = wants.map((want) => Math.min(want, Math.floor((want * left) / total)));
    if (!given.some((g) => g > 0)) given[wants.indexOf(Math.max(...wants))] = 1;
    widths = widths.map((w, i) => w + given[i]!);
  }
}

/** A row's cells: split at pipes that are not escaped (`\|`) and not inside a code span. */
function cellsOf(line: string): string[] {
  let s = line.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|") && !s.endsWith("\\|")) s = s.slice(0, -1);
  const cells: string[] = [];
  let cell = "";
  let code = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === "\\" && s[i + 1] === "|") {
      cell += "\\|";
      i++;
    } else if (ch === "`") {
      code = !code;
      cell += ch;
    } else if (ch === "|" && !code) {
      cells.push(cell.trim());
      cell = "";
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

/** The delimiter row's alignments (`:--`, `--:`, `:-:`), or null when the line is not one. */
function alignsOf(line: string, n: number): Align[] | null {
  const cells = cellsOf(line);
  if (cells.length !== n || !cells.every((c) => /^:?-+:?$/.test(c))) return null;
  return cells.map((c) => (c.startsWith(":") && c.endsWith(":") ? "center" : c.endsWith(":") ? "right" : "left"));
}

/** A cell's markdown (bold, code, links) rendered on one line; a cell that would read as a block (a list, a heading) stays text. */
function inline(cell: string, colors: boolean, light: boolean): string {
  if (cell === "") return "";
  const text = /^(?:#|>|[-*+]\s|\d+[.)]\s)/.test(cell) ? `\\${cell}` : cell;
  return Bun.markdown.ansi(text, { columns: UNWRAPPED, colors, light }).replace(/\n+$/, "").replace(/\n/g, " ");
}

function widthOf(s: string): number {
  return Bun.stringWidth(Bun.stripANSI(s));
}

function pad(s: string, width: number, align: Align): string {
  const gap = Math.max(0, width - widthOf(s));
  if (align === "right") return " ".repeat(gap) + s;
  if (align === "center") return " ".repeat(gap >> 1) + s + " ".repeat(gap - (gap >> 1));
  return s + " ".repeat(gap);
}
