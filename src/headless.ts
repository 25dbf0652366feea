// bunker -p: one turn, the answer on stdout, progress on stderr, and an exit
// code a script can trust.
import { fstatSync, statSync } from "node:fs";
import { DEFAULT_CONTEXT_WINDOW } from "./agent/loop.ts";
import { buildApp, canPrompt, usageSummary } from "./app.ts";
import { version } from "./build-info.ts";
import type { Config } from "./config.ts";
import { initEvent, resultEvent, StreamJsonLines, streamJsonEvents, type PermissionMode } from "./stream-json.ts";
import { escapeControl } from "./ui/escape.ts";
import { isTerminal } from "./ui/is-terminal.ts";
import { FdSink, type TextSink } from "./ui/std.ts";
import { Stdout } from "./ui/stdout.ts";
import { TerminalUI } from "./ui/terminal.ts";

/** What a headless run reads and writes: the process's own standard streams (without Node's stream objects), or a test's. */
export interface HeadlessIO {
  /** stdin is a terminal: nothing is piped in. */
  stdinIsTerminal: boolean;
  /** stdin is /dev/null or closed: nothing is piped in, and reading it is skipped. */
  stdinIsEmpty?: boolean;
  stdout: TextSink;
  stderr: TextSink;
}

function standardIO(): HeadlessIO {
  return { stdinIsTerminal: isTerminal(0), stdinIsEmpty: isNullOrClosed(0), stdout: new FdSink(1), stderr: new FdSink(2) };
}

/** Whether `fd` is /dev/null or not open: it holds nothing, and Bun.stdin's reader need not be built to find that out. */
export function isNullOrClosed(fd: number): boolean {
  let st;
  try {
    st = fstatSync(fd);
  } catch {
    return true;
  }
  if (!st.isCharacterDevice()) return false;
  try {
    const devNull = statSync("/dev/null");
    return st.rdev === devNull.rdev;
  } catch {
    return false;
  }
}

/** Bytes a token takes at the most (English prose; code and other languages take fewer): how the size of piped text is judged. */
const BYTES_PER_TOKEN = 4;

/**
 * What to say about piped input of `bytes` against a context window of
 * `window` tokens. What is measured is bytes (the tokens are the API's to
 * count): the window holds at most `window * BYTES_PER_TOKEN` of them, at the
 * most favourable rate. Past that the API would refuse the request, so nothing
 * is sent (the read stops there); past half of it, the turn has little room
 * left, so the person is told and it is sent whole. Nothing is cut silently.
 */
export function pipedInputCheck(bytes: number, window: number): { refuse: string } | { warn: string } | null {
  const limit = window * BYTES_PER_TOKEN;
  const limitWords = `${sizeWords(limit)}, the most the model's context window of ${window.toLocaleString("en-US")} tokens can hold at ${BYTES_PER_TOKEN} bytes a token`;
  if (bytes > limit) {
    return {
      refuse:
        `bunker: stdin holds more than ${limitWords} (bunker stopped reading there): ` +
        `the API would refuse it, so nothing was sent. Pipe in only the part that matters (e.g. tail -c 200000 FILE | bunker -p "..."), ` +
        `or put the file in the workspace and name it in the prompt (bunker -p "summarize FILE"): the model reads files in pieces.\n`,
    };
  }
  if (bytes > limit / 2) {
    const pct = Math.round((100 * bytes) / limit);
    return {
      warn:
        `bunker: stdin holds ${sizeWords(bytes)}, ${pct}% of ${limitWords}; it is sent whole, ` +
        `but the turn has little room left and the API may refuse it as too long. Piping in less, or naming the file for the model to read, leaves room.\n`,
    };
  }
  return null;
}

function sizeWords(bytes: number): string {
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.round(bytes / 1000)} KB`;
}

/** Reads piped stdin whole, or stops once it passes `max` bytes (a 4 GB pipe is not held in memory to be refused). */
async function readPiped(max: number): Promise<{ text: string; bytes: number } | { over: number }> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of Bun.stdin.stream()) {
    bytes += chunk.length;
    if (bytes > max) return { over: bytes };
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString("utf8"), bytes };
}

export async function runHeadless(config: Config, io: HeadlessIO = standardIO()): Promise<number> {
  // Ctrl+C (SIGINT) is honoured wherever the run is: during the turn it stops the turn (which then ends as
  // "interrupted"); before it (stdin, start-up), it ends the run at once, saying so, instead of being ignored.
  const interrupt: Interrupt = { turn: null, bySigint: false };
  const onSigint = () => {
    interrupt.bySigint = true;
    if (interrupt.turn) return interrupt.turn.abort();
    io.stderr.write("bunker: interrupted (SIGINT) before the turn started; nothing was sent.\n");
    process.exit(130);
  };
  process.on("SIGINT", onSigint);
  try {
    return await runHeadlessTurn(config, io, interrupt);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

/** Who stops the turn on SIGINT (null: no turn yet), and whether SIGINT came. */
interface Interrupt {
  turn: AbortController | null;
  bySigint: boolean;
}

async function runHeadlessTurn(config: Config, io: HeadlessIO, interrupt: Interrupt): Promise<number> {
  // Piped input is part of the request: the prompt, or context for the prompt. Its size is judged against the context window.
  let piped = "";
  if (!io.stdinIsTerminal && !io.stdinIsEmpty) {
    const read = await readPiped(DEFAULT_CONTEXT_WINDOW * BYTES_PER_TOKEN);
    const check = pipedInputCheck("over" in read ? read.over : read.bytes, DEFAULT_CONTEXT_WINDOW);
    if (check && "refuse" in check) {
      io.stderr.write(check.refuse);
      return 2;
    }
    if (check) io.stderr.write(check.warn);
    if ("text" in read) piped = read.text.trim();
  }
  const prompt = config.prompt && piped ? `${config.prompt}\n\n<stdin>\n${piped}\n</stdin>` : (config.prompt ?? piped);
  if (!prompt) {
    // `-r zzzz </dev/null`: the unknown session is the real problem, said first (throws SessionError, which the CLI prints).
    await (await import("./session/open.ts")).checkResumable(config);
    // Here stdin is not a terminal (a terminal without a prompt is refused earlier), and it held nothing.
    io.stderr.write('bunker: no prompt: stdin is not a terminal and was empty. Give one as an argument, bunker -p "what to do", or pipe it in: echo "what to do" | bunker -p\n');
    return 2;
  }
  const started = performance.now();
  // stream-json's stderr does not follow tool calls (its stdout does): no command progress there either.
  const ui = new TerminalUI({ streamText: false, verbose: config.verbose, spinner: false, out: io.stdout, err: io.stderr, commandProgress: config.outputFormat !== "stream-json" });
  const app = await buildApp(config, ui);
  // The result's usage is this run's; the session keeps its total (a later -c in the REPL counts it whole).
  app.recorder.trackUsage(app.model.usage, false);
  const controller = new AbortController();
  interrupt.turn = controller;
  // Whoever reads stdout went away: stop the turn instead of working for nobody.
  const stdout = new Stdout(io.stdout, () => controller.abort());
  const emit = (event: object) => stdout.write(JSON.stringify(event) + "\n");
  const sessionId = () => (app.recorder.saving ? app.recorder.id : null);
  let events: TerminalUI = ui;
  let lines: StreamJsonLines | undefined;
  if (config.outputFormat === "stream-json") {
    const init = (id: string | null) => initEvent({
      sessionId: id,
      cwd: config.root,
      model: app.model.name,
      tools: app.toolNames,
      permissionMode: permissionMode(config),
      thinking: app.model.thinkingLevel,
      version,
    });
    lines = new StreamJsonLines(emit, init, sessionId);
    events = streamJsonEvents(ui, lines);
  }
  // Images are looked for in what the person wrote, not in what was piped in.
  const outcome = await app.agent.runTurn(prompt, app.context(controller.signal), events, config.prompt ?? prompt);
  interrupt.turn = null;
  // On disk before the answer is shown: a run that printed its answer has its session saved, power cut or not.
  await app.recorder.finish();
  if (outcome.end === "interrupted" && interrupt.bySigint) io.stderr.write("bunker: interrupted (SIGINT): the turn was stopped before its end.\n");

  // Work that stopped short is a failure a script must be able to see, not a quiet exit 0.
  const isError = outcome.end === "error" || outcome.end === "interrupted" || outcome.end === "context_full" || outcome.end === "max_turns";
  if (config.outputFormat === "text") {
    if (outcome.error) ui.error(outcome.error);
    // On a terminal the answer cannot move the cursor or retitle the window; piped, it is exact.
    const answer = io.stdout.isTTY ? escapeControl(outcome.text, { keepNewlines: true, keepTabs: true }) : outcome.text;
    if (answer) stdout.write(answer + "\n");
  } else {
    // The reason on stderr too, as in text mode: a script that keeps only .result, or a CI log, still says why (N13-03).
    if (outcome.error) ui.error(outcome.error);
    const { usage, cost_usd } = usageSummary(app);
    // Only a session that exists: a run that got no answer was not saved, and -r could not find it.
    const savedId = app.recorder.saved ? app.recorder.id : null;
    const result = (id: string | null) => resultEvent({
      end: outcome.end,
      isError,
      text: outcome.text,
      ...(outcome.error ? { error: outcome.error } : {}),
      turns: outcome.modelCalls,
      durationMs: performance.now() - started,
      apiMs: app.model.apiMs,
      sessionId: id,
      model: app.model.name,
      usage,
      costUSD: cost_usd,
      permissionDenials: app.perms.denials,
    });
    if (lines) lines.result(result, savedId);
    else emit(result(savedId));
  }
  const writeError = await stdout.flush();
  if (writeError?.code === "EPIPE") return 141; // as if killed by SIGPIPE, quietly
  if (writeError) {
    io.stderr.write(`bunker: could not write the answer to stdout: ${writeError.message}\n`);
    return 1;
  }
  await app.recorder.foldIfMany();
  if (outcome.end === "interrupted") return 130;
  return isError ? 1 : 0;
}

/** How this run decides what it may do unasked, in the words of the init event. */
function permissionMode(config: Config): PermissionMode {
  const { allow } = config.grants;
  if (allow.write.workspace && allow.run.all) return "allow-all";
  return canPrompt(config) ? "ask" : "no-prompt";
}
