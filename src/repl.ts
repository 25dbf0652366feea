// The interactive session: a prompt, a turn per line, slash commands.
// Ctrl+C during a turn cancels it; twice at an empty prompt (or Ctrl+D) exits.
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import pc from "picocolors";
import { keptTodosNote, renderTodosColoured } from "./agent/todo.ts";
import { buildApp, usageSummary, type App } from "./app.ts";
import type { Config } from "./config.ts";
import { rewindCommand } from "./rewind-command.ts";
import { escapeControl } from "./ui/escape.ts";
import { LineReader } from "./ui/line-reader.ts";
import { TerminalUI } from "./ui/terminal.ts";

const COMMANDS = `Commands:
  /help    this list
  /clear   forget the conversation and the todo list (start afresh)
  /clear keep-todos   forget the conversation, keep the todo list
  /todos   show the todo list
  /compact shorten old tool output (file contents, command logs) to free context
  /cost    tokens used and cost so far
  /undo    take back the file changes of the last turn (shows the diff and asks)
  /rewind  list the turns that changed files; /rewind N goes back to before turn N
  /exit    leave (also: exit, quit, Ctrl+D)`;

export async function runRepl(config: Config): Promise<number> {
  const ui = new TerminalUI({ streamText: true, verbose: config.verbose, spinner: Boolean(process.stderr.isTTY) && process.env.TERM !== "dumb" });
  const app = await buildApp(config, ui);
  process.stderr.write(`${pc.bold("bunker")} ${pc.dim(`· ${app.model.name} · ${config.root}`)}\n${pc.dim("/help for commands, Ctrl+D to leave")}\n`);
  const resumed = app.agent.history.messages.length;
  if (resumed > 0) {
    const todos = app.session.todos.length;
    const counts = `${resumed} message${resumed === 1 ? "" : "s"}${todos ? `, ${todos} todo${todos === 1 ? "" : "s"}` : ""}`;
    process.stderr.write(pc.dim(`Continuing session ${app.recorder.id} (${counts}).\n`));
    // Where the conversation left off, so the person knows what "continue" will continue.
    const last = lastReply(app.agent.history.messages);
    if (last) process.stderr.write(`${pc.dim("Last reply:")}\n${escapeControl(last, { keepNewlines: true })}\n`);
  }
  const reader = new LineReader();
  let pending = config.prompt;
  let lastInterrupt = 0;
  // Set by `/clear keep-todos`: the next message carries the kept plan.
  const carry: ReplState = { keptTodos: false };

  for (;;) {
    let input: string;
    if (pending !== undefined) {
      input = pending;
      pending = undefined;
      process.stderr.write(`${pc.cyan("›")} ${input}\n`);
    } else {
      const { line, interrupted } = await reader.read(`${pc.cyan("›")} `);
      if (line === null) {
        // Ctrl+D leaves the cursor after the prompt: end that line first.
        process.stderr.write("\n");
        break;
      }
      if (interrupted) {
        if (Date.now() - lastInterrupt < 2000) break;
        lastInterrupt = Date.now();
        process.stderr.write(pc.dim("(Ctrl+C again to leave)\n"));
        continue;
      }
      input = line;
    }
    const text = input.trim();
    if (!text) continue;
    if (text === "exit" || text === "quit" || text === "/exit" || text === "/quit") break;
    if (text.startsWith("/")) {
      if (await rewindCommand(text, app)) continue;
      slashCommand(text, app, carry);
      continue;
    }
    await runOneTurn(app, withKeptTodos(app, text, carry));
  }
  const { usage, cost_usd } = usageSummary(app);
  process.stderr.write(pc.dim(`${usage.input_tokens + usage.cache_read_input_tokens} tokens in, ${usage.output_tokens} out, $${cost_usd.toFixed(4)}\n`));
  if (app.recorder.saving && app.agent.history.messages.length > 0) process.stderr.write(pc.dim(`Session saved. Continue it with: bunker -r ${app.recorder.id}\n`));
  return 0;
}

async function runOneTurn(app: App, text: string): Promise<void> {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.on("SIGINT", onSigint);
  try {
    const outcome = await app.agent.runTurn(text, app.context(controller.signal), app.ui);
    app.ui.endText();
    if (outcome.end === "interrupted") app.ui.onNotice("Interrupted.");
    if (outcome.error) app.ui.error(outcome.error);
  } catch (err) {
    // A bug must not end the session and lose the conversation: show it and return to the prompt.
    app.ui.endText();
    app.ui.error(`unexpected failure: ${err instanceof Error ? err.message : String(err)}. The session goes on; /clear starts afresh if it repeats.`);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

/** The last assistant text of a conversation, cut to its last 8 lines. */
function lastReply(messages: MessageParam[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const text = typeof m.content === "string" ? m.content : m.content.map((b) => (b.type === "text" ? b.text : "")).join("").trim();
    if (!text) continue;
    const lines = text.split("\n");
    return lines.length > 8 ? ["…", ...lines.slice(-8)].join("\n") : text;
  }
  return "";
}

export interface ReplState {
  keptTodos: boolean;
}

/** After `/clear keep-todos`, the first message of the new conversation carries the plan. */
export function withKeptTodos(app: App, text: string, carry: ReplState): string {
  if (!carry.keptTodos) return text;
  carry.keptTodos = false;
  if (app.session.todos.length === 0) return text;
  const note = keptTodosNote(app.session.todos);
  app.ui.onInjected(note);
  return `${text}\n\n${note}`;
}

export function slashCommand(text: string, app: App, carry: ReplState): void {
  const [cmd, ...args] = text.split(/\s+/);
  switch (cmd) {
    case "/help":
      process.stderr.write(COMMANDS + "\n");
      return;
    case "/clear": {
      const keep = args[0] === "keep-todos";
      if (args.length > 0 && !keep) {
        process.stderr.write(pc.red(`Unknown option ${args.join(" ")}. `) + "Use /clear or /clear keep-todos.\n");
        return;
      }
      // The old conversation stays saved (say where); what follows is a new session.
      app.recorder.save({ messages: app.agent.history.messages, todos: app.session.todos });
      const old = app.recorder.saving && app.agent.history.messages.length > 0 ? ` (the old one is saved: bunker -r ${app.recorder.id})` : "";
      app.agent.clear();
      app.recorder.startNew();
      app.perms.forgetRefusals();
      if (!keep) app.session.todos = [];
      carry.keptTodos = keep;
      const n = app.session.todos.length;
      process.stderr.write(pc.dim(keep && n > 0 ? `Conversation cleared${old}; kept ${n} todo${n === 1 ? "" : "s"}.\n` : `Conversation cleared${old}.\n`));
      return;
    }
    case "/compact": {
      const r = app.agent.compact(1);
      app.recorder.save({ messages: app.agent.history.messages, todos: app.session.todos });
      const kb = Math.max(1, Math.round(r.savedChars / 1024));
      process.stderr.write(pc.dim(r.elided === 0
        ? "Nothing to compact: no earlier tool output is long enough to shorten.\n"
        : `Shortened ${r.elided} earlier tool call${r.elided === 1 ? "" : "s"} (${kb} KB); the model can run them again.\n`));
      return;
    }
    case "/todos":
      process.stderr.write(
        app.session.todos.length === 0 ? pc.dim("No todos yet.\n") : renderTodosColoured(app.session.todos).join("\n") + "\n",
      );
      return;
    case "/cost": {
      const { usage, cost_usd } = usageSummary(app);
      process.stderr.write(`${usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens} tokens in (${usage.cache_read_input_tokens} from cache), ${usage.output_tokens} out, $${cost_usd.toFixed(4)}\n`);
      return;
    }
    default:
      process.stderr.write(pc.red(`Unknown command ${cmd}. `) + "Try /help.\n");
  }
}
