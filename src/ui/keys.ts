// The one keyboard reader: stdin in raw mode, bytes turned into keys. A lone
// Escape is a key of its own (never the start of the next character: "abc",
// Escape, "def" is abc, Escape, def); escape sequences the REPL does not use
// are swallowed whole, never typed as text. Approval prompts take the
// terminal with `suspend` and give it back with `resume`, so two readers
// never see the same keystroke.
import { StringDecoder } from "node:string_decoder";
import { giveBackAtExit } from "./tty-exit.ts";
import { hasHeldKeys, holdKeys, noteTyping, takeHeldKeys } from "./typeahead.ts";

export type KeyName =
  | "text" | "paste" | "enter" | "newline" | "escape" | "backspace" | "delete" | "tab"
  | "left" | "right" | "up" | "down" | "home" | "end" | "word-left" | "word-right" | "kill-word"
  | "ctrl-a" | "ctrl-c" | "ctrl-d" | "ctrl-e" | "ctrl-g" | "ctrl-k" | "ctrl-l" | "ctrl-r" | "ctrl-u" | "ctrl-w" | "ctrl-z";

export interface Key {
  name: KeyName;
  /** For "text" and "paste". */
  text?: string;
}

const CSI_KEYS: Record<string, KeyName> = {
  A: "up", B: "down", C: "right", D: "left", H: "home", F: "end",
  "1~": "home", "7~": "home", "4~": "end", "8~": "end", "3~": "delete",
  "1;5C": "word-right", "1;5D": "word-left", "1;3C": "word-right", "1;3D": "word-left",
  // Shift+Enter and Alt+Enter where the terminal tells them from Enter (kitty's keyboard protocol, xterm's modifyOtherKeys).
  "13;2u": "newline", "13;3u": "newline", "27;2;13~": "newline", "27;3;13~": "newline",
};
const SS3_KEYS: Record<string, KeyName> = { A: "up", B: "down", C: "right", D: "left", H: "home", F: "end" };
const CTRL_KEYS: Record<number, KeyName> = {
  0x01: "ctrl-a", 0x03: "ctrl-c", 0x04: "ctrl-d", 0x05: "ctrl-e", 0x07: "ctrl-g", 0x08: "backspace", 0x09: "tab", 0x12: "ctrl-r",
  // LF is Enter too: what was typed before raw mode was set comes through the terminal's CR-to-LF translation.
  0x0a: "enter", 0x0b: "ctrl-k", 0x0c: "ctrl-l", 0x0d: "enter", 0x15: "ctrl-u", 0x17: "ctrl-w", 0x1a: "ctrl-z", 0x7f: "backspace",
};
/**
 * Alt+B, Alt+F and Alt+D (readline's word back, word forward, delete word forward), as terminals send them:
 * Escape and the letter in one read, alone (or with more of them, and nothing else). Escape pressed and then the letter is two reads (a person's
 * keys come apart; a lone Escape waits a moment for the rest of a sequence, then is an Escape): Escape,
 * then the letter, as typed. So is Escape in the middle of a burst ("abc", Escape, "def" read at once).
 */
const ALT_KEYS: Record<string, KeyName> = { "\x1bb": "word-left", "\x1bf": "word-right", "\x1bd": "kill-word" };

/** The Alt keys a read is, when it is nothing but ALT_KEYS (a key held down repeats; a busy moment reads several at once). */
export function altKeys(read: string): KeyToken[] | null {
  if (!/^(?:\x1b[bfd])+$/.test(read)) return null;
  return read.match(/\x1b./g)!.map((raw) => ({ raw, key: { name: ALT_KEYS[raw]! } }));
}
/**
 * One read from the terminal as keys, after `rest` (an unfinished sequence left by the read before): a read of
 * nothing but Alt keys is those keys (altKeys); anything else is tokenized as typed. Every reader of the keyboard
 * (the input line, a question's key feed, the keys waiting before a start-up question) reads through this.
 */
export function readTokens(rest: string, chunk: string): { tokens: KeyToken[]; rest: string } {
  const alt = rest ? null : altKeys(chunk);
  return alt ? { tokens: alt, rest: "" } : tokenizeKeys(rest + chunk);
}
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** One key as it was read: its bytes, and the key (null for a sequence swallowed whole). Text is one character a token. */
export interface KeyToken {
  raw: string;
  key: Key | null;
}

/**
 * Reads `input` key by key. `rest` is an unfinished sequence at the end (an
 * Escape that may start one, half a paste) to prepend to the next chunk; when
 * no more input comes, `flushTokens` says what it was.
 */
export function tokenizeKeys(input: string): { tokens: KeyToken[]; rest: string } {
  const tokens: KeyToken[] = [];
  const push = (raw: string, key: Key | null) => tokens.push({ raw, key });
  let i = 0;
  while (i < input.length) {
    const ch = input[i]!;
    const code = ch.charCodeAt(0);
    if (ch === "\x1b") {
      const rest = input.slice(i);
      if (rest.startsWith(PASTE_START)) {
        const end = rest.indexOf(PASTE_END);
        if (end < 0) return { tokens, rest };
        push(rest.slice(0, end + PASTE_END.length), { name: "paste", text: rest.slice(PASTE_START.length, end).replace(/\r\n?/g, "\n") });
        i += end + PASTE_END.length;
        continue;
      }
      if (rest.length === 1 || rest === "\x1b[" || rest === "\x1bO" || (rest[1] === "[" && /^\x1b\[[0-9;:?<=>]*$/.test(rest))) return { tokens, rest };
      const csi = /^\x1b\[([0-9;:?<=>]*[ -/]*[@-~])/.exec(rest);
      if (csi) {
        const name = CSI_KEYS[csi[1]!];
        push(csi[0], name ? { name } : null);
        i += csi[0].length;
        continue;
      }
      const ss3 = /^\x1bO([A-DHFP-S])/.exec(rest);
      if (ss3) {
        const name = SS3_KEYS[ss3[1]!];
        push(ss3[0], name ? { name } : null);
        i += 3;
        continue;
      }
      // Alt+Enter (Escape, then CR or LF): a new line in the message.
      if (rest[1] === "\r" || rest[1] === "\n") {
        push(rest.slice(0, 2), { name: "newline" });
        i += 2;
        continue;
      }
      // Escape followed by anything else: the Escape, then that key as typed.
      push(ch, { name: "escape" });
      i += 1;
      continue;
    }
    if (code < 0x20 || code === 0x7f) {
      const name = CTRL_KEYS[code];
      push(ch, name ? { name } : null);
      i += 1;
      continue;
    }
    // A character outside the BMP is one key, not two halves.
    const char = String.fromCodePoint(input.codePointAt(i)!);
    push(char, { name: "text", text: char });
    i += char.length;
  }
  return { tokens, rest: "" };
}

/** Keys from tokens, each run of typed characters as one "text" key. */
export function keysOf(tokens: KeyToken[]): Key[] {
  const keys: Key[] = [];
  for (const { key } of tokens) {
    if (!key) continue;
    const last = keys.at(-1);
    if (key.name === "text" && last?.name === "text") last.text += key.text!;
    else keys.push({ ...key });
  }
  return keys;
}

/**
 * Parses `input` into keys. `rest` is an unfinished sequence at the end (an
 * Escape that may start one, half a paste) to prepend to the next chunk; when
 * no more input comes, `flushKeys` says what it was.
 */
export function parseKeys(input: string): { keys: Key[]; rest: string } {
  const { tokens, rest } = tokenizeKeys(input);
  return { keys: keysOf(tokens), rest };
}

/** What an unfinished sequence was once no more input followed it, as a token. */
export function flushTokens(rest: string): KeyToken[] {
  const [key] = flushKeys(rest);
  return rest ? [{ raw: rest, key: key ?? null }] : [];
}

/** What an unfinished sequence was once no more input followed it: a lone Escape, or a paste cut short. */
export function flushKeys(rest: string): Key[] {
  if (rest.startsWith(PASTE_START)) return [{ name: "paste", text: rest.slice(PASTE_START.length).replace(/\r\n?/g, "\n") }];
  return rest.startsWith("\x1b") ? [{ name: "escape" }] : [];
}

export interface KeyboardInput {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  on(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  off(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** Reads keys from a terminal and hands each to `onKey`. */
export class Keyboard {
  onKey: (key: Key) => void = () => {};
  private rest = "";
  private timer: ReturnType<typeof setTimeout> | undefined;
  private active = false;
  /** Removes the exit hook that gives the terminal back. */
  private unhook: (() => void) | undefined;
  // A character split across two reads is put together again.
  private readonly decoder = new StringDecoder("utf8");
  private readonly listener = (chunk: Buffer | string) => this.feed(typeof chunk === "string" ? chunk : this.decoder.write(chunk));

  /** `escapeMs`: how long a lone Escape waits for the rest of a sequence. */
  constructor(
    private readonly input: KeyboardInput = process.stdin,
    private readonly output: { write(text: string): unknown } = process.stderr,
    private readonly escapeMs = 25,
  ) {}

  start(): void {
    if (this.active) return;
    this.active = true;
    // However bunker ends, the terminal is given back as it was found (also while suspended: a prompt has it then).
    this.unhook ??= giveBackAtExit(this.input, this.output);
    this.input.setRawMode?.(true);
    // Bracketed paste: a pasted text arrives as one piece, its newlines never taken for Enter.
    this.output.write("\x1b[?2004h");
    this.input.on("data", this.listener);
    this.input.resume();
  }

  /** Gives the terminal to another reader (an approval prompt). */
  suspend(): void {
    if (!this.active) return;
    this.active = false;
    this.input.off("data", this.listener);
    this.output.write("\x1b[?2004l");
    this.input.setRawMode?.(false);
  }

  resume(): void {
    this.start();
  }

  stop(): void {
    this.suspend();
    this.input.pause();
    this.unhook?.();
    this.unhook = undefined;
  }

  feed(chunk: string): void {
    clearTimeout(this.timer);
    const { tokens, rest } = readTokens(this.rest, chunk);
    this.rest = rest;
    this.deliver(tokens);
    if (rest) {
      this.timer = setTimeout(() => {
        const pending = this.rest;
        this.rest = "";
        this.deliver(flushTokens(pending));
      }, rest.startsWith("\x1b[200~") ? 500 : this.escapeMs);
    }
  }

  /**
   * While keys left over by a question are held (src/ui/typeahead.ts), what is
   * typed meanwhile waits behind them, in order, for the input line at the
   * turn's end; Escape and Ctrl+C still interrupt at once.
   */
  private deliver(tokens: KeyToken[]): void {
    if (!hasHeldKeys(this.input)) {
      for (const k of keysOf(tokens)) this.onKey(k);
      return;
    }
    for (const t of tokens) {
      if (t.key?.name === "escape" || t.key?.name === "ctrl-c") this.onKey(t.key);
      else holdKeys(this.input, [t.raw]);
    }
  }

  /** The person is writing a message while a turn runs: a question drawn now must not take their next keys (key-feed.ts). */
  typing(): void {
    noteTyping(this.input);
  }

  /** The keys held for an approval that did not come (the turn is over), as keys, oldest first. */
  takeHeld(): Key[] {
    const tokens = takeHeldKeys(this.input).flatMap((raw) => {
      // One key's bytes each: an Escape held alone is "\x1b", so "\x1bb" was read as Alt+B.
      const { tokens, rest } = readTokens("", raw);
      return [...tokens, ...flushTokens(rest)];
    });
    return keysOf(tokens);
  }
}
