// The REPL's prompt on a terminal: the one keyboard reader feeds the line
// editor at all times, so what is typed while a turn runs is kept for the
// next message (Enter then sends it when the turn ends), and Escape or
// Ctrl+C during a turn interrupts it. An Enter followed at once by more
// input (a paste the terminal did not bracket) is a newline in the message,
// not the end of it. Alt+Enter, Shift+Enter (where the terminal tells it
// apart) and a backslash before Enter start a new line in the message.
// Ctrl+C with text clears the line (Up brings it back); at an empty prompt it
// is the REPL's "press again to leave". Tab completes a command after `/`
// and a workspace path after `@` (completion.ts); the commands that match
// what is typed after `/` are listed under the line as it is typed.
import { canSuspend } from "./job-control.ts";
import pc from "./colors.ts";
import type { Key, Keyboard } from "./keys.ts";
import { LineEditor } from "./line-editor.ts";
import type { LiveRegion } from "./live-region.ts";
import type { ReadResult } from "./line-reader.ts";
import { escapeControl } from "./escape.ts";
import { applyTab, completionAt, matchingCommands, type CompletionSources } from "./completion.ts";
import { wrapWords } from "./wrap-words.ts";

export interface TtyPromptOptions {
  /** Earlier messages, newest first (the Up arrow walks them). */
  history?: string[];
  /** An Enter followed by more input within this time is a newline (default 30 ms; typing is far slower). */
  pasteWindowMs?: number;
  /** What Tab completes from: the commands, and the workspace's paths the read permission allows. None: Tab does nothing. */
  complete?: CompletionSources;
}

/** Rows of candidates listed under the line at most (the rest are counted). */
const LIST_ROWS = 6;

const PROMPT = `${pc.cyan("›")} `;
const PROMPT_WIDTH = 2;

export class TtyPrompt {
  readonly editor: LineEditor;
  private reading: ((r: ReadResult) => void) | null = null;
  private onInterrupt: (() => void) | null = null;
  /** Enter was pressed during a turn: the message goes as soon as the turn ends. */
  private queued = false;
  private enterTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly pasteWindowMs: number;
  private readonly complete: CompletionSources | undefined;
  /** What the last Tab could not decide between, listed under the line until the next key. */
  private listed: string[] = [];
  /**
   * Ctrl+R's search of the history, while it is open: what is typed to find, which match is shown (0: the newest),
   * and the line as it was before, for Escape to put back.
   */
  private search: { query: string; skip: number; found: boolean; before: string } | null = null;

  constructor(
    private readonly keyboard: Keyboard,
    private readonly region: LiveRegion,
    opts: TtyPromptOptions = {},
  ) {
    this.editor = new LineEditor(opts.history ?? []);
    this.pasteWindowMs = opts.pasteWindowMs ?? 30;
    this.complete = opts.complete;
    keyboard.onKey = (k) => this.key(k);
    keyboard.start();
  }

  read(): Promise<ReadResult> {
    return new Promise((resolve) => {
      this.reading = resolve;
      if (this.queued) return this.submit();
      // Left by a question asked outside a turn (at start-up, or by /mcp start): waiting here, unsent.
      this.takeTypedAhead();
      this.draw();
    });
  }

  /** While a turn runs: Escape and Ctrl+C call `interrupt`; typing goes on into the next message. */
  beginTurn(interrupt: () => void): void {
    this.onInterrupt = interrupt;
    this.draw();
  }

  endTurn(): void {
    this.onInterrupt = null;
    this.takeTypedAhead();
  }

  /**
   * Keys a question left over (typed ahead of it, or typed on while it was
   * drawn) go into the input line, in order, to be read before they are sent:
   * an Enter among them is a new line there, not a send.
   */
  private takeTypedAhead(): void {
    const keys = this.keyboard.takeHeld();
    if (keys.length === 0) return;
    for (const k of keys) {
      if (k.name === "enter" || k.name === "newline") this.editor.insert("\n");
      else this.editor.edit(k);
    }
    // Enters at the end asked for nothing more than the end of the line.
    while (this.editor.text.endsWith("\n") && this.editor.cursor === this.editor.text.length) this.editor.edit({ name: "backspace" });
    this.draw();
  }

  /** The input line drawn again (for a new width: its rows are broken between words at the width). */
  redraw(): void {
    this.draw();
  }

  /** `message` in the empty input line, to edit and send again; false when something is typed there already. */
  putBack(message: string): boolean {
    if (!this.editor.putBack(message)) return false;
    this.draw();
    return true;
  }

  close(): void {
    clearTimeout(this.enterTimer);
    this.region.set("input", []);
    this.keyboard.stop();
  }

  private key(k: Key): void {
    // Writing the next message while a turn runs: a question drawn now leaves the keys that follow to it (key-feed.ts).
    if (this.onInterrupt && k.name !== "escape" && k.name !== "ctrl-c") this.keyboard.typing();
    if (this.enterTimer !== undefined) {
      // More input right after Enter: that Enter was a newline inside a paste.
      clearTimeout(this.enterTimer);
      this.enterTimer = undefined;
    }
    this.listed = [];
    if ((this.search || k.name === "ctrl-r") && this.searchKey(k)) return this.draw();
    switch (k.name) {
      case "tab":
        this.tab();
        break;
      case "enter":
        if (this.editor.text[this.editor.cursor - 1] === "\\") {
          // A backslash before Enter: the line goes on (Claude Code's way), the backslash is not kept.
          this.editor.edit({ name: "backspace" });
          this.editor.insert("\n");
          break;
        }
        this.editor.insert("\n");
        this.enterTimer = setTimeout(() => this.enter(), this.pasteWindowMs);
        break;
      case "newline":
        this.editor.insert("\n");
        break;
      case "escape":
        this.onInterrupt?.();
        break;
      case "ctrl-c":
        if (this.onInterrupt) this.onInterrupt();
        else if (this.reading && this.editor.text !== "") {
          // Cleared, not lost: it stays in the transcript and in the history (the Up arrow brings it back).
          const dropped = this.editor.text;
          this.editor.take();
          this.region.set("input", []);
          this.region.print(PROMPT + this.shown(dropped) + pc.dim("  ^C (cleared; ↑ brings it back)"));
        } else if (this.reading) {
          this.finish({ line: "", interrupted: true }, "^C");
          return;
        }
        break;
      case "ctrl-z":
        // Raw mode reads Ctrl+Z as a key, so the terminal does not stop bunker itself: it stops itself, as a shell
        // job, the terminal given back first (new user 12's N12-23: it was swallowed, and `fg` went to the model).
        this.suspendToShell();
        return;
      case "ctrl-d":
        if (this.reading && this.editor.text === "") {
          this.finish({ line: null, interrupted: false }, "");
          return;
        }
        this.editor.edit(k);
        break;
      default:
        this.editor.edit(k);
    }
    this.draw();
  }

  /** Stops bunker as Ctrl+Z stops any program (SIGTSTP), the terminal as it was found; `fg` brings the screen back. */
  private suspendToShell(): void {
    if (!canSuspend()) {
      this.region.print(pc.dim("  Ctrl+Z cannot suspend bunker here (no shell with job control started it); Ctrl+D at an empty prompt leaves"));
      this.draw();
      return;
    }
    this.region.hide();
    this.keyboard.suspend();
    const back = () => {
      this.keyboard.resume();
      this.region.show();
      this.draw();
    };
    process.once("SIGCONT", back);
    try {
      process.kill(process.pid, "SIGTSTP");
    } catch {
      // No job control here (Windows): say so, and go on.
      process.off("SIGCONT", back);
      back();
      this.region.print(pc.dim("  Ctrl+Z cannot suspend bunker here; Ctrl+D at an empty prompt leaves"));
    }
  }

  /**
   * Ctrl+R: the history searched back from the newest message, as readline's reverse search (new user 12's N12-26: it
   * did nothing). Typing narrows the search, Ctrl+R again finds the one before, Backspace widens it; Enter (or any key
   * that moves or edits) keeps the match in the line to edit or send, Escape, Ctrl+G or Ctrl+C put back the line as it
   * was. True when the key was the search's.
   */
  private searchKey(k: Key): boolean {
    if (!this.search) {
      this.search = { query: "", skip: 0, found: true, before: this.editor.text };
      return true;
    }
    const s = this.search;
    switch (k.name) {
      case "ctrl-r":
        if (s.query !== "" && this.findMatch(s.query, s.skip + 1) !== null) s.skip++;
        break;
      case "text":
        s.query += k.text ?? "";
        s.skip = 0;
        break;
      case "backspace":
        s.query = s.query.slice(0, -1);
        s.skip = 0;
        break;
      case "escape":
      case "ctrl-g":
      case "ctrl-c":
        this.search = null;
        this.editor.show(s.before);
        return true;
      case "enter":
        // Kept in the line, not sent: a search that found the wrong message costs nothing.
        this.search = null;
        return true;
      default:
        // Any other key edits the match found, as readline does.
        this.search = null;
        return false;
    }
    const match = s.query === "" ? null : this.findMatch(s.query, s.skip);
    s.found = s.query === "" || match !== null;
    this.editor.show(match ?? (s.query === "" ? s.before : this.editor.text));
    return true;
  }

  /** The `skip`-th newest message (each text once) holding `query`, case aside; null when there are fewer. */
  private findMatch(query: string, skip: number): string | null {
    const wanted = query.toLowerCase();
    const seen = new Set<string>();
    for (const entry of this.editor.history) {
      if (seen.has(entry) || !entry.toLowerCase().includes(wanted)) continue;
      seen.add(entry);
      if (skip-- === 0) return entry;
    }
    return null;
  }

  /** Completes the word at the cursor: one candidate is put in, several complete what they share and are listed. */
  private tab(): void {
    if (!this.complete) return;
    const c = completionAt(this.editor.text, this.editor.cursor, this.complete);
    if (!c) return;
    const next = applyTab(this.editor.text, this.editor.cursor, c);
    this.editor.text = next.text;
    this.editor.cursor = next.cursor;
    this.listed = next.list;
  }

  /** The rows under the line: what Tab listed, or while a command's name is typed, the commands it could be. */
  private suggestions(): string[] {
    const columns = this.region.columns;
    if (this.search) {
      const { query, found } = this.search;
      const state = found ? "search history" : "no earlier message has";
      return [pc.dim(`  ${state}: `) + escapeControl(query) + pc.dim(`  (Ctrl+R older · Enter keeps it · Esc cancels)`)];
    }
    if (this.listed.length > 0) {
      // Each by its last part (`src/app.ts` as `app.ts`), as a shell lists them.
      const names = this.listed.map((w) => escapeControl(w.replace(/^@(?:[^]*\/(?=[^/]))?/, "")));
      // Fitted with the two columns of indent they are drawn after: fitted without them, the last name of a full row was
      // cut at the edge ("shot.png  s…", the src/ folder lost: new user 12's N12-06).
      const rows = wrapWords(names.join("  "), columns - 2).split("\n");
      const shown = rows.slice(0, LIST_ROWS);
      if (rows.length > LIST_ROWS) shown.push(`… and more: type more of the name`);
      return shown.map((r) => pc.dim(`  ${r}`));
    }
    if (!this.complete || !this.reading) return [];
    const commands = matchingCommands(this.editor.text, this.editor.cursor, this.complete);
    const width = Math.max(0, ...commands.map((c) => c.name.length));
    // A help too long for the row ends in "…" where it is cut (the region fits each row so): cut to the row's last column
    // before, it ended mid-word with no sign of more ("asks unle", new user 12's N12-06).
    const rows = commands.slice(0, LIST_ROWS).map((c) => pc.dim(`  ${escapeControl(c.name).padEnd(width)}  ${escapeControl(c.help)}`));
    if (commands.length > LIST_ROWS) rows.push(pc.dim(`  … ${commands.length - LIST_ROWS} more`));
    return rows;
  }

  private enter(): void {
    this.enterTimer = undefined;
    // Take back the newline the Enter put in: it ends the message.
    this.editor.edit({ name: "backspace" });
    // Enter on an empty line during a turn sends nothing (a `y` Enter habit after an approval's y, say).
    if (!this.reading && this.editor.text === "") return this.draw();
    this.queued = true;
    if (this.reading) this.submit();
    else this.draw();
  }

  private submit(): void {
    this.queued = false;
    // The transcript shows the line as it stood (a long paste as its placeholder); the message carries the paste whole.
    const shown = this.editor.text;
    const line = this.editor.take();
    this.finish({ line, interrupted: false }, shown);
  }

  private finish(result: ReadResult, echo: string): void {
    const resolve = this.reading;
    this.reading = null;
    this.region.set("input", []);
    // The message stays in the transcript as it was sent.
    this.region.print(PROMPT + this.shown(echo));
    resolve?.(result);
  }

  /** A message as the transcript shows it: escaped, its later lines under the first. */
  private shown(text: string): string {
    return escapeControl(text, { keepNewlines: true }).split("\n").join(`\n${" ".repeat(PROMPT_WIDTH)}`);
  }

  private draw(): void {
    if (!this.reading && this.editor.text === "") return this.region.set("input", []);
    const { lines, cursor } = this.editor.render(PROMPT, PROMPT_WIDTH, this.region.columns);
    if (!this.reading && this.queued) lines[lines.length - 1] += pc.dim("  (sent when this turn ends)");
    this.region.set("input", [...lines, ...this.suggestions()], this.reading ? { cursor } : {});
  }
}
