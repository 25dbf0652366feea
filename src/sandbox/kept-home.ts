// The home a command's sandbox gets, kept between commands of one workspace
// (Linux): what tools cache there (~/.cache/pip, ~/.npm, ~/.cache/go-build,
// ~/.cache/uv) is there for the next command instead of fetched again. It is
// a folder in bunker's own state folder, never the person's home:
// $XDG_STATE_HOME/bunker/sandbox-homes/<a hash of the workspace's path>.
//
// The promise it keeps: nothing on this machine runs what a command writes
// there. bunker never reads the folder (it is not walked, replayed or
// shown); the state folder around it is hidden from every command
// (state-dir.ts), so a command reaches it only as $HOME inside a later
// sandbox of the same workspace, never as a path the person's own tools use.
// Not kept (each command gets the empty in-memory home instead): a state
// folder inside the workspace or holding it (its files would be the
// workspace's, which the person's tools do read), a folder that is not a
// plain directory of this user's (a link, another owner's), or
// --no-session-persistence (nothing of the run is kept).
import { lstatSync, mkdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { isWithin, realpathLoose } from "../perms/workspace.ts";

/** The folder of bunker's state folder that holds the kept homes, one per workspace. */
export const KEPT_HOMES = "sandbox-homes";

/** The kept home of workspace `root` (a real path), made (owner-only) if it is not there yet; null where none may be kept. */
export function keptHome(stateDir: string, root: string): string | null {
  const state = realpathLoose(stateDir).real;
  if (isWithin(root, state) || isWithin(state, root)) return null;
  const dir = join(state, KEPT_HOMES, new Bun.CryptoHasher("sha256").update(root).digest("hex").slice(0, 16));
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    // Only a directory of ours, reached by no link: anything else is not bunker's to hand to a command.
    if (!st.isDirectory() || st.uid !== process.getuid?.() || realpathLoose(dir).real !== dir) return null;
  } catch {
    return null; // a read-only state folder: the in-memory home, as before
  }
  return dir;
}

/**
 * Whether a link stands in `kept` where something is mounted inside the home (`home`: the path it is shown at;
 * `mounted`: every path the sandbox mounts): a command of an earlier sandbox may have left one there, and
 * bubblewrap follows it when it makes the mount, so the mount would land elsewhere in the sandbox. Such a home
 * is not used for the command (the empty one is): what a command left must not steer how the next is built.
 */
export function linkInKeptHome(kept: string, home: string, mounted: readonly string[]): string | null {
  for (const path of mounted) {
    if (path === home || !isWithin(home, path)) continue;
    let at = kept;
    for (const part of relative(home, path).split(sep)) {
      at = join(at, part);
      let st;
      try {
        st = lstatSync(at);
      } catch {
        break; // not there yet: bubblewrap makes it, a plain folder
      }
      if (st.isSymbolicLink()) return at;
      if (!st.isDirectory()) break;
    }
  }
  return null;
}
