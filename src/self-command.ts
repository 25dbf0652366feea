// How bunker runs itself for one of its internal subcommands (the network
// forwarder and the mount checker inside the sandbox, the Landlock wrapper
// around it): the compiled binary as it was started (sandbox/self-binary.ts),
// or bun with this checkout's main.ts.
import { join } from "node:path";
import { hostSelf, isCompiled, SANDBOX_SELF } from "./sandbox/self-binary.ts";

/**
 * The command line that starts `bunker SUBCOMMAND` inside a bubblewrap sandbox, and the host paths it needs to read
 * there. The compiled binary is bound in by bubblewrap.ts (at SANDBOX_SELF): no path of the host.
 */
export function selfInvocation(subcommand: string): { argv: string[]; paths: string[] } {
  if (isCompiled()) return { argv: [SANDBOX_SELF, subcommand], paths: [] };
  return fromCheckout(subcommand);
}

/** The command line that starts `bunker SUBCOMMAND` on the host: the running binary by its /proc link, whatever its path holds now. */
export function selfCommand(subcommand: string): string[] {
  if (isCompiled()) return [hostSelf(), subcommand];
  return fromCheckout(subcommand).argv;
}

function fromCheckout(subcommand: string): { argv: string[]; paths: string[] } {
  const src = import.meta.dir;
  // The whole checkout: main.ts imports ../package.json and node_modules. bun would cache its
  // transpiled sources in the command's private home (~/.bun), where the command would find them.
  const env = ["/usr/bin/env", "BUN_RUNTIME_TRANSPILER_CACHE_PATH=0"];
  // Started in the workspace, bun would load its .env and bunfig.toml (whose preload runs code first, outside the
  // sandbox for the Landlock wrapper): the checkout's own settings instead, as the compiled binary is built without them.
  const own = ["--no-env-file", `--config=${join(src, "..", "bunfig.toml")}`];
  return { argv: [...env, process.execPath, ...own, join(src, "main.ts"), subcommand], paths: [process.execPath, join(src, "..")] };
}
