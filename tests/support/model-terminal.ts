// A model terminal for tests that write to a screen through injected streams: what a person would see after
// the bytes written so far, and every screen there was (one a write), for "was it ever shown" checks.
// Enough of CR, LF, CUU, CUD, CUF, ED, EL, IL, insert mode and line wrapping for the live region and prompts.

/** A tiny terminal (at least 20 columns, the region's minimum): enough of CR, LF, CUU, CUD, CUF, ED, EL and line wrapping to show the screen. */
export function modelTerminal(cols: number) {
  const rows: string[] = [""];
  let r = 0;
  let c = 0;
  let insert = false;
  const put = (ch: string) => {
    if (c >= cols) {
      r++;
      c = 0;
    }
    rows[r] = (rows[r] ?? "").padEnd(c, " ");
    rows[r] = rows[r]!.slice(0, c) + ch + rows[r]!.slice(insert ? c : c + 1);
    if (insert) rows[r] = rows[r]!.slice(0, cols);
    c++;
  };
  return {
    columns: cols,
    rows: 20,
    write(s: string) {
      const re = /\x1b\[([\d;]*)([A-Za-z@])|\x1b\[\?\d+[hl]|\r|\n|[^\x1b\r\n]/gu;
      for (const m of s.matchAll(re)) {
        const t = m[0];
        if (t === "\r") c = 0;
        else if (t === "\n") (r++, (c = 0)); // the tty's ONLCR, which raw mode keeps
        else if (m[2] === "A") r -= Number(m[1] || 1);
        else if (m[2] === "B") r += Number(m[1] || 1);
        else if (m[2] === "C") c += Number(m[1] || 1);
        else if (m[2] === "J") rows.length = r + 1, (rows[r] = (rows[r] ?? "").slice(0, c));
        else if (m[2] === "K") rows[r] = (rows[r] ?? "").slice(0, c);
        else if (m[2] === "L") rows.splice(r, 0, ...Array<string>(Number(m[1] || 1)).fill(""));
        else if (m[2] === "@") rows[r] = ((rows[r] ?? "").padEnd(c, " ").slice(0, c) + " ".repeat(Number(m[1] || 1)) + (rows[r] ?? "").slice(c)).slice(0, cols);
        else if (m[2] === "P") rows[r] = (rows[r] ?? "").slice(0, c) + (rows[r] ?? "").slice(c + Number(m[1] || 1));
        else if (m[1] === "4" && (m[2] === "h" || m[2] === "l")) insert = m[2] === "h";
        else if (m[2] || t.startsWith("\x1b")) continue;
        else put(t);
        rows[r] ??= "";
      }
    },
    text: () => rows.map((l) => l.trimEnd()).join("\n").trimEnd(),
    cursor: () => ({ r, c }),
  };
}

/** A model terminal that keeps every screen shown (after each write): `seen()` is them all, one after another. */
export function recordingTerminal(cols: number, rows = 24) {
  const term = modelTerminal(cols);
  const screens: string[] = [];
  return {
    columns: cols,
    rows,
    write(s: string) {
      term.write(s);
      screens.push(term.text());
    },
    text: term.text,
    seen: () => screens.join("\n"),
  };
}

