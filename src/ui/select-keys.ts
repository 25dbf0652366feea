// A select drawn as @clack/prompts' select, that also answers to shortcut
// keys: each option is numbered and its number picks it at once (Claude Code's
// 1/2/3), and letters the caller names pick theirs (Codex's y/n). Arrows and
// Enter work as before; Escape and Ctrl+C cancel. Coloured as clack colours.
import { getColumns, SelectPrompt, settings, wrapTextWithPrefix } from "@clack/core";
import { formatInstructionFooter, limitOptions, S_BAR, S_RADIO_ACTIVE, S_RADIO_INACTIVE, symbol, symbolBar } from "@clack/prompts";
import type { Readable, Writable } from "node:stream";
import { styleText } from "node:util";

export interface KeyOption<V> {
  value: V;
  label: string;
}

export interface SelectKeysOptions<V> {
  message: string;
  options: KeyOption<V>[];
  /** Letters that pick an option at once, e.g. { y: "once", n: "deny" }; numbers 1..N always do. */
  letters?: Record<string, V>;
  /** The option the cursor starts on (what Enter alone picks); the first when not given. */
  initial?: V;
  /**
   * A number moves the cursor to its option and Enter picks it: for a question a
   * message typed on could reach ("1 more thing" must not pick option 1).
   */
  numbersMove?: boolean;
  input?: Readable;
  output?: Writable;
  /** Aborting it closes the question unanswered (reported as a cancel). */
  signal?: AbortSignal;
  /** Shown in place of the answer when Escape or Ctrl+C closed it (default "(no option chosen)"). */
  cancelled?: string;
  /**
   * What is on the screen right above the question (`text`, as written) and how to write it for the width now
   * (`redraw`): on a resize both are drawn again, fitted to the new width (new user's N11-15). `text` follows.
   */
  above?: { text: string; redraw: () => string };
}

/** The rows `text` takes on a screen `columns` wide, up to where it ends (the row after its last newline). */
export function rowsOn(text: string, columns: number): number {
  const lines = text.split("\n");
  lines.pop();
  return lines.reduce((n, l) => n + Math.max(1, Math.ceil(Bun.stringWidth(l) / columns)), 0);
}

/** Back to the start of the row `rows` up, and clear from there down (row first: a clear from the screen's top left would copy the screen into tmux's scrollback). */
const upAndClear = (rows: number) => `\r${rows > 0 ? `\x1b[${rows}A` : ""}\x1b[K\x1b[C\x1b[J\r`;

/** The label as shown: its number first, so the key to press is on screen. */
export function numbered(label: string, i: number): string {
  return `${i + 1}. ${label}`;
}

/** The key that picks option `i`: 1..9 (a tenth option and on have no number key). */
function numberKey(i: number): string | undefined {
  return i < 9 ? String(i + 1) : undefined;
}

// clack's vim keys (h/j/k/l move the cursor) are off: in a question about a
// command or an edit, letters typed by mistake must not move toward "Yes, for
// this session". Arrows, numbers and the named letters remain.
for (const vim of ["h", "j", "k", "l"]) settings.aliases.delete(vim);

const paint = (colour: "gray" | "cyan" | "green" | "dim" | "red", text: string) => styleText(colour, text);

class KeySelectPrompt<V> extends SelectPrompt<KeyOption<V>> {
  constructor(opts: ConstructorParameters<typeof SelectPrompt<KeyOption<V>>>[0], keys: Map<string, number>, moveOnly = false, above?: SelectKeysOptions<V>["above"]) {
    super(opts);
    // A resize: the terminal has re-wrapped what was drawn for the old width (mid-word, the "│" gutter lost). Cleared
    // from what is above the question down, that is written again for the new width; clack's own listener, which
    // runs next, then draws the question whole below it (no frame before it to compare with). Rows a narrower
    // terminal pushed into its scrollback (tmux keeps the cursor's row and scrolls what grew above it) are out of reach
    // of any cursor move: there the top of the old drawing stays, and the new one starts at the screen's top.
    const output = opts.output as (Writable & { on?: (e: "resize", f: () => void) => unknown; off?: (e: "resize", f: () => void) => unknown }) | undefined;
    if (above && output?.on) {
      const self = this as unknown as { _prevFrame: string };
      const resized = () => {
        if (this.state === "submit" || this.state === "cancel") return;
        const rows = rowsOn(above.text + self._prevFrame, getColumns(output));
        above.text = above.redraw();
        output.write(upAndClear(rows) + above.text);
        self._prevFrame = "";
      };
      output.on("resize", resized);
      for (const end of ["submit", "cancel"] as const) this.once(end, () => output.off?.("resize", resized));
    }
    // Withdrawn (the signal): drawn closed first, so no live option stays on screen (clack's own listener, added later, closes it).
    opts.signal?.addEventListener("abort", () => {
      this.state = "cancel";
      // clack's render is private in its types only; it is how every state change is drawn.
      (this as unknown as { render(): void }).render();
    }, { once: true });
    // "key" comes before the prompt decides on Enter or cancel: a submit set here ends it with this option.
    this.on("key", (char) => {
      const i = char === undefined ? undefined : keys.get(char.toLowerCase());
      if (i === undefined) return;
      this.cursor = i;
      this.value = this.options[i]!.value;
      if (!moveOnly) this.state = "submit";
    });
  }
}

/**
 * Runs a clack prompt with `signal` linked only while it is open: clack keeps
 * its abort listener after the prompt closed, and an abort then would redraw
 * and close an answered prompt again, under whatever was printed since.
 */
export async function whileOpen<R>(signal: AbortSignal | undefined, prompt: (signal: AbortSignal | undefined) => Promise<R>): Promise<R> {
  if (!signal) return prompt(undefined);
  const open = new AbortController();
  const forward = () => open.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener("abort", forward, { once: true });
  try {
    return await prompt(open.signal);
  } finally {
    signal.removeEventListener("abort", forward);
  }
}

/** The keys named under the options ("1-4, y/n: pick • ↑/↓ to navigate • Enter: confirm"). */
function instructionsFor(opts: Pick<SelectKeysOptions<unknown>, "options" | "letters" | "numbersMove">): string[] {
  const hint = [...(opts.letters ? Object.keys(opts.letters) : [])].join("/");
  return [
    `${paint("dim", `1-${Math.min(9, opts.options.length)}${hint ? `, ${hint}` : ""}:`)} ${opts.numbersMove ? "move" : "pick"}`,
    `${paint("dim", "↑/↓")} to navigate`,
    `${paint("dim", "Enter:")} confirm`,
  ];
}

/** Columns the "│  " gutter takes before each row of a question. */
const GUTTER = 3;

/**
 * Option `i`'s numbered label fitted to the row: too long, it wraps between words under its own text
 * ("○ 2. Yes, and allow all edits" / "     to this file …"), off the last column. Left to clack, it wrapped
 * under the radio, at a width shortened by the colour codes of the gutter (a 40-column question read
 * "allow all" / "edits to this file for this" / " session").
 */
function fitLabel(text: string, i: number, columns: number): string {
  const hang = 2 + numbered("", i).length;
  const room = columns - 1 - GUTTER - hang;
  if (room < 12) return text;
  return Bun.wrapAnsi(text, room, { hard: true }).split("\n").join(`\n${" ".repeat(hang)}`);
}

/**
 * The rows an open question takes on `output` (its title, every option, the keys under them, the closing
 * corner): what is drawn above it (a diff) fits in the rest of the screen, so no option is pushed off it.
 */
export function questionRows(opts: Pick<SelectKeysOptions<unknown>, "message" | "options" | "letters" | "numbersMove" | "output">): number {
  const columns = getColumns(opts.output ?? process.stdout);
  const title = 1 + wrapTextWithPrefix(opts.output, opts.message, "│  ", "◆  ").split("\n").length;
  const options = opts.options.reduce((n, o, i) => n + fitLabel(numbered(o.label, i), i, columns).split("\n").length, 0);
  return title + options + formatInstructionFooter(opts.output, instructionsFor(opts), settings.withGuide).length;
}

export function selectKeys<V>(opts: SelectKeysOptions<V>): Promise<V | symbol> {
  return whileOpen(opts.signal, (signal) => selectNow({ ...opts, signal }));
}

function selectNow<V>(opts: SelectKeysOptions<V>): Promise<V | symbol> {
  const keys = new Map<string, number>();
  opts.options.forEach((_, i) => {
    const k = numberKey(i);
    if (k) keys.set(k, i);
  });
  for (const [letter, value] of Object.entries(opts.letters ?? {})) {
    const i = opts.options.findIndex((o) => o.value === value);
    if (i >= 0) keys.set(letter.toLowerCase(), i);
  }
  const instructions = instructionsFor(opts);
  const label = (o: KeyOption<V> | undefined, i: number) => (o ? numbered(o.label, i) : "");
  return new KeySelectPrompt<V>(
    {
      options: opts.options,
      ...(opts.initial !== undefined ? { initialValue: opts.initial } : {}),
      input: opts.input,
      output: opts.output,
      signal: opts.signal,
      render() {
        const guide = settings.withGuide;
        const title = `${guide ? `${paint("gray", S_BAR)}\n` : ""}${wrapTextWithPrefix(opts.output, opts.message, `${symbolBar(this.state)}  `, `${symbol(this.state)}  `)}\n`;
        const bar = (colour: "gray" | "cyan") => (guide ? `${paint(colour, S_BAR)}  ` : "");
        const chosen = label(this.options[this.cursor], this.cursor);
        if (this.state === "submit") return `${title}${wrapTextWithPrefix(opts.output, paint("dim", chosen), bar("gray"))}`;
        // Cancelled (Escape, Ctrl+C): no option is named, as clack's struck-through "1. Yes" read like a yes.
        // Withdrawn (the signal): nobody answered, whatever the caller would have said of a refusal.
        if (this.state === "cancel") {
          const said = opts.cancelled !== undefined && !opts.signal?.aborted ? paint("red", opts.cancelled) : paint("dim", "(no option chosen)");
          return `${title}${wrapTextWithPrefix(opts.output, said, bar("gray"))}${guide ? `\n${paint("gray", S_BAR)}` : ""}`;
        }
        const prefix = bar("cyan");
        const footer = formatInstructionFooter(opts.output, instructions, guide);
        const columns = getColumns(opts.output ?? process.stdout);
        const rows = limitOptions({
          output: opts.output,
          cursor: this.cursor,
          options: this.options,
          columnPadding: GUTTER,
          rowPadding: title.split("\n").length + footer.length + 1,
          style: (o, active) => {
            const i = this.options.indexOf(o);
            const text = fitLabel(label(o, i), i, columns);
            return active ? `${paint("green", S_RADIO_ACTIVE)} ${text}` : `${paint("dim", S_RADIO_INACTIVE)} ${paint("dim", text)}`;
          },
        });
        return `${title}${prefix}${rows.join(`\n${prefix}`)}\n${footer.join("\n")}\n`;
      },
    },
    keys,
    opts.numbersMove,
    opts.above,
  ).prompt() as Promise<V | symbol>;
}

