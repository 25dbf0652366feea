// Whether bunker may change a file, asked before the person is shown a diff.
// A read-only file is a statement ("do not change me"), so it is refused,
// not silently replaced by the rename; and every write goes through a temp
// file beside the target, so its directory must be writable too.
import { accessSync, constants, statSync } from "node:fs";
import { dirname } from "node:path";
import { fsProblem } from "./errno-words.ts";

/** Why `real` (shown as `display`) cannot be written or created, or null when it can. */
export function writeProblem(real: string, display: string): string | null {
  let mode: number | undefined;
  try {
    const st = statSync(real);
    mode = st.mode & 0o7777;
  } catch {
    // Does not exist yet: only the directory matters.
  }
  // A read-only mount is not a read-only file: say which it is, with its own fix.
  const target = mode !== undefined ? real : nearestExistingDir(dirname(real));
  if (target !== null && accessError(target, constants.W_OK) === "EROFS") return fsProblem({ code: "EROFS" }, mode !== undefined ? display : target);
  // No write bit at all is read-only even for root, who could write it anyway.
  if (mode !== undefined && ((mode & 0o222) === 0 || accessError(real, constants.W_OK) !== null)) {
    return `${display} is read-only (mode ${octal(mode)}); bunker does not change read-only files. If it should change, make it writable first (chmod u+w ${display}).`;
  }
  const dir = nearestExistingDir(dirname(real));
  if (dir === null) return null;
  // The same for a directory: no write bit at all is refused for root too (a 0444 file is).
  const dirMode = statSync(dir).mode & 0o7777;
  if ((dirMode & 0o222) === 0) {
    return `The directory ${dir} is read-only (mode ${octal(dirMode)}); bunker does not write into read-only directories. If it should change, make it writable first (chmod u+w ${dir}).`;
  }
  if (accessError(dir, constants.W_OK | constants.X_OK) !== null) {
    return `The directory ${dir} is not writable, and bunker writes every file through a temporary file beside it (so a crash never leaves half a file). Make the directory writable first.`;
  }
  return null;
}

const octal = (mode: number) => mode.toString(8).padStart(4, "0");

/** The errno code access(2) gives, or null when allowed. */
function accessError(path: string, mode: number): string | null {
  try {
    accessSync(path, mode);
    return null;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? "EACCES";
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
