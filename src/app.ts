// Builds the pieces from a Config (permissions, tools, model, agent) and
// runs the headless turn or the REPL.
import pc from "./ui/colors.ts";
import { Agent, headlessAdvice, REPL_ADVICE } from "./agent/loop.ts";
import { TodoRoundHook } from "./agent/todo.ts";
import { Model } from "./agent/model.ts";
import { SessionState } from "./agent/session-state.ts";
import { buildSystemPrompt } from "./agent/system-prompt.ts";
import type { InstructionsFile } from "./agent/instructions.ts";
import { matchesPathRules } from "./perms/path-rules.ts";
import { rulesFilePaths } from "./perms/rules-file.ts";
import { costUSD } from "./agent/usage.ts";
import type { Config } from "./config.ts";
import { NoPromptApprover } from "./perms/approver.ts";
import { Permissions } from "./perms/permissions.ts";
import { Policy, sharesMachineNetwork } from "./perms/policy.ts";
import type { Approver } from "./perms/types.ts";
import { allTools } from "./tools/all.ts";
import { distrustForHostPrograms } from "./sandbox/host-program.ts";
import { globBase, rememberDeniedIn } from "./sandbox/denied-files.ts";
import { ToolRegistry } from "./tools/registry.ts";
import type { ToolContext } from "./tools/tool.ts";
import { TerminalUI } from "./ui/terminal.ts";
import { escapeControl } from "./ui/escape.ts";
import { isTerminal } from "./ui/is-terminal.ts";
import { continueCommand, openSession } from "./session/open.ts";
import type { SessionRecorder } from "./session/recorder.ts";
import { Checkpoints } from "./change/checkpoints.ts";
import { startChanges } from "./change/start.ts";
import { keepPrivateIn } from "./sandbox/private-folder.ts";
import { deniedMemoryFile } from "./sandbox/denied-memory.ts";
import { dirname, join } from "node:path";
import { homedir } from "./fs/home.ts";
import type { McpHub } from "./mcp/hub.ts";

export interface App {
  config: Config;
  agent: Agent;
  model: Model;
  ui: TerminalUI;
  session: SessionState;
  perms: Permissions;
  /** The tools the model is offered, by name. */
  toolNames: string[];
  /** A tool call's one-line summary, as its tool line shows it (a continued session's replay). */
  summarizeCall(name: string, input: unknown): Promise<string>;
  /** Saves the conversation as it goes (bunker -c / -r pick it up). */
  recorder: SessionRecorder;
  /** What bunker's file changes were, for /undo and /rewind. */
  checkpoints: Checkpoints;
  /** The MCP servers, when any are configured. */
  mcp: McpHub | undefined;
  /** A context for one turn, with its own abort signal. */
  context(signal: AbortSignal): ToolContext;
}

/** Whether the person can be asked: a terminal on both ends, and not --no-prompt. */
export function canPrompt(config: Config): boolean {
  return !config.noPrompt && isTerminal(0) && isTerminal(2);
}

async function makeApprover(config: Config, ui: TerminalUI): Promise<Approver> {
  if (!canPrompt(config)) return new NoPromptApprover();
  const { TtyApprover } = await import("./perms/tty-approver.ts");
  const { rulesFilePaths } = await import("./perms/rules-file.ts");
  // "Always allow" goes to the person's own settings: the workspace's file may not grant commands.
  const tty = new TtyApprover({ settingsFile: rulesFilePaths(config.root).user, workspace: config.root });
  // The question has the terminal to itself: the status line and the REPL's key reader step aside.
  return {
    interactive: true,
    ask: async (req) => {
      ui.questionOpens();
      const answer = await ui.aside(() => tty.ask(req)).finally(() => ui.questionAnswered());
      if (answer.answer === "deny" && answer.stopsTurn) ui.stoppedAtQuestion();
      return answer;
    },
  };
}

/**
 * `greet` draws the banner (the REPL's): called once the model is known, before any MCP server's question, so
 * the question comes after it and does not read as start-up output the person can type through.
 */
export async function buildApp(config: Config, ui: TerminalUI, greet?: (modelName: string) => void): Promise<App> {
  // Before anything runs: the programs bunker runs on the host never come from where a command can write.
  const write = config.grants.allow.write;
  // A loop, not .flatMap: see jit.ts.
  const writable = [config.root, ...write.paths];
  for (const g of write.globs) writable.push(globBase(g));
  for (const s of config.mcp.servers) writable.push(...s.write);
  distrustForHostPrograms(writable);
  const approver = await makeApprover(config, ui);
  // Whether commands run in a sandbox is found out when a command is first judged (spawning
  // bwrap to probe it costs more than the rest of start-up, and its module pulls in the
  // network code), and said once then if there is none.
  let sandboxed: boolean | undefined;
  // A --deny-run program the sandbox cannot hide (a multi-call binary's applet, bunker's own shell: reviewer's R11-08),
  // said once. Looked up only under --deny-run, and never before a headless turn's first request: the look reads
  // every PATH folder (2,000 file-system calls for --deny-run=perl: reviewer's R12-05).
  let denyRunSaid = false;
  const denyRunNotice = async (): Promise<void> => {
    const denyRun = config.grants.deny.run;
    if (denyRunSaid || config.sandbox === "off" || (denyRun.programs.length === 0 && denyRun.patterns.length === 0)) return;
    denyRunSaid = true;
    const { deniedProgramsHeld, deniedRunNotes } = await import("./sandbox/denied-programs.ts");
    const { commandStarters } = await import("./tools/run-bash.ts");
    for (const line of deniedRunNotes(deniedProgramsHeld(denyRun, process.env.PATH ?? "", commandStarters()).notHeld)) ui.info(pc.yellow(escapeControl(line)));
  };
  const probeSandbox = async (): Promise<void> => {
    await denyRunNotice();
    if (sandboxed !== undefined) return;
    const { detectSandbox, planSandbox, sandboxStartupNotice } = await import("./sandbox/detect.ts");
    if (sandboxed !== undefined) return;
    const avail = detectSandbox();
    sandboxed = planSandbox(config.sandbox, avail).confined;
    const notice = config.sandbox === "off" ? null : sandboxStartupNotice(config.sandbox, avail);
    if (notice) ui.info(pc.yellow(escapeControl(notice)));
    // Bubblewrap sharing the machine's network where Landlock cannot keep commands from its abstract sockets.
    if (sandboxed && avail.kind === "bubblewrap" && sharesMachineNetwork(config.grants)) {
      const { abstractSocketsNotice } = await import("./sandbox/landlock.ts");
      const net = abstractSocketsNotice();
      if (net) ui.info(pc.yellow(escapeControl(net)));
    }
  };
  const perms = new Permissions({
    // Read-only commands (ls, cat, git status…) run unasked only inside the sandbox.
    policy: new Policy(config.root, config.grants, {
      // Until the probe has run (before any command is judged), nothing runs unasked for it.
      get readOnlyUnasked() {
        return sandboxed ?? false;
      },
    }),
    approver,
    beforeRun: probeSandbox,
    // The tool's error line (TerminalUI.onToolEnd) already shows the person every denial.
    notify: (line) => ui.debug(`  denied: ${escapeControl(line)}`),
    // Writes allowed by a flag or a session grant, or refused unasked (--no-prompt), still show what they change.
    onUnasked: (req) => {
      // stream-json's stderr carries nothing of the tool calls its stdout follows (new user's N11-09).
      if (config.print && config.outputFormat === "stream-json") return;
      // Required here, not imported: a turn that writes nothing never loads the diff view.
      const { unaskedChangeLines } = require("./ui/diff-view.ts") as typeof import("./ui/diff-view.ts");
      for (const line of unaskedChangeLines(req.files ?? [])) ui.info(line);
    },
  });
  const registry = new ToolRegistry(allTools(config));
  for (const warning of config.startupWarnings) ui.info(pc.yellow(escapeControl(warning)));
  // At a prompt, a --deny-run program the sandbox cannot hide is said at start, before the person asks for anything;
  // a headless turn says it when a command is first judged (probeSandbox), and one that runs none never looks.
  if (!config.print) await denyRunNotice();
  // At a prompt the person hears about a missing sandbox before the first command; a headless turn may need none.
  // MCP servers start now, in the same sandbox: what it cannot keep from them is said before they start (red team 6's F11d).
  // A copy of bunker's binary (if it is replaced mid-session) and the mount checker's list go where no sandbox looks.
  keepPrivateIn(dirname(config.sessionsPath));
  // A file a deny-read rule matched stays denied in later sessions too, wherever a command moved it (denied-memory.ts).
  rememberDeniedIn(config.grants.deny.read, () => deniedMemoryFile(dirname(config.sessionsPath), config.root));
  // A file a deny-read rule covers that git holds: its repository's objects hidden from commands and MCP servers.
  // Looked at before the first command, not here (reviewer's R11-10); a REPL starts the walk while the person types,
  // MCP servers wait for it up to MCP_WAIT_MS (they run on with what they were started with). Loaded only with such a rule.
  const deny = config.grants.deny.read;
  if ((deny.paths.length > 0 || deny.globs.length > 0) && (!config.print || config.mcp.servers.length > 0)) {
    const { historyCheckFor, MCP_WAIT_MS } = await import("./sandbox/denied-history.ts");
    const check = historyCheckFor({ root: config.root, deny, home: process.env.HOME || "/", stateDir: dirname(config.sessionsPath) });
    if (config.mcp.servers.length > 0) {
      config.hiddenGitObjects = (await check.forCommand((line) => ui.info(pc.yellow(escapeControl(line))), undefined, MCP_WAIT_MS)).objects;
    } else check.start();
  }
  if (!config.print || config.mcp.servers.length > 0) await probeSandbox();
  const session = new SessionState();
  const changes = startChanges(config, (line) => ui.info(pc.yellow(escapeControl(line))));
  const opened = await openSession(config, (message) => ui.info(pc.yellow(escapeControl(message))));
  if (opened.notice) ui.info(pc.yellow(escapeControl(opened.notice)));
  if (opened.resumed) {
    session.todos = opened.resumed.todos;
    session.continued = true;
  }
  const checkpoints = new Checkpoints(() => opened.recorder.sessionStore, () => opened.recorder.id, () => agent.history.messages);
  changes.onCommitted = async (tool, files) => {
    // A headless session's journal does not hold checkpoints: the store is loaded for the first change.
    await opened.recorder.loadStore();
    checkpoints.record(tool, files, (line) => ui.info(pc.yellow(escapeControl(line))));
  };
  const model = new Model({ apiKey: config.apiKey, baseURL: config.baseURL, model: opened.model, retryBaseMs: config.retryBaseMs, idleTimeoutMs: config.idleTimeoutMs, thinking: config.thinking });
  if (model.thinking.note) ui.info(pc.yellow(escapeControl(model.thinking.note)));
  let instructions: InstructionsFile[] = [];
  const system = buildSystemPrompt(config.root, {
    canRead: (real) => perms.policy.decide("read", real).verdict === "allow",
    // The person's own file and the repository's above the workspace are read unless a deny rule covers them.
    denied: (real) => matchesPathRules(config.grants.deny.read, real, true) !== null,
    userDir: dirname(rulesFilePaths(config.root).user),
    claudeDir: process.env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude"),
    read: (files) => (instructions = files),
    warn: (message) => ui.info(pc.yellow(escapeControl(message))),
  });
  greet?.(model.name);
  // Which instruction files went into the prompt (a headless run says so with --verbose).
  if (instructions.length > 0) {
    const line = pc.dim(`instructions: ${instructions.map((f) => escapeControl(f.shown)).join(", ")}`);
    if (config.print) ui.debug(line);
    else ui.info(line);
  }
  // The MCP client is loaded only when servers are configured.
  const mcp = config.mcp.servers.length === 0 ? undefined : await (await import("./mcp/start.ts")).startMcp({
    config, registry, interactive: canPrompt(config), notify: (line) => ui.info(pc.yellow(escapeControl(line))), aside: (fn) => ui.aside(fn),
  });
  const agent = new Agent({ model, registry, system, maxTurns: config.maxTurns,
    advice: config.print ? headlessAdvice(() => continueCommand(config.root, opened.recorder)) : REPL_ADVICE,
    hooks: [new TodoRoundHook(session, config.todoAfter), checkpoints],
    onHistoryChange: () => opened.recorder.save({ messages: agent.history.messages, todos: session.todos }),
    besideRequest: () => opened.recorder.open(),
  });
  if (opened.resumed) agent.load(opened.resumed.messages, opened.resumed.contextTokens ?? 0);
  // Every save keeps how full the context was, so a continued session starts from it.
  opened.recorder.trackContext(() => agent.contextUsed);
  return {
    config,
    agent,
    model,
    ui,
    session,
    perms,
    toolNames: registry.names,
    summarizeCall: async (name, input) => {
      await registry.ready(name);
      return registry.summarize(name, input);
    },
    recorder: opened.recorder,
    checkpoints,
    mcp,
    context: (signal) => ({ root: config.root, perms, session, ui, signal, changes }),
  };
}

export function usageSummary(app: App): { usage: App["model"]["usage"]; cost_usd: number } {
  return { usage: app.model.usage, cost_usd: costUSD(app.model.name, app.model.usage) };
}
