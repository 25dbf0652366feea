// The interactive session: a prompt, a turn per line, slash commands.
// Escape or Ctrl+C during a turn cancels it; Ctrl+C twice at an empty prompt
// (or Ctrl+D) exits.
import pc from "./ui/colors.ts";
import { buildApp, usageSummary, type App } from "./app.ts";
import type { Config } from "./config.ts";
import { escapeControl } from "./ui/escape.ts";
import { renderMarkdown } from "./ui/markdown.ts";
import { Keyboard } from "./ui/keys.ts";
import { LineReader, type ReadResult } from "./ui/line-reader.ts";
import { promptHistory } from "./session/open.ts";
import { LiveRegion } from "./ui/live-region.ts";
import { wrapWords } from "./ui/wrap-words.ts";
import { TtyPrompt } from "./ui/prompt.ts";
import { TerminalUI } from "./ui/terminal.ts";
import { costLine, isSlashCommand, runSlashCommand, slashCommands, withKeptTodos, type CommandContext, type ReplState } from "./slash-commands.ts";
import type { CompletionSources } from "./ui/completion.ts";
import { Attention } from "./ui/attention.ts";
import { basename } from "node:path";
import { startupOver } from "./jit.ts";

/** Reads the next message: the raw-mode prompt on a terminal, readline otherwise. */
interface MessageReader {
  read(): Promise<ReadResult>;
  beginTurn?(interrupt: () => void): void;
  endTurn?(): void;
  close?(): void;
}

export async function runRepl(config: Config): Promise<number> {
  // Drawn in place (rendered answers, status line, raw-mode keys) only when every end is a terminal.
  const live = Boolean(process.stdin.isTTY && process.stdout.isTTY && process.stderr.isTTY) && process.env.TERM !== "dumb";
  const region = live ? new LiveRegion(process.stderr, ["preview", "input", "status"]) : undefined;
  const markdown = live && !process.env.NO_COLOR;
  // A bell (and a title, a notification) when a question or the prompt waits: on the live screen only, never a pipe.
  const attention = region && config.notifyAfterMs !== null ? new Attention(process.stderr, { afterMs: config.notifyAfterMs, name: basename(config.root) }) : undefined;
  const ui = new TerminalUI({
    streamText: true,
    verbose: config.verbose,
    spinner: Boolean(process.stderr.isTTY) && process.env.TERM !== "dumb",
    region,
    markdown,
    attention,
  });
  // Keys typed before the keyboard is read were echoed by the terminal where the banner goes ("hellobunker · …"):
  // on a terminal the banner's line is cleared first; the keys themselves wait for the input line, drawn there once.
  // Drawn before a project's MCP server is asked about (buildApp calls it then).
  const app = await buildApp(config, ui, (modelName) =>
    process.stderr.write(`${live ? "\r\x1b[K" : ""}${wrapWords(`${pc.bold("bunker")} ${pc.dim(`· ${escapeControl(modelName)} · ${escapeControl(config.root)}`)}\n${pc.dim("/help for commands, Ctrl+D to leave")}`, process.stderr.columns)}\n`));
  // The status line and /cost count the whole session: a continued one's earlier runs too (as Claude Code's /cost after --continue).
  app.recorder.trackUsage(app.model.usage, true);
  if (app.agent.history.messages.length > 0) process.stderr.write(await resumedTranscript(app, markdown ? region : undefined));
  /** Whole lines for the transcript: above the region when there is one. */
  const say = (text: string) => (region ? region.print(text) : process.stderr.write(text));
  // What was typed in this workspace before, for the Up arrow; every message sent is added.
  const history = await promptHistory(config);
  let reader: MessageReader;
  /** The input line a message can be put back in (/rewind N conversation): on the live screen only. */
  let putBack: CommandContext["putBack"];
  if (region) {
    ui.statusFigures = () => ({ model: app.model.name, usage: app.model.usage, costUsd: usageSummary(app).cost_usd, contextPct: app.agent.contextPercent || null, outEstimated: app.model.outputEstimated });
    const keyboard = new Keyboard();
    ui.owner = keyboard;
    const prompt = new TtyPrompt(keyboard, region, { history: history.earlier, complete: await completionSources(app) });
    reader = prompt;
    putBack = (message) => prompt.putBack(message);
    // A new width applies to what is drawn next; the region is redrawn for it now (clearing the rows drawn for the old one).
    // The region draws to stderr and reads its width: stderr learns the new size after stdout does.
    // The status line is fitted to the width: it is made again for the new one first.
    process.stderr.on("resize", () => {
      ui.drawStatus();
      prompt.redraw();
      region.draw();
    });
    ui.drawStatus();
  } else {
    const lines = new LineReader();
    reader = { read: () => lines.read(`${pc.cyan("›")} `) };
  }
  let pending = config.prompt;
  let lastInterrupt = 0;
  const carry: ReplState = { keptTodos: false };
  // What a command says is fitted to the screen between words (the terminal's own wrap cuts mid-word).
  const commands: CommandContext = { app, carry, write: (text) => say(wrapWords(text, region?.columns ?? process.stderr.columns, { hang: true })), putBack };

  for (;;) {
    let input: string;
    if (pending !== undefined) {
      input = pending;
      pending = undefined;
      say(`${pc.cyan("›")} ${escapeControl(input, { keepNewlines: true })}\n`);
      // The Up arrow brings it back as it does a typed one (`bunker "fix the tests"`, then Up: new user's N11-21).
      if (input.trim() && history.earlier[0] !== input) history.earlier.unshift(input);
    } else {
      // Waiting for the person: start-up is over, the normal JIT policy comes back (jit.ts).
      startupOver();
      const { line, interrupted } = await reader.read();
      if (line === null) {
        // Ctrl+D leaves readline's cursor after the prompt: end that line first.
        if (!region) process.stderr.write("\n");
        break;
      }
      if (interrupted) {
        if (Date.now() - lastInterrupt < 2000) break;
        lastInterrupt = Date.now();
        say(pc.dim("(Ctrl+C again to leave)\n"));
        continue;
      }
      input = line;
    }
    const text = input.trim();
    if (!text) continue;
    history.add(input);
    if (text === "exit" || text === "quit") break;
    if (isSlashCommand(text)) {
      const result = await runSlashCommand(text, commands);
      if (result === "exit") break;
      // What a command changed (/clear's empty context, /model, /compact) shows in the status line at once.
      ui.drawStatus();
      if (result) await runOneTurn(app, result.send, reader);
      continue;
    }
    await runOneTurn(app, withKeptTodos(app, text, carry), reader);
  }
  reader.close?.();
  history.close();
  // Leaving: the window's title as it was before bunker said it waits.
  attention?.answered();
  region?.hide();
  process.stderr.write(pc.dim(`${costLine(app)}\n`));
  if (app.recorder.saving && app.agent.history.messages.length > 0) process.stderr.write(pc.dim(`${leavingLine(app.recorder.id, process.stderr.columns)}\n`));
  return 0;
}

/**
 * How to continue the session, said on leaving. Where the whole sentence does not fit the width, the command goes on a
 * row of its own: the terminal's wrap split the session id ("bunker -r wvs0ygp" / "jxv" at 50 columns, new user 12's N12-03),
 * and a double-click copied half of it.
 */
export function leavingLine(id: string, columns: number | undefined): string {
  const command = `bunker -r ${id}`;
  const whole = `Session saved. Continue it with: ${command}`;
  if (!columns || Bun.stringWidth(whole) < columns) return whole;
  return `${wrapWords("Session saved. Continue it with:", columns)}\n${command}`;
}

async function runOneTurn(app: App, text: string, reader: MessageReader): Promise<void> {
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.on("SIGINT", interrupt);
  app.ui.beginTurn();
  reader.beginTurn?.(interrupt);
  // A new message from the person: what they refused before is theirs to allow now (permissions.ts).
  app.perms.forgetRefusals();
  try {
    const outcome = await app.agent.runTurn(text, app.context(controller.signal), app.ui);
    app.ui.endText();
    if (outcome.end === "interrupted") app.ui.onInterrupted();
    if (outcome.error) app.ui.error(outcome.error);
  } catch (err) {
    // A bug must not end the session and lose the conversation: show it and return to the prompt.
    app.ui.endText();
    app.ui.error(`unexpected failure: ${err instanceof Error ? err.message : String(err)}. The session goes on; /clear starts afresh if it repeats.`);
  } finally {
    reader.endTurn?.();
    app.ui.endTurn();
    process.off("SIGINT", interrupt);
  }
}

/** What Tab completes from: the slash commands (MCP prompts too), and the workspace entries the read permission allows. */
async function completionSources(app: App): Promise<CompletionSources> {
  const { readableEntries } = await import("./tools/walk.ts");
  return {
    commands: () => slashCommands(app).map((c) => ({ name: c.name, help: c.help })),
    list: (dir) => readableEntries(app.perms, dir),
  };
}

/**
 * What a continued session shows before its prompt: which session, how many prompts (the person's messages, not
 * the API's), and the conversation so far (src/session/replay.ts): the person's prompts, the tool lines, the
 * answers rendered as they were, the last turns only. One write: the screen never shows the one without the other.
 */
export async function resumedTranscript(app: Pick<App, "agent" | "session" | "recorder" | "summarizeCall">, region: Pick<LiveRegion, "columns"> | undefined): Promise<string> {
  const { countPrompts, replayTranscript } = await import("./session/replay.ts");
  const messages = app.agent.history.messages;
  const prompts = countPrompts(messages);
  const todos = app.session.todos.length;
  const counts = `${prompts} prompt${prompts === 1 ? "" : "s"}${todos ? `, ${todos} todo${todos === 1 ? "" : "s"}` : ""}`;
  const columns = region?.columns ?? process.stderr.columns;
  // Summaries first (a tool that loads on first call needs its code for its summary).
  const summaries = new Map<unknown, string>();
  for (const m of messages) {
    if (m.role !== "assistant" || typeof m.content === "string") continue;
    for (const b of m.content) if (b.type === "tool_use") summaries.set(b.input, await app.summarizeCall(b.name, b.input));
  }
  const transcript = replayTranscript(messages, {
    summarize: (name, input) => summaries.get(input) ?? name,
    // Rendered as it was when it streamed (headings, lists, code), not as raw markdown; escaped either way.
    render: (text) => (region ? renderMarkdown(text, region.columns - 1) : wrapWords(escapeControl(text, { keepNewlines: true }), columns)),
  });
  // Between words at the terminal's width, as every line bunker writes ("(10 messag|es)" at 40 columns).
  const continuing = wrapWords(pc.dim(`Continuing session ${app.recorder.id} (${counts}).`), columns);
  return `${continuing}\n${wrapWords(transcript, columns, { hang: true })}`;
}
