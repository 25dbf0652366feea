// The person's home folder as os.homedir() finds it ($HOME when set and not
// empty, else the user database), without loading node:os on the way to the
// first request (importing it cost 0.15 ms of every run; the user database
// is looked up only when $HOME does not say); and their config folder, as
// every XDG program finds it.
import type * as os from "node:os";
import { isAbsolute, join } from "node:path";

export function homedir(): string {
  return process.env.HOME || (process.getBuiltinModule("node:os") as typeof os).homedir();
}

/** `$XDG_CONFIG_HOME` when it is an absolute path (the XDG spec ignores a relative one), else `HOME/.config`. */
export function xdgConfigHome(env: Record<string, string | undefined>, home: string): string {
  const xdg = env.XDG_CONFIG_HOME;
  return xdg && isAbsolute(xdg) ? xdg : join(home, ".config");
}
