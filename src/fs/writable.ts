// Whether bunker may change a file, asked before the person is shown a diff.
// A read-only file is a statement ("do not change me"), so it is refused,
// not silently replaced by the rename; and every write goes through a temp
// file beside the target, so its directory must be writable too.
import { accessSync, constants, statSync } from "node:fs";
import { dirname } from "node:path";

/** Why `real` (shown as `display`) cannot be written or created, or null when it can. */
export function writeProblem(real: string, display: string): string | null {
  let mode: number | undefined;
  try {
    const st = statSync(real);
    mode = st.mode & 0o7777;
  } catch {
    // Does not exist yet: only the directory matters.
  }
  // No write bit at all is read-only even for root, who could write it anyway.
  if (mode !== undefined && ((mode & 0o222) === 0 || !canAccess(real, constants.W_OK))) {
    return `${display} is read-only (mode ${mode.toString(8).padStart(4, "0")}); bunker does not change read-only files. If it should change, make it writable first (chmod u+w ${display}).`;
  }
  const dir = nearestExistingDir(dirname(real));
  if (dir !== null && !canAccess(dir, constants.W_OK | constants.X_OK)) {
    return `The directory ${dir} is not writable, and bunker writes every file through a temporary file beside it (so a crash never leaves half a file). Make the directory writable first.`;
  }
  return null;
}

function canAccess(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

function nearestExistingDir(dir: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    try {
      if (statSync(d).isDirectory()) return d;
      return null; // a file where a directory should be: reported elsewhere
    } catch {
      if (dirname(d) === d) return null;
    }
  }
}
