// bunker -p: one turn, the answer on stdout, progress on stderr, and an exit
// code a script can trust.
import { buildApp, usageSummary } from "./app.ts";
import type { Config } from "./config.ts";
import { escapeControl } from "./ui/escape.ts";
import { Stdout } from "./ui/stdout.ts";
import { TerminalUI } from "./ui/terminal.ts";

export async function runHeadless(config: Config): Promise<number> {
  // Piped input is part of the request: the prompt, or context for the prompt.
  const piped = process.stdin.isTTY ? "" : (await Bun.stdin.text()).trim();
  const prompt = config.prompt && piped ? `${config.prompt}\n\n<stdin>\n${piped}\n</stdin>` : (config.prompt ?? piped);
  if (!prompt) {
    // Here stdin is not a terminal (a terminal without a prompt is refused earlier), and it held nothing.
    process.stderr.write('bunker: no prompt: stdin is not a terminal and was empty. Give one as an argument, bunker -p "what to do", or pipe it in: echo "what to do" | bunker -p\n');
    return 2;
  }
  const ui = new TerminalUI({ streamText: false, verbose: config.verbose, spinner: false });
  const app = await buildApp(config, ui);
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.on("SIGINT", onSigint);
  // Whoever reads stdout went away: stop the turn instead of working for nobody.
  const stdout = new Stdout(process.stdout, () => controller.abort());
  const events = config.outputFormat === "stream-json" ? streamJsonEvents(ui, stdout) : ui;
  const outcome = await app.agent.runTurn(prompt, app.context(controller.signal), events);
  process.off("SIGINT", onSigint);

  // Work that stopped short is a failure a script must be able to see, not a quiet exit 0.
  const isError = outcome.end === "error" || outcome.end === "interrupted" || outcome.end === "context_full" || outcome.end === "max_turns";
  if (config.outputFormat === "text") {
    if (outcome.error) ui.error(outcome.error);
    // On a terminal the answer cannot move the cursor or retitle the window; piped, it is exact.
    const answer = process.stdout.isTTY ? escapeControl(outcome.text, { keepNewlines: true, keepTabs: true }) : outcome.text;
    if (answer) stdout.write(answer + "\n");
  } else {
    const result = {
      type: "result",
      result: outcome.text,
      end: outcome.end,
      is_error: isError,
      ...(outcome.error ? { error: outcome.error } : {}),
      turns: outcome.modelCalls,
      // What was refused: the run may have "succeeded" without doing what was asked.
      permission_denials: app.perms.denials,
      model: app.model.name,
      // Continue this conversation with: bunker -r SESSION_ID -p "…"
      ...(app.recorder.saving ? { session_id: app.recorder.id } : {}),
      ...usageSummary(app),
    };
    stdout.write(JSON.stringify(result) + "\n");
  }
  const writeError = await stdout.flush();
  if (writeError?.code === "EPIPE") return 141; // as if killed by SIGPIPE, quietly
  if (writeError) {
    process.stderr.write(`bunker: could not write the answer to stdout: ${writeError.message}\n`);
    return 1;
  }
  if (outcome.end === "interrupted") return 130;
  return isError ? 1 : 0;
}

/** stream-json: one JSON object per line for each event, then the result. */
function streamJsonEvents(ui: TerminalUI, stdout: Stdout): TerminalUI {
  const emit = (obj: object) => stdout.write(JSON.stringify(obj) + "\n");
  return Object.assign(Object.create(ui) as TerminalUI, {
    onText: (delta: string) => emit({ type: "text", text: delta }),
    onToolStart: (summary: string) => emit({ type: "tool_use", summary }),
    onToolEnd: (summary: string, r: { content: string; isError: boolean }) =>
      // A failure says why (what the model was told), bounded; a success only how much came back.
      emit({ type: "tool_result", summary, is_error: r.isError, bytes: r.content.length, ...(r.isError ? { error: r.content.slice(0, 2000) } : {}) }),
    onNotice: (message: string) => emit({ type: "notice", message }),
    onRetry: (message: string) => emit({ type: "retry", message }),
  });
}
