// Telling the person bunker waits for them when they may be looking
// elsewhere (another window, another tmux pane): a question that opened
// during a turn, or the prompt back after a long turn. The terminal's bell
// (tmux marks the window, most terminals flash or badge theirs), a desktop
// notification where the terminal shows one (OSC 9: iTerm2, WezTerm,
// Ghostty, Windows Terminal), and the window's title while it waits. Made
// only for a terminal (the REPL's live screen), and never with
// "notify": false in a settings file.
import { escapeControl } from "./escape.ts";

export interface AttentionOutput {
  write(text: string): unknown;
}

export interface AttentionOptions {
  /** The prompt is signalled after a turn at least this long (ms). */
  afterMs: number;
  /** The environment that says which terminal this is (TERM_PROGRAM, WT_SESSION, TMUX). */
  env?: Record<string, string | undefined>;
  /** The workspace's folder name, for the title. */
  name?: string;
}

export class Attention {
  /** A signal is out: the title says bunker waits, the terminal's own title saved on its stack. */
  private waiting = false;

  constructor(
    private readonly out: AttentionOutput,
    private readonly opts: AttentionOptions,
  ) {}

  /** A question opened during a turn: signalled at once. */
  question(): void {
    this.signal("bunker: a question is waiting for your answer");
  }

  /** The prompt is back after a turn that took `ms`: signalled when that was long. */
  turnEnded(ms: number): void {
    if (ms >= this.opts.afterMs) this.signal("bunker: done, waiting for you");
  }

  /** The person answered (a question, or sent a message), or bunker leaves: the title as it was. */
  answered(): void {
    if (!this.waiting) return;
    this.waiting = false;
    // Named bunker (a terminal without a title stack keeps that), then the terminal's own title from the stack.
    this.out.write(setTitle(this.title("")) + POP_TITLE);
  }

  private signal(message: string): void {
    const first = !this.waiting;
    this.waiting = true;
    this.out.write((first ? PUSH_TITLE : "") + attentionCodes(message, this.title("waiting: "), this.opts.env ?? process.env));
  }

  private title(prefix: string): string {
    return `${prefix}bunker${this.opts.name ? ` · ${this.opts.name}` : ""}`;
  }
}

/**
 * The bytes that signal `message`: the window's title, a desktop notification where the terminal shows OSC 9
 * (not inside tmux, which does not pass it on), and the bell. The texts are escaped: no control character ends
 * the sequence early or starts another.
 */
export function attentionCodes(message: string, title: string, env: Record<string, string | undefined>): string {
  const osc9 = !env.TMUX && (OSC9_TERMINALS.includes(env.TERM_PROGRAM ?? "") || env.WT_SESSION !== undefined);
  return setTitle(title) + (osc9 ? `\x1b]9;${escapeControl(message)}\x07` : "") + BEL;
}

const OSC9_TERMINALS = ["iTerm.app", "WezTerm", "ghostty"];
const BEL = "\x07";
/** The title stack (xterm's window operations 22 and 23): the terminal's own title is put back after. */
const PUSH_TITLE = "\x1b[22;2t";
const POP_TITLE = "\x1b[23;2t";

function setTitle(text: string): string {
  return `\x1b]2;${escapeControl(text)}\x07`;
}
