// Entry point: argv → Config → REPL or headless run, and the exit code.
// --version and --help answer before anything heavy (the SDK) is loaded.
import { commit, version } from "./build-info.ts";
import { fitHelp, HELP } from "./help.ts";
import { escapeControl } from "./ui/escape.ts";
import { startupBegins } from "./jit.ts";

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  // Inside the sandbox, bunker itself carries a command's connections to its proxy (src/net/forwarder.ts).
  if (argv[0] === "__net-forward") {
    const { runForwarder } = await import("./net/forwarder.ts");
    return runForwarder(argv.slice(1));
  }
  // Around bwrap under bare --allow-net: a Landlock domain that reaches none of the machine's abstract sockets (src/sandbox/landlock.ts).
  if (argv[0] === "__scope-abstract") {
    const { runScoped } = await import("./sandbox/landlock.ts");
    return runScoped(argv.slice(1));
  }
  // Inside an MCP server's sandbox, in front of it: no Unix socket can be made (src/sandbox/no-unix-sockets.ts).
  if (argv[0] === "__no-unix-sockets") {
    const { runWithoutUnixSockets } = await import("./sandbox/no-unix-sockets.ts");
    return runWithoutUnixSockets(argv.slice(1));
  }
  // Inside the sandbox, before the command: the protected mounts are where the walk found them (src/sandbox/mount-check.ts).
  if (argv[0] === "__check-mounts") {
    const { runMountCheck } = await import("./sandbox/mount-check.ts");
    return runMountCheck(argv.slice(1));
  }
  // After a session that exited while its deny-read history walk ran: the walk, kept for the next (src/sandbox/denied-history.ts).
  if (argv[0] === "__history-walk") {
    const { runHistoryWalk } = await import("./sandbox/denied-history.ts");
    return runHistoryWalk(argv.slice(1));
  }
  // Answer at once, before the flag parser and permission code are loaded.
  // console.log, not process.stdout.write: the first touch of process.stdout
  // builds a Node stream and costs more than the rest of start-up.
  if (argv.includes("--version") || argv.includes("-v")) {
    console.log(`bunker ${version} (${commit})`);
    return 0;
  }
  if (argv.includes("--help") || argv.includes("-h")) {
    // Fitted to a terminal's width (a pipe gets it whole); the width is asked of stdout only here, not for --version.
    console.log(fitHelp(HELP, process.stdout.isTTY ? process.stdout.columns : undefined));
    return 0;
  }
  // Everything from here to the REPL's first prompt (or a headless run's end) runs once: see jit.ts.
  startupBegins();
  const { runCli } = await import("./cli.ts");
  return runCli(argv);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    // An unexpected error's words may quote the disk, the network or the model: escaped, newlines kept.
    process.stderr.write(`bunker: ${escapeControl(err instanceof Error ? (err.stack ?? err.message) : String(err), { keepNewlines: true })}\n`);
    process.exit(1);
  },
);
