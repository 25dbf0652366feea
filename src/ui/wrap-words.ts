// Messages for the person (notices, what a slash command says) fitted to the
// terminal on word boundaries: the terminal's own wrap cuts at the last column,
// mid-word ("run b" / "unker"). A word wider than the screen is left whole
// for the terminal to wrap (there is no boundary to break it at).

/** `text` (may hold colour codes and newlines) with every line wider than `columns - 1` broken between words. */
export function wrapWords(text: string, columns: number | undefined): string {
  if (!columns || columns < 2) return text;
  // Off the last column: a row that fills it leaves the cursor waiting to wrap.
  const width = columns - 1;
  return text
    .split("\n")
    .map((line) => {
      if (Bun.stringWidth(line) <= width) return line;
      // Each row loses the space it was broken at (before any colour code that closes the row).
      return Bun.wrapAnsi(line, width, { hard: false, trim: false })
        .split("\n")
        .map((row) => row.replace(/ +((?:\x1b\[[0-9;]*m)*)$/, "$1"))
        .join("\n");
    })
    .join("\n");
}
