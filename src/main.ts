// Entry point: argv → Config → REPL or headless run, and the exit code.
// --version and --help answer before anything heavy (the SDK) is loaded.
import { commit, version } from "./build-info.ts";
import { HELP } from "./help.ts";
import { escapeControl } from "./ui/escape.ts";
import { isTerminal } from "./ui/is-terminal.ts";
import { startupBegins } from "./jit.ts";

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  // Inside the sandbox, bunker itself carries a command's connections to its proxy (src/net/forwarder.ts).
  if (argv[0] === "__net-forward") {
    const { runForwarder } = await import("./net/forwarder.ts");
    return runForwarder(argv.slice(1));
  }
  // Answer at once, before the flag parser and permission code are loaded.
  // console.log, not process.stdout.write: the first touch of process.stdout
  // builds a Node stream and costs more than the rest of start-up.
  if (argv.includes("--version") || argv.includes("-v")) {
    console.log(`bunker ${version} (${commit})`);
    return 0;
  }
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(HELP);
    return 0;
  }
  // Everything from here to the REPL's first prompt (or a headless run's end) runs once: see jit.ts.
  startupBegins();
  // From here on SIGTERM and SIGHUP end bunker at any moment, its commands and terminal state with it.
  const { installSignalExits } = await import("./sandbox/process.ts");
  installSignalExits();
  const { parseConfig, UsageError } = await import("./config.ts");
  let parsed;
  try {
    parsed = parseConfig(argv, process.env, isTerminal(0));
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`bunker: ${escapeControl(err.message)}\n`);
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
    const { listSessions, pickSession } = await import("./session/open.ts");
    // On a terminal, the list is a picker; otherwise (and with nothing to pick) it is printed and nothing starts.
    const picked = isTerminal(0) && isTerminal(2) ? await pickSession(config) : listSessions(config);
    if (!("id" in picked)) {
      (picked.code === 0 ? process.stdout : process.stderr).write(picked.text);
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
    process.stderr.write("bunker: ANTHROPIC_API_KEY is not set. Create a key at console.anthropic.com and run: export ANTHROPIC_API_KEY=sk-ant-...\n");
    return 2;
  }
  const { runApp } = await import("./app.ts");
  return runApp(config);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    // An unexpected error's words may quote the disk, the network or the model: escaped, newlines kept.
    process.stderr.write(`bunker: ${escapeControl(err instanceof Error ? (err.stack ?? err.message) : String(err), { keepNewlines: true })}\n`);
    process.exit(1);
  },
);
