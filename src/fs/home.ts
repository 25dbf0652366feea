// The person's home folder as os.homedir() finds it ($HOME when set and not
// empty, else the user database), without loading node:os on the way to the
// first request (importing it cost 0.15 ms of every run; the user database
// is looked up only when $HOME does not say).
import type * as os from "node:os";

export function homedir(): string {
  return process.env.HOME || (process.getBuiltinModule("node:os") as typeof os).homedir();
}
