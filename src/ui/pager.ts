// Long text in a pager (less, or $PAGER) on a terminal; printed where there is
// none. The text is escaped first: a pager shows what it is given, and
// command output is untrusted.
import { escapeControl } from "./escape.ts";
import { isAbsolute } from "node:path";
import { hostProgram } from "../sandbox/host-program.ts";

export interface PagerOptions {
  env?: Record<string, string | undefined>;
  /** Whether stdout is a terminal (default: process.stdout.isTTY). */
  tty?: boolean;
}

/**
 * The pager's command line: $PAGER split on spaces, else less, else none. less waits for q however short the text
 * (no -F): quitting at once when it fitted the screen printed it into the transcript, and the q a person presses to
 * leave a pager went into their next message (new user 12's N12-16; Claude Code's and Codex's views always need a close). The pager runs on the host, so a bare name ($PAGER=less too) is looked up as bunker's own programs are, never
 * in a PATH folder a command could have planted it in; a relative path is not run at all.
 */
export function pagerCommand(env: Record<string, string | undefined> = process.env): string[] | null {
  const PATH = env.PATH ?? process.env.PATH ?? "";
  const chosen = env.PAGER?.trim();
  if (chosen) {
    const [name, ...args] = chosen.split(/\s+/);
    const program = name!.includes("/") ? (isAbsolute(name!) ? name! : null) : hostProgram(name!, PATH);
    return program ? [program, ...args] : null;
  }
  const less = hostProgram("less", PATH);
  return less ? [less, "-R", "-K"] : null;
}

/** Shows `text` in the pager and waits until the person leaves it; prints it with `fallback` when no pager can run. */
export async function page(text: string, fallback: (text: string) => void, opts: PagerOptions = {}): Promise<void> {
  const safe = escapeControl(text, { keepNewlines: true, keepTabs: true });
  const argv = (opts.tty ?? Boolean(process.stdout.isTTY)) ? pagerCommand(opts.env) : null;
  if (argv) {
    try {
      const proc = Bun.spawn(argv, { stdin: "pipe", stdout: "inherit", stderr: "inherit", env: { ...process.env, ...opts.env, LESSSECURE: "1" } });
      proc.stdin.write(safe.endsWith("\n") ? safe : safe + "\n");
      await proc.stdin.end();
      await proc.exited;
      return;
    } catch {
      // no such pager: print instead
    }
  }
  fallback(safe.endsWith("\n") ? safe : safe + "\n");
}
