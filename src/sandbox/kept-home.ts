// The caches in a command's sandbox home, kept between commands of one
// workspace (Linux): what tools cache there (~/.cache/pip, npm's ~/.npm/_cacache,
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
// A cache is code for a later command (cargo runs a cached crate's build.rs
// and never re-hashes it, go's module and build caches, pip's built wheels,
// Maven's and Gradle's jars are used as found: red team 10's F04), so one is
// shown only to commands run with the very grants it was written under: a
// session with wider grants (--allow-net, a secret in --allow-env) starts
// with empty caches of its own, and what a command of a narrower session
// planted never runs with more than that session could do itself.
// Not kept (the empty home's own empty caches instead): a state folder inside
// the workspace or holding it (its files would be the workspace's, which the
// person's tools do read), a folder that is not a plain directory of this
// user's (a link, another owner's), or --no-session-persistence.
import { lstatSync, mkdirSync, readdirSync, rmSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { isWithin, realpathLoose } from "../perms/workspace.ts";
import type { Grants, HostRules, PathRules, RunRules } from "../perms/policy.ts";

/** The folder of bunker's state folder that holds the kept homes, one per workspace. */
export const KEPT_HOMES = "sandbox-homes";

/**
 * The caches kept, as paths in the home: downloads a package manager looks up by name and version, not programs a
 * later command runs by finding them there. Not the whole of ~/.cache (corepack's yarn and pnpm, pre-commit's hook
 * environments and playwright's browsers live there: a command could plant one for a later command, perhaps of a
 * session with wider grants, to run; the reviewer), nor npm's npx folder (~/.npm/_npx: packages npx runs).
 */
export const KEPT_CACHES = [
  ".cache/pip", ".cache/uv", ".cache/go-build", ".cache/yarn", ".npm/_cacache", ".m2/repository", ".gradle/caches",
  ".cargo/registry", ".cargo/git", "go/pkg/mod", ".yarn/berry/cache", ".local/share/pnpm/store",
];

/**
 * What a command's sandbox may do beyond the workspace, as one string: the session's grants (read, write, run,
 * network, their denials) and the variables it passes on. Kept caches are per workspace and per this key.
 */
export function grantsKey(grants: Grants, allowEnv: readonly string[]): string {
  const { allow, deny } = grants;
  const sorted = (xs: readonly string[]) => [...new Set(xs)].sort();
  const paths = (r: PathRules) => [r.workspace, sorted(r.paths), sorted(r.globs)];
  const hosts = (r: HostRules) => [r.all, sorted(r.hosts)];
  const runs = (r: RunRules) => [r.all, sorted(r.programs), sorted(r.patterns)];
  return JSON.stringify([
    [paths(allow.read), paths(allow.write), runs(allow.run), hosts(allow.net)],
    [paths(deny.read), paths(deny.write), runs(deny.run), hosts(deny.net)],
    sorted(allowEnv),
  ]);
}

/**
 * The kept caches' folder of workspace `root` (a real path) for commands with the grants `key` (grantsKey), made
 * (owner-only, with every cache's folder) if it is not there yet; null where none may be kept.
 */
export function keptHome(stateDir: string, root: string, key: string): string | null {
  const state = realpathLoose(stateDir).real;
  if (isWithin(root, state) || isWithin(state, root)) return null;
  const dir = join(state, KEPT_HOMES, new Bun.CryptoHasher("sha256").update(root).update("\0").update(key).digest("hex").slice(0, 16));
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    // Only a directory of ours, reached by no link: anything else is not bunker's to hand to a command.
    if (!st.isDirectory() || st.uid !== process.getuid?.() || realpathLoose(dir).real !== dir) return null;
    for (const cache of KEPT_CACHES) mkdirSync(join(dir, cache), { recursive: true, mode: 0o700 });
    if (!used.has(dir)) {
      // Its last use, once a run: kept homes no session has used for KEPT_DAYS go (every new set of grants makes one).
      used.add(dir);
      const now = new Date();
      utimesSync(dir, now, now);
      const homes = join(state, KEPT_HOMES);
      if (!swept.has(homes)) {
        swept.add(homes);
        removeUnused(homes, now.getTime());
      }
    }
  } catch {
    return null; // a read-only state folder: the in-memory home, as before
  }
  return dir;
}

/** Days a kept home stays after its last use. */
export const KEPT_DAYS = 30;
const used = new Set<string>();
const swept = new Set<string>();

/** The kept homes last used more than KEPT_DAYS ago. */
function removeUnused(homes: string, now: number): void {
  for (const name of readdirSync(homes)) {
    const dir = join(homes, name);
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (st?.isDirectory() && !used.has(dir) && now - st.mtimeMs > KEPT_DAYS * 86_400_000) rmSync(dir, { recursive: true, force: true });
  }
}
