// What a sandboxed command may touch, whatever the mechanism (bubblewrap on
// Linux, Seatbelt on macOS): read everything, write only the workspace (and
// paths the person granted), no network unless granted.
import { join } from "node:path";

export interface SandboxSpec {
  /** The workspace root (absolute, realpath'd): read-write. */
  root: string;
  /** Network access (--allow-net). */
  allowNet: boolean;
  /** Whether the workspace's .git may be written (the person granted writes there). */
  gitWritable: boolean;
  /** Further absolute paths the person granted for writing (--allow-write=PATHS outside the workspace). */
  writable: string[];
}

/**
 * Paths inside the workspace that stay read-only: .git (unless granted), and
 * bunker's own settings, always: a command must not grant itself permissions.
 */
export function readOnlyInside(spec: SandboxSpec): string[] {
  const paths = [join(spec.root, ".bunker")];
  if (!spec.gitWritable) paths.unshift(join(spec.root, ".git"));
  return paths;
}
