// The REPL's slash commands: one table, one entry per command. /help is
// written from the table, so a new command is one entry here and nothing else.
import pc from "./ui/colors.ts";
import { keptTodosNote, renderTodosColoured } from "./agent/todo.ts";
import { lastThinking } from "./agent/thinking.ts";
import { usageSummary, type App } from "./app.ts";
import { rewindCommand } from "./rewind-command.ts";
import { escapeControl } from "./ui/escape.ts";
import { mcpCommand, promptCommands } from "./mcp/commands.ts";
import { page } from "./ui/pager.ts";
import { typoDistance } from "./text/typos.ts";
import { clearSessionTmps } from "./sandbox/session-tmp.ts";

/** What the REPL carries from one message to the next. */
export interface ReplState {
  /** Set by `/clear keep-todos`: the next message carries the kept plan. */
  keptTodos: boolean;
}

export interface CommandContext {
  app: App;
  carry: ReplState;
  /** Where a command's words go (stderr: stdout is the answer in headless mode). */
  write(text: string): void;
  /** Puts a message in the empty input line to edit and send again; false when it cannot (text typed there, no input line). */
  putBack?(message: string): boolean;
}

export interface SlashCommand {
  /** With its slash: "/clear". */
  name: string;
  /** Shown after the name in /help, e.g. "[keep-todos]". */
  usage?: string;
  /** One line for /help. */
  help: string;
  /** Other names that run it ("/quit"). */
  aliases?: string[];
  /** "exit" leaves the REPL; `send` is sent as the next message (an MCP prompt). */
  run(args: string[], ctx: CommandContext): CommandResult | Promise<CommandResult>;
}

export type CommandResult = void | "exit" | { send: string };

export const COMMANDS: SlashCommand[] = [
  { name: "/help", help: "this list", run: (_args, ctx) => ctx.write(helpText(slashCommands(ctx.app), process.stderr.columns) + "\n") },
  { name: "/clear", usage: "[keep-todos]", help: "forget the conversation (keep-todos: keep the todo list for the next message)", run: clear },
  { name: "/todos", help: "show the todo list", run: todos },
  { name: "/compact", help: "shorten old tool output (file contents, command logs) to free context", run: compact },
  { name: "/thinking", help: "show the model's last thinking in full (on screen it is folded to one line)", run: thinking },
  { name: "/mcp", usage: "[restart|start NAME]", help: "MCP servers: state, tools, schema size; restart one, or start one not started", run: async (args, ctx) => ctx.write(await mcpCommand(ctx.app.mcp, args, process.stderr.columns)) },
  { name: "/cost", help: "tokens used and cost so far", run: (_args, ctx) => ctx.write(costLine(ctx.app) + "\n") },
  { name: "/undo", usage: "[force]", help: "take back the file changes of the last turn (shows the diff; asks unless edits are allowed)", run: async (args, ctx) => void (await rewindCommand(["/undo", ...args].join(" "), ctx.app, ctx.write)) },
  { name: "/rewind", usage: "[N [conversation] [force]]", help: "list the turns that changed files; N: take the files back to before turn N", run: async (args, ctx) => void (await rewindCommand(["/rewind", ...args].join(" "), ctx.app, ctx.write, ctx.putBack)) },
  { name: "/expand", help: "the last command's whole output, in a pager", run: expand },
  { name: "/exit", aliases: ["/quit"], help: "leave (also: exit, quit, Ctrl+D)", run: () => "exit" },
];

/**
 * The command table fitted to `columns` (none: one row a command): descriptions wrap on word boundaries
 * under their own column; a command too long for that column has its row to itself, its description below.
 */
export function helpText(commands: SlashCommand[] = COMMANDS, columns = Infinity): string {
  const heads = commands.map((c) => (c.usage ? `${c.name} ${c.usage}` : c.name));
  // The text stays off the last column: a row that fills it leaves the cursor waiting to wrap.
  const room = Math.max(20, columns - 1);
  // The description column starts after the longest name, but leaves the descriptions at least 60% of the row.
  const column = Math.min(Math.max(...heads.map((h) => h.length)) + 4, Math.floor(room * 0.4));
  const wrap = (text: string, width: number) => Bun.wrapAnsi(text, Math.max(10, width), { hard: true }).split("\n");
  const rows = commands.flatMap((c, i) => {
    const head = `  ${heads[i]!}`;
    const lines = wrap(c.help, room - column);
    const indent = " ".repeat(column);
    if (Bun.stringWidth(head) + 2 > column) return [...wrap(heads[i]!, room - 2).map((l) => `  ${l}`), ...lines.map((l) => indent + l)];
    return [head.padEnd(column) + lines[0], ...lines.slice(1).map((l) => indent + l)];
  });
  return ["Commands:", ...rows, ...wrap("Escape or Ctrl+C interrupts a turn; Ctrl+C twice at an empty prompt leaves.", room)].join("\n");
}

/** The commands, and each ready MCP server's prompts as `/mcp__server__prompt`. */
/** Every command the REPL knows: the table, and the MCP servers' prompts. */
export function slashCommands(app: App): SlashCommand[] {
  return [...COMMANDS, ...promptCommands(app.mcp).map((p): SlashCommand => ({
    name: p.name,
    ...(p.usage ? { usage: p.usage } : {}),
    help: p.help,
    run: async (args, ctx) => {
      const r = await p.run(args);
      if ("send" in r) return r;
      ctx.write(pc.red(escapeControl(r.error)) + "\n");
    },
  }))];
}

/**
 * Whether a line the person sent is a command: it starts with `/` and its first word has no other `/`. A line that
 * starts with an absolute path (a screenshot dragged into the terminal, then a question) is a message, as in Claude
 * Code (new user 12's N12-25: "Unknown command /tmp/shot.png").
 */
export function isSlashCommand(text: string): boolean {
  if (!text.startsWith("/")) return false;
  const end = text.search(/\s/);
  return !(end === -1 ? text : text.slice(0, end)).slice(1).includes("/");
}

/** Runs `/name args…`; returns "exit" when the REPL should leave, or a message to send. */
export async function runSlashCommand(text: string, ctx: CommandContext, commands: SlashCommand[] = slashCommands(ctx.app)): Promise<CommandResult> {
  const [name = "", ...args] = text.trim().split(/\s+/);
  const command = commands.find((c) => c.name === name || c.aliases?.includes(name));
  if (!command) {
    const near = closestCommand(name, commands);
    ctx.write(pc.red(`Unknown command ${escapeControl(name)}. `) + (near ? `Did you mean ${near}? ` : "") + "Try /help.\n");
    return;
  }
  return command.run(args, ctx);
}

/**
 * The known name (or alias) a mistyped command most likely meant: the fewest
 * typos away, a swap of two neighbouring letters counting as one ("/cots" is
 * /cost); none when every name is further than a typo or two.
 */
export function closestCommand(typed: string, commands: SlashCommand[] = COMMANDS): string | undefined {
  const word = typed.toLowerCase();
  // One typo in a short name, two in a longer one: more and the guess is noise.
  const most = word.length <= 4 ? 1 : 2;
  let best: { name: string; d: number } | undefined;
  for (const name of commands.flatMap((c) => [c.name, ...(c.aliases ?? [])])) {
    const d = typoDistance(word, name.toLowerCase());
    if (d <= most && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/** The numbers /cost shows (the status line shows the same). */
export function costLine(app: App): string {
  const { usage, cost_usd } = usageSummary(app);
  const input = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
  // "≈": an interrupted reply's output is counted from what arrived (the API never said its count).
  return `${input} tokens in (${usage.cache_read_input_tokens} from cache), ${app.model.outputEstimated ? "≈" : ""}${usage.output_tokens} out, $${cost_usd.toFixed(4)}`;
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

function clear(args: string[], { app, carry, write }: CommandContext): void {
  const keep = args[0] === "keep-todos";
  if (args.length > 0 && !keep) {
    write(pc.red(`Unknown option ${args.join(" ")}. `) + "Use /clear or /clear keep-todos.\n");
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
  // The commands' shared /tmp goes with the conversation: the new one starts with an empty one (session-tmp.ts).
  const cleared = clearSessionTmps();
  const tmp = cleared.kept.length > 0
    ? ` bunker could not empty the commands' shared /tmp (${cleared.kept.map((d) => escapeControl(d)).join(", ")}); the next command gets a new one.`
    : cleared.held ? " The commands' shared /tmp was emptied." : "";
  const n = app.session.todos.length;
  write(pc.dim(keep && n > 0 ? `Conversation cleared${old}; kept ${n} todo${n === 1 ? "" : "s"}.${tmp}\n` : `Conversation cleared${old}.${tmp}\n`));
}

function thinking(_args: string[], { app, write }: CommandContext): void {
  const text = lastThinking(app.agent.history.messages);
  write(text === null ? pc.dim("No thinking yet in this conversation.\n") : pc.dim(escapeControl(text, { keepNewlines: true, keepTabs: true })) + "\n");
}

function todos(_args: string[], { app, write }: CommandContext): void {
  write(app.session.todos.length === 0 ? pc.dim("No todos yet.\n") : renderTodosColoured(app.session.todos).join("\n") + "\n");
}

function compact(_args: string[], { app, write }: CommandContext): void {
  const r = app.agent.compact(1);
  app.recorder.save({ messages: app.agent.history.messages, todos: app.session.todos });
  const kb = Math.max(1, Math.round(r.savedChars / 1024));
  write(pc.dim(r.elided === 0
    ? "Nothing to compact: no earlier tool output is long enough to shorten.\n"
    : `Shortened ${r.elided} earlier tool call${r.elided === 1 ? "" : "s"} (${kb} KB); the model can run them again.\n`));
}

async function expand(_args: string[], { app, write }: CommandContext): Promise<void> {
  const last = app.ui.lastCommand;
  if (!last) return void write(pc.dim("No command has run yet in this session.\n"));
  const text = `${last.summary.replace(/^run_bash /, "$ ")}\n\n${last.content}`;
  await app.ui.aside(() => page(text, write));
}
