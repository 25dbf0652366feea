// Every write bunker makes goes through here: a temp file in the same
// directory, flushed to disk, then renamed over the target. A process killed
// at any moment leaves the old content or the new, never a mix or nothing.
import { mkdirSync, renameSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { safeUnlink, sideName, syncDir, writeTempFile } from "./durable.ts";

export interface AtomicWriteOptions {
  /** File mode for the result; defaults to the existing file's mode, else 0o644. */
  mode?: number;
  /** Create missing parent directories. */
  mkdirs?: boolean;
}

export function writeFileAtomic(path: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  if (opts.mkdirs) mkdirSync(dir, { recursive: true });
  let mode = opts.mode;
  // A new file gets 0o644 less the umask; a kept or asked-for mode is set exactly.
  let exact = mode !== undefined;
  let owner: { uid: number; gid: number } | undefined;
  try {
    const st = statSync(path);
    owner = { uid: st.uid, gid: st.gid };
    if (mode === undefined) {
      mode = st.mode & 0o7777;
      exact = true;
    }
  } catch {
    mode ??= 0o644;
  }
  const tmp = sideName(path, "tmp", 60);
  writeTempFile(tmp, data, mode!, exact, owner);
  try {
    renameSync(tmp, path);
  } catch (err) {
    safeUnlink(tmp);
    throw err;
  }
  syncDir(dir);
}
