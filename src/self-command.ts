// How bunker runs itself for one of its internal subcommands (the network
// forwarder inside the sandbox, the Landlock wrapper around it): the
// compiled binary as it is, or bun with this checkout's main.ts.
import { join } from "node:path";

/** The command line that starts `bunker SUBCOMMAND`, and the paths it needs to read. */
export function selfInvocation(subcommand: string): { argv: string[]; paths: string[] } {
  if (import.meta.path.startsWith("/$bunfs/")) return { argv: [process.execPath, subcommand], paths: [process.execPath] };
  const src = import.meta.dir;
  // The whole checkout: main.ts imports ../package.json and node_modules. bun would cache its
  // transpiled sources in the command's private home (~/.bun), where the command would find them.
  const env = ["/usr/bin/env", "BUN_RUNTIME_TRANSPILER_CACHE_PATH=0"];
  // Started in the workspace, bun would load its .env and bunfig.toml (whose preload runs code first, outside the
  // sandbox for the Landlock wrapper): the checkout's own settings instead, as the compiled binary is built without them.
  const own = ["--no-env-file", `--config=${join(src, "..", "bunfig.toml")}`];
  return { argv: [...env, process.execPath, ...own, join(src, "main.ts"), subcommand], paths: [process.execPath, join(src, "..")] };
}

/** Just the command line. */
export function selfCommand(subcommand: string): string[] {
  return selfInvocation(subcommand).argv;
}
