// Streamed markdown: cut into finished blocks as it arrives, each rendered once for the terminal's width.
import { describe, expect, test } from "bun:test";
import { MarkdownBlocks, renderMarkdown } from "../../../src/ui/markdown.ts";

const plain = (s: string) => Bun.stripANSI(s);

describe("MarkdownBlocks", () => {
  test("a block is finished by a blank line, a heading by its own line, a fence by its closing line", () => {
    const b = new MarkdownBlocks();
    const text = "# Title\nFirst para\ngoes on.\n\n- a\n- b\n\n```ts\nconst x = 1;\n\nconst y = 2;\n```\nAfter.";
    const done: string[] = [];
    for (const ch of text) done.push(...b.push(ch));
    expect(done).toEqual(["# Title", "First para\ngoes on.", "- a\n- b", "```ts\nconst x = 1;\n\nconst y = 2;\n```"]);
    expect([b.openLines, b.partialLine]).toEqual([[], "After."]);
    expect(b.finish()).toBe("After.");
    expect(b.finish()).toBeNull();
  });

  test("a fence of tildes is closed only by tildes at least as long", () => {
    const b = new MarkdownBlocks();
    expect(b.push("~~~~\n```\n~~~\nstill code\n")).toEqual([]);
    expect(b.openLines).toEqual(["~~~~", "```", "~~~", "still code"]);
    expect(b.push("~~~~\n")).toEqual(["~~~~\n```\n~~~\nstill code\n~~~~"]);
  });
});

describe("renderMarkdown", () => {
  test("markers are rendered away and no line is wider than the terminal", () => {
    const out = renderMarkdown("Some **bold** text and a `span` in a paragraph long enough to wrap at twenty columns.", 20);
    expect(plain(out)).not.toContain("**");
    for (const line of plain(out).split("\n")) expect(Bun.stringWidth(line)).toBeLessThanOrEqual(20);
    expect(plain(out).split(/\s+/).join(" ")).toBe("Some bold text and a span in a paragraph long enough to wrap at twenty columns.");
  });

  test("a bare URL is shown once, coloured or not; a link with its own text keeps its URL; code keeps what it says", () => {
    const md = "See https://example.com/a?b=1 or <https://x.y/z>, www.w.org and [docs](https://d.e). `https://c.d (https://c.d)`";
    for (const colors of [true, false]) {
      const out = plain(renderMarkdown(md, 200, colors));
      expect(out).toContain("See https://example.com/a?b=1 or https://x.y/z, www.w.org and docs (https://d.e).");
      expect(out).toContain("https://c.d (https://c.d)");
      expect(out.match(/example\.com/g)).toHaveLength(1);
    }
  });

  test("a URL wider than the width keeps a row of its own, whole; the text around it wraps between words, in a list under its item and in a quote inside its gutter (N11-17)", () => {
    const url = "https://github.com/anthropics/claude-code/issues/12345#issuecomment-2345678901";
    for (const colors of [true, false]) {
      expect(plain(renderMarkdown(`See ${url} for the details of the bug.`, 40, colors)).split("\n")).toEqual(["See", url, "for the details of the bug."]);
      // The second copy of a bare URL no longer takes room: a short one wraps where its sentence would.
      expect(plain(renderMarkdown("short https://example.com/a/b text to wrap around at forty columns", 40, colors)).split("\n")).toEqual(["short https://example.com/a/b text to", "wrap around at forty columns"]);
      const [bullet, bar] = colors ? ["•", "│"] : ["*", "|"];
      expect(plain(renderMarkdown(`- item with ${url} and more\n- two`, 40, colors)).split("\n")).toEqual([`  ${bullet} item with`, `    ${url}`, "    and more", `  ${bullet} two`]);
      expect(plain(renderMarkdown(`> quoted ${url} words`, 40, colors)).split("\n")).toEqual([`${bar} quoted`, `${bar} ${url}`, `${bar} words`]);
    }
  });

  test("a long code line wraps with its gutter on every row, its further rows under its own indent after a ↪", () => {
    const code = ["const aVeryLongName = anotherVeryLongName + yetAnotherLongName;", "  if (x) return aVeryLongName + anotherVeryLongName;"];
    const out = plain(renderMarkdown("```ts\n" + code.join("\n") + "\n```", 30));
    const rows = out.split("\n").filter((l) => l.startsWith("│"));
    for (const r of rows) expect(Bun.stringWidth(r)).toBeLessThanOrEqual(30);
    // A new user's F12: a further row at the gutter read as a line of code indented less.
    expect(rows.map((r) => r.trimEnd())).toEqual([
      "│ const aVeryLongName =",
      "│ ↪ anotherVeryLongName +",
      "│ ↪ yetAnotherLongName;",
      "│   if (x) return",
      "│   ↪ aVeryLongName +",
      "│   ↪ anotherVeryLongName;",
    ]);
    // Nothing of the code is lost at the breaks.
    expect(rows.map((r) => r.slice(2).replace(/^ *↪ /, "")).join("")).toBe(code.join(""));
  });

  test("control characters in the model's text are escaped, never sent to the terminal", () => {
    const out = renderMarkdown("title\x1b]0;owned\x07 and \x1b[2J here", 80);
    expect(out).not.toContain("\x1b]");
    expect(out).not.toContain("\x07");
    expect(plain(out)).toContain("\\x1b]0;owned\\x07 and \\x1b[2J here");
  });

  test("a numeric reference the renderer decodes (&#8238;, &#x2028;, a tag character, &shy;) is escaped like the raw character (red team 11's F02)", () => {
    const out = renderMarkdown("I only changed &#8238;txt.exe and &#x2028;x &#xe0041; &shy;in **bold &#x200d;**", 80);
    for (const ch of ["\u202e", "\u2028", "\u{e0041}", "\u200d", "\xad"]) expect(out).not.toContain(ch);
    expect(plain(out)).toContain("\\u202etxt.exe");
    // The renderer's own colours still reach the terminal.
    expect(out).toContain("\x1b[1m");
  });
});

describe("a table wider than the screen (new user 12's N12-17)", () => {
  const table = [
    "| option | meaning | default value | notes |",
    "|---|---|--:|---|",
    "| `--allow-read` | grants **reads** | none | comma separated |",
    "| --allow-run | grants running programs named | none | comma separated list of programs |",
  ].join("\n");
  const rows = (columns: number, colors: boolean) => renderMarkdown(table, columns, colors).split("\n").map((r) => Bun.stripANSI(r));

  for (const colors of [false, true]) {
    test(`at 50 columns${colors ? ", in colour" : ""}: flag names stay whole, 'none' keeps a narrow column, no row is wider`, () => {
      const shown = rows(50, colors);
      for (const r of shown) expect(Bun.stringWidth(r)).toBeLessThanOrEqual(50);
      const text = shown.join("\n");
      expect(text).toContain("--allow-read");
      expect(text).toContain("--allow-run ");
      expect(text).not.toContain("**");
      expect(text).not.toContain("`");
      // The right-aligned column is as wide as its longest word ("default", "value", "none"), not a quarter of the row.
      const none = shown.find((r) => r.includes("none"))!;
      const cell = none.split(/[|│]/)[3]!;
      expect(cell).toBe("    none ");
      // A cell's words are all there, in order, down its column.
      const column = shown.map((r) => r.split(/[|│]/)[2]?.trim() ?? "").filter((c) => c !== "" && !/^[-─+┼┬┴]*$/.test(c));
      expect(column.join(" ")).toContain("grants running programs named");
    });
  }

  test("a table that fits is the renderer's, as before", () => {
    const shown = rows(120, false);
    expect(shown[1]).toBe("| option       | meaning                       | default value | notes                            |");
  });
});
