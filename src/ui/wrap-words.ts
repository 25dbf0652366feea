// Messages for the person (notices, what a slash command says) fitted to the
// terminal on word boundaries: the terminal's own wrap cuts at the last column,
// mid-word ("run b" / "unker"). A word wider than the screen is left whole
// for the terminal to wrap (there is no boundary to break it at). Inside a
// box (clack's "│  " gutter) the terminal's wrap would also leave the gutter,
// so there such a word is broken at the box's edge.

/** The columns clack's gutter ("│  ") takes before each line of a box. */
const GUTTER = 3;

/**
 * `text` (may hold colour codes and newlines) with every line wider than `columns - 1` broken between words.
 * `hang`: a line's continuation rows start under its text, after its indent and its mark ("  ✗ "), not at
 * the left edge, so a note stays one block.
 */
export function wrapWords(text: string, columns: number | undefined, opts: { hang?: boolean } = {}): string {
  if (!columns || columns < 2) return text;
  // Off the last column: a row that fills it leaves the cursor waiting to wrap.
  return text
    .split("\n")
    .map((line) => (opts.hang ? hangLine(line, columns - 1) : wrapLine(line, columns - 1, false)))
    .join("\n");
}

/**
 * Colour codes, the spaces a line starts with, colour codes again, and its mark (a note's ✗, a command's $, a todo
 * item's "[>] #2", each maybe coloured): what its continuation rows are indented by.
 */
const LEAD = /^((?:\x1b\[[0-9;]*m)*)( *)((?:\x1b\[[0-9;]*m)*)((?:[✗⋯│•$>]|\[[ x>]\] #[^ \x1b]+)(?:\x1b\[[0-9;]*m)* )?/;

function hangLine(line: string, width: number, hard = false): string {
  if (Bun.stringWidth(line) <= width) return line;
  const [lead = "", outer = "", spaces = "", inner = "", mark = ""] = LEAD.exec(line) ?? [];
  const indent = spaces.length + Bun.stringWidth(mark);
  // Too deep an indent leaves no room for words: wrapped from the edge instead.
  if (indent === 0 || width - indent < 20) return wrapLine(line, width, hard);
  // The line's opening colour goes on with its text, unless the mark closed it ("$" dim, the command bold).
  const carried = mark.includes("\x1b[") ? "" : outer + inner;
  const rows = wrapLine(carried + line.slice(lead.length), width - indent, hard).split("\n");
  return rows.map((row, i) => (i === 0 ? lead + row : " ".repeat(indent) + row)).join("\n");
}

/**
 * The lines of a clack box (log.message) fitted inside it: each line wider than the room
 * after the gutter breaks between words, a word wider than the room at the edge; none
 * known leaves the lines as they are. Colour codes and escaped text are kept whole.
 */
export function wrapInBox(lines: string[], columns: number | undefined): string[] {
  if (!columns || columns < GUTTER + 11) return lines;
  // A command line ("$ npm install …") goes on under its text, not under its "$".
  return lines.flatMap((line) => hangLine(line, columns - 1 - GUTTER, true).split("\n"));
}

function wrapLine(line: string, width: number, hard: boolean): string {
  if (Bun.stringWidth(line) <= width) return line;
  // Each row loses the space it was broken at (before any colour code that closes the row, after any that opens it).
  return Bun.wrapAnsi(line, width, { hard, trim: false })
    .split("\n")
    .map((row, i) => {
      const trimmed = row.replace(/ +((?:\x1b\[[0-9;]*m)*)$/, "$1");
      return i === 0 ? trimmed : trimmed.replace(/^((?:\x1b\[[0-9;]*m)*) +/, "$1");
    })
    .join("\n");
}
