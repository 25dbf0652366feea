// A folder bunker made for commands, removed with everything in it. A command
// owns what it makes there and can leave a folder its owner cannot read
// (`chmod 000 /tmp/x`): rm's recursive removal then fails, the folder stayed
// on disk, and the error escaped /clear and bunker's exit (reviewer's R13-11).
// Each folder below is opened up (read, write, search for its owner) before it
// is read, never through a link, and a removal that still fails says so.
import { chmodSync, lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Removes `path` and all it holds; false when some of it could not be removed (never throws). */
export function removeTree(path: string): boolean {
  try {
    rmSync(path, { recursive: true, force: true });
    return true;
  } catch {
    // A folder in it is closed to its owner: opened below.
  }
  openUp(path, 0);
  try {
    rmSync(path, { recursive: true, force: true });
    return true;
  } catch {
    return false;
  }
}

/** Gives the owner read, write and search on `path` and every folder below it (a link is not followed). */
export function openToOwner(path: string): void {
  openUp(path, 0);
}

function openUp(path: string, depth: number): void {
  let isDir = false;
  try {
    isDir = lstatSync(path).isDirectory();
  } catch {
    return;
  }
  if (!isDir || depth > 256) return;
  try {
    chmodSync(path, 0o700);
  } catch {
    // Not ours: its removal fails below and is said.
  }
  let names: string[] = [];
  try {
    names = readdirSync(path);
  } catch {
    return;
  }
  for (const name of names) openUp(join(path, name), depth + 1);
}
