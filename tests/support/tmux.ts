// Drives a program in a real pseudo-terminal through tmux: start it, read the
// screen, press keys. Each session uses its own tmux server socket so tests
// never touch the person's tmux, and everything is torn down in `close()`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const tmuxAvailable = Bun.which("tmux") !== null;
// .ci/run installs tmux and sets this: there a missing tmux fails the run instead of quietly skipping the pseudo-terminal tests.
if (!tmuxAvailable && process.env.BUNKER_REQUIRE_TMUX) throw new Error("tmux is not installed, and BUNKER_REQUIRE_TMUX asks for the pseudo-terminal tests (apt-get install tmux)");

export interface TmuxOptions {
  cwd: string;
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  /** Server options (`set-option -g`) in force before the program starts, such as `{ "set-clipboard": "on" }`. */
  serverOptions?: Record<string, string>;
}

export class TmuxSession {
  private readonly dir: string;
  private readonly socket: string;
  readonly name = "bunker-test";

  private constructor() {
    this.dir = mkdtempSync(join(tmpdir(), "bunker-tmux-"));
    this.socket = join(this.dir, "sock");
  }

  /**
   * Starts `argv` in a fresh session; the pane stays after the program exits so its last screen can be read.
   * The options are set in the same tmux command, before the session: set after it, they raced the program.
   */
  static async start(argv: string[], opts: TmuxOptions): Promise<TmuxSession> {
    const s = new TmuxSession();
    const envArgs = Object.entries(opts.env ?? {}).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
    const options = Object.entries({ "remain-on-exit": "on", ...opts.serverOptions }).flatMap(([k, v]) => ["set-option", "-g", k, v, ";"]);
    s.tmux(["start-server", ";", ...options, "new-session", "-d", "-s", s.name, "-x", String(opts.cols ?? 120), "-y", String(opts.rows ?? 50), "-c", opts.cwd, ...envArgs, "--", ...argv]);
    return s;
  }

  private tmux(args: string[]): string {
    // process.env as the suite's preload left it (Bun.spawn's default is the environment the process started with).
    const r = Bun.spawnSync(["tmux", "-S", this.socket, "-f", "/dev/null", ...args], { stdout: "pipe", stderr: "pipe", env: process.env });
    if (r.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr.toString()}`);
    return r.stdout.toString();
  }

  /** Any other tmux command against this test's own server (`set-option -g set-clipboard on`, `list-buffers`). */
  command(args: string[]): string {
    return this.tmux(args);
  }

  /**
   * The visible screen plus scrollback, as plain text, without the blanks that end its rows: -J (which joins rows
   * the terminal wrapped) keeps them, and tmux counts a row drawn with inserts (the live region's, which puts each
   * character in at the row's start) as written up to its edge. A person sees none of them.
   */
  screen(): string {
    return trimRows(this.tmux(["capture-pane", "-p", "-J", "-S", "-2000", "-t", this.name]));
  }

  /** The screen and scrollback with the colour escapes the program drew (to check what is coloured). */
  screenWithColours(): string {
    return this.tmux(["capture-pane", "-p", "-e", "-J", "-S", "-2000", "-t", this.name]);
  }

  /** Only what is on the screen now, without the scrollback (and the blanks ending its rows, as `screen`). */
  visible(): string {
    return trimRows(this.tmux(["capture-pane", "-p", "-J", "-t", this.name]));
  }

  /** Key names as tmux knows them ("Enter", "Down", "Escape", "C-c") or literal text with `literal`. */
  keys(keys: string[], literal = false): void {
    this.tmux(["send-keys", "-t", this.name, ...(literal ? ["-l"] : []), ...keys]);
  }

  /** Resizes the terminal, as a person dragging the window's edge does. */
  resize(cols: number, rows: number): void {
    this.tmux(["resize-window", "-t", this.name, "-x", String(cols), "-y", String(rows)]);
  }

  /**
   * Paste `text` as a terminal paste does: all at once, newlines sent as Enter. `bracketed`: as a modern
   * terminal pastes into a program that asked for bracketed paste (wrapped in ESC[200~ … ESC[201~).
   */
  paste(text: string, bracketed = false): void {
    this.tmux(["set-buffer", "-b", "bunker-paste", "--", text]);
    this.tmux(["paste-buffer", "-d", ...(bracketed ? ["-p"] : []), "-b", "bunker-paste", "-t", this.name]);
  }

  async waitFor(text: string | RegExp, timeoutMs = 15_000, after = 0): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      const rest = screen.slice(after);
      if (typeof text === "string" ? rest.includes(text) : text.test(rest)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(text)}; screen:\n${screen}`);
      await Bun.sleep(50);
    }
  }

  /** The program's exit status once it has exited (-1 if tmux does not say), else null. */
  private deadSince: number | undefined;

  exitStatus(): number | null {
    const out = this.tmux(["list-panes", "-t", this.name, "-F", "#{pane_dead} #{pane_dead_status}"]).trim();
    const [dead, status] = out.split(" ");
    if (dead !== "1") return null;
    if (status) return Number(status);
    // tmux marks a pane dead when its terminal closes, and fills in the status only once it has reaped
    // the process: an empty status is "not yet" for a while (over a second on a loaded machine: CI ran the
    // suite at load 10 and read -1 for an exit 2), then a death by signal (-1).
    this.deadSince ??= Date.now();
    return Date.now() - this.deadSince < 5000 ? null : -1;
  }

  close(): void {
    try {
      this.tmux(["kill-server"]);
    } catch {
      // already gone
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Each row without the blanks that end it. */
function trimRows(screen: string): string {
  return screen.replace(/ +$/gm, "");
}
