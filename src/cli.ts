// Everything bunker does after --version and --help: flags, then a session
// (headless or the REPL), or one of the commands that start none. One module
// with static imports of what every session passes through (the signal
// handlers, the flag parser, the app and the headless run), so start-up loads
// it as one chunk of the binary: each import() of its own cost a chunk load
// and a wait (six chunks fewer: 1.3 ms of CPU off a headless turn, measured
// in the compiled binary, 100 interleaved pairs). What only some runs need (the
// REPL, the session list, taking changes back) is still loaded on use.
import { commit, version } from "./build-info.ts";
import { parseConfig, UsageError, type Config } from "./config.ts";
import { runHeadless } from "./headless.ts";
import { HELP } from "./help.ts";
import { installSignalExits } from "./sandbox/process.ts";
import { SessionError } from "./session/error.ts";
import { escapeControl } from "./ui/escape.ts";
import { isTerminal } from "./ui/is-terminal.ts";

/** Runs bunker with `argv` (without the program's own name); returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  // From here on SIGTERM and SIGHUP end bunker at any moment, its commands and terminal state with it.
  installSignalExits();
  let parsed;
  try {
    parsed = parseConfig(argv, process.env, isTerminal(0));
  } catch (err) {
    if (err instanceof UsageError) {
      const line = `bunker: ${escapeControl(err.message)}`;
      // On a terminal, between words at its width (its own wrap cut "--allow-w" / "rite"; new user's N11-07).
      const { wrapWords } = process.stderr.isTTY ? await import("./ui/wrap-words.ts") : { wrapWords: (t: string) => t };
      process.stderr.write(`${wrapWords(line, process.stderr.columns)}\n`);
      return 2;
    }
    throw err;
  }
  if (parsed.version) {
    process.stdout.write(`bunker ${version} (${commit})\n`);
    return 0;
  }
  if (parsed.help || !parsed.config) {
    process.stdout.write(HELP + "\n");
    return 0;
  }
  let config = parsed.config;
  if (config.resume?.kind === "list") {
    const { listSessions, pickSession, takeJournalNotices } = await import("./session/open.ts");
    // On a terminal, the list is a picker; otherwise (and with nothing to pick) it is printed and nothing starts.
    const picked = isTerminal(0) && isTerminal(2) ? await pickSession(config) : await listSessions(config);
    if (!("id" in picked)) {
      // What opening the store set aside (a saved session it could not read), said once; a picked session's run says it.
      for (const line of takeJournalNotices()) process.stderr.write(`bunker: ${escapeControl(line)}\n`);
      const out = picked.code === 0 ? process.stdout : process.stderr;
      // Fitted between words to a terminal (its own wrap cuts mid-word: "(bunk" / "er starts…"; new user).
      const { wrapWords } = await import("./ui/wrap-words.ts");
      out.write(out.isTTY ? wrapWords(picked.text, out.columns) : picked.text);
      return picked.code;
    }
    config = { ...config, resume: { kind: "id", id: picked.id } };
  }
  if (config.takeBack) {
    // Taking back file changes talks to no model: no key needed.
    const { runTakeBack } = await import("./rewind-command.ts");
    return runTakeBack(config);
  }
  if (!config.apiKey) {
    const noKey = "bunker: ANTHROPIC_API_KEY is not set. Create a key at console.anthropic.com and run: export ANTHROPIC_API_KEY=sk-ant-...\n";
    // On a terminal, fitted between words (its own wrap cut "ANTHROPI" / "C_API_KEY"; new user 10's F11).
    if (!isTerminal(2)) process.stderr.write(noKey);
    else process.stderr.write((await import("./ui/wrap-words.ts")).wrapWords(noKey, process.stderr.columns));
    return 2;
  }
  return runSession(config);
}

/** A headless run or the REPL. */
async function runSession(config: Config): Promise<number> {
  try {
    if (config.print) return await runHeadless(config);
    const { runRepl } = await import("./repl.ts");
    return await runRepl(config);
  } catch (err) {
    // -c / -r that cannot be honoured: say why, start nothing.
    if (err instanceof SessionError) {
      process.stderr.write(`bunker: ${escapeControl(err.message)}\n`);
      return err.exitCode;
    }
    throw err;
  }
}
