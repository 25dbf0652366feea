// bunker's own state folder ($XDG_STATE_HOME/bunker: the saved sessions, the
// change journal, MCP consent) as a command's sandbox has it: never shown,
// even when the workspace holds it (bunker run in the home folder, or
// XDG_STATE_HOME inside the project). bunker reads it back outside the
// sandbox: a journal a command forged there would be replayed by bunker at its
// next start, writing where the command itself could not (red team 7).
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { isWithin, realpathLoose } from "../perms/workspace.ts";

export interface StateDirView {
  /** Masked in the sandbox (empty, read-only). */
  hidden: string[];
  /**
   * The folders between the workspace and it, each a mount of its own (writable as before): a command cannot
   * rename one away, taking the mask with it, and make another in its place for bunker to read.
   */
  pinned: string[];
}

/** How the sandbox keeps `stateDir` from a command whose workspace is `root` and which may write `writable` (real paths). */
export function stateDirView(stateDir: string, root: string, writable: readonly string[] = []): StateDirView {
  // The workspace inside the state folder (an MCP server's own folder opened as a project): nothing around it to hide.
  if (isWithin(stateDir, root)) return { hidden: [], pinned: [] };
  const pinned = new Set<string>();
  for (const w of [root, ...writable]) {
    if (w === stateDir || !isWithin(w, stateDir)) continue;
    for (let d = dirname(stateDir); d !== w; d = dirname(d)) pinned.add(d);
  }
  return { hidden: [stateDir], pinned: [...pinned].sort() };
}

/** The folder, made now if it is not there yet (a mask needs something to cover: a command must not make it first), as its real path. */
export function stateDirMade(stateDir: string): string {
  try {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  } catch {
    // Not makeable (a read-only home): then no command can make it either.
  }
  return realpathLoose(stateDir).real;
}
