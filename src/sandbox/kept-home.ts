// The caches in a command's sandbox home, kept between commands of one
// workspace (Linux): what tools cache there (~/.cache/pip, ~/.npm,
// ~/.cache/go-build, ~/.m2/repository) is there for the next command instead
// of fetched again. Only the caches: the home around them is the empty
// in-memory one each time, so no configuration a command writes (~/.npmrc,
// ~/.gitconfig, ~/.bashrc) is there for a later command, perhaps of a session
// with wider grants, to obey unseen (red team 9's note on the first form of
// this, which kept the whole home). They are folders in bunker's own state
// folder, never the person's home:
// $XDG_STATE_HOME/bunker/sandbox-homes/<a hash of the workspace's path>/<cache>.
//
// The promise it keeps: nothing on this machine runs what a command writes
// there. bunker never reads the folder (it is not walked, replayed or
// shown); the state folder around it is hidden from every command
// (state-dir.ts), so a command reaches a cache only inside a later sandbox of
// the same workspace, never as a path the person's own tools use. Only each
// cache folder itself is shown, never its parents in the state folder, so no
// link a command leaves can steer where a later sandbox mounts anything.
// Not kept (the empty home's own empty caches instead): a state folder inside
// the workspace or holding it (its files would be the workspace's, which the
// person's tools do read), a folder that is not a plain directory of this
// user's (a link, another owner's), or --no-session-persistence.
import { lstatSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { isWithin, realpathLoose } from "../perms/workspace.ts";

/** The folder of bunker's state folder that holds the kept homes, one per workspace. */
export const KEPT_HOMES = "sandbox-homes";

/** The caches kept, as paths in the home (XDG's default cache folder holds pip's, uv's, go's build cache, yarn 1's, …). */
export const KEPT_CACHES = [".cache", ".npm", ".m2/repository", ".gradle/caches", ".cargo/registry", ".cargo/git", "go/pkg/mod", ".yarn/berry/cache", ".local/share/pnpm/store"];

/** The kept caches' folder of workspace `root` (a real path), made (owner-only, with every cache's folder) if it is not there yet; null where none may be kept. */
export function keptHome(stateDir: string, root: string): string | null {
  const state = realpathLoose(stateDir).real;
  if (isWithin(root, state) || isWithin(state, root)) return null;
  const dir = join(state, KEPT_HOMES, new Bun.CryptoHasher("sha256").update(root).digest("hex").slice(0, 16));
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    // Only a directory of ours, reached by no link: anything else is not bunker's to hand to a command.
    if (!st.isDirectory() || st.uid !== process.getuid?.() || realpathLoose(dir).real !== dir) return null;
    for (const cache of KEPT_CACHES) mkdirSync(join(dir, cache), { recursive: true, mode: 0o700 });
  } catch {
    return null; // a read-only state folder: the in-memory home, as before
  }
  return dir;
}
