// Long text in a pager (less, or $PAGER) on a terminal; printed where there is
// none. The text is escaped first: a pager shows what it is given, and
// command output is untrusted.
import { escapeControl } from "./escape.ts";
import { hostProgram } from "../sandbox/host-program.ts";

export interface PagerOptions {
  env?: Record<string, string | undefined>;
  /** Whether stdout is a terminal (default: process.stdout.isTTY). */
  tty?: boolean;
}

/** The pager's command line: $PAGER split on spaces, else less (quits at once when the text fits the screen), else none. */
export function pagerCommand(env: Record<string, string | undefined> = process.env): string[] | null {
  const chosen = env.PAGER?.trim();
  if (chosen) return chosen.split(/\s+/);
  // Never a less a command could have planted in a workspace folder on PATH: the pager runs on the host.
  const less = hostProgram("less", env.PATH ?? process.env.PATH ?? "");
  return less ? [less, "-R", "-F", "-K"] : null;
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
