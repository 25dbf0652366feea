// Where bunker keeps files its sandboxes must not be able to change: the copy
// of its own binary (self-binary.ts) and the mount checker's list
// (bubblewrap.ts). bunker's state folder is shown to no sandbox (a grant that
// holds it masks it); $TMPDIR, which a command granted /tmp could rewrite
// between two commands, only when bunker has no state folder.
import { removeTree } from "../fs/remove-tree.ts";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isRunning, processStart } from "../fs/process-id.ts";

let home: string | undefined;

/** Set once the state folder is known (app start), before any sandbox is built. */
export function keepPrivateIn(dir: string): void {
  home = dir;
}

/** $TMPDIR as node:os would give it (without loading node:os at start). */
export function tmpFolder(): string {
  return (process.env.TMPDIR || "/tmp").replace(/(.)\/+$/, "$1");
}

/** The folder private files go in: the state folder, else $TMPDIR. */
export function privateFolder(): string {
  return home ?? tmpFolder();
}

/**
 * A new folder of this process's own, `PREFIX-PID-START` in the private folder (or `at`), removed at exit. Folders of
 * the same prefix left by bunkers that are gone (killed before their exit could remove them) are removed first.
 */
export function processFolder(prefix: string, at?: string): string {
  let parent = at ?? privateFolder();
  try {
    mkdirSync(parent, { recursive: true, mode: 0o700 });
  } catch {
    // A state folder that cannot be made (a read-only or missing home: containers, CI) saves no session either, and
    // bunker says so at start; its private files go where they went before it had one (reviewer's R10-13).
    home = undefined;
    parent = privateFolder();
    mkdirSync(parent, { recursive: true, mode: 0o700 });
  }
  let names: string[] = [];
  try {
    names = readdirSync(parent);
  } catch {
    // Unreadable: nothing to sweep; the mkdir below says what is wrong.
  }
  const stale = new RegExp(`^${prefix}-(\\d+)-(\\d*)$`);
  for (const name of names) {
    const m = stale.exec(name);
    if (!m || isRunning(Number(m[1]), m[2] || null)) continue;
    try {
      rmSync(join(parent, name), { recursive: true, force: true });
    } catch {
      // Another user's, in a shared $TMPDIR (/tmp): not ours to remove, and no reason to fail this bunker's commands.
    }
  }
  const dir = join(parent, `${prefix}-${process.pid}-${processStart(process.pid)}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o700 });
  // Never a throw at exit: what a command left there closed to its owner is opened up first (reviewer's R13-11).
  process.on("exit", () => void removeTree(dir));
  return dir;
}
