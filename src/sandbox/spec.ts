// What a sandboxed command may touch, whatever the mechanism (bubblewrap on
// Linux, Seatbelt on macOS): read everything except the usual credential
// stores, write only the workspace (and paths the person granted), no
// network unless granted.
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { NetProxySpec } from "../net/command-net.ts";
import { gitDirsInside, isWithin } from "../perms/workspace.ts";

export interface SandboxSpec {
  /** The workspace root (absolute, realpath'd): read-write. */
  root: string;
  /** Network access (--allow-net). */
  allowNet: boolean;
  /** Without allowNet: the only way out, bunker's filtering proxy (src/net/command-net.ts). */
  netProxy?: NetProxySpec;
  /** Whether the workspace's .git may be written (the person granted writes there). */
  gitWritable: boolean;
  /** Further absolute paths the person granted for writing (--allow-write=PATHS outside the workspace). */
  writable: string[];
  /** Absolute paths made invisible (empty) inside the sandbox: credential stores. */
  hidden?: string[];
  /** Further paths inside the workspace kept read-only (--deny-write). */
  readOnly?: string[];
  /**
   * The whole workspace read-only, and no granted paths writable: for a line
   * that bunker ran unasked because it only reads (ls, cat, git status…).
   */
  workspaceReadOnly?: boolean;
  /** Writable even when the workspace is read-only: an MCP server's own state directory (and what the person's settings let it write). */
  privateDirs?: string[];
}

/**
 * Paths inside the workspace that stay read-only: .git (unless granted), and
 * bunker's own settings, always: a command must not grant itself permissions.
 */
export function readOnlyInside(spec: SandboxSpec): string[] {
  const paths = [join(spec.root, ".bunker")];
  // A .git file's git directory inside the workspace (`gitdir: ./.bare`) is .git all the same.
  if (!spec.gitWritable) paths.unshift(join(spec.root, ".git"), ...gitDirsInside(spec.root));
  for (const p of spec.readOnly ?? []) if (isWithin(spec.root, p) && p !== spec.root && !paths.includes(p)) paths.push(p);
  return paths;
}

/**
 * Where credentials (and sockets that control the machine) usually live
 * under a home directory: keys, cloud and registry logins, tokens, shell
 * histories (which hold pasted secrets), browser profiles, keyrings.
 */
const SECRET_HOME_ENTRIES = [
  ".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".password-store", ".netrc", ".git-credentials", ".pgpass",
  ".config/gh", ".config/hub", ".config/glab-cli", ".docker", ".kube", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc",
  ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".terraform.d", ".vault-token", ".config/op",
  ".config/rclone", ".m2/settings.xml", ".gradle/gradle.properties", ".composer/auth.json", ".local/share/keyrings",
  ".mozilla", ".config/google-chrome", ".config/chromium", ".bash_history", ".zsh_history", ".python_history",
  ".psql_history", ".mysql_history", ".node_repl_history", ".lesshst", ".local/share/fish/fish_history",
];

/** Control sockets outside /run (which the sandbox replaces): a reachable one is a way out. */
const SOCKET_DIRS = ["/var/snap/lxd/common/lxd", "/var/lib/lxd/unix.socket", "/var/lib/incus/unix.socket"];

/** The credential stores and control sockets to hide, except any that lie inside the workspace. */
export function secretPaths(home: string, root: string): string[] {
  return [...SECRET_HOME_ENTRIES.map((e) => join(home, e)), ...SOCKET_DIRS].filter((p) => !isWithin(root, p) && !isWithin(p, root));
}

/**
 * When .git is a file (a worktree or submodule: `gitdir: …`), the repository
 * lives outside the workspace: the directories a granted .git write needs.
 */
export function linkedGitDirs(root: string, read: (path: string) => string | null = readText): string[] {
  const pointer = read(join(root, ".git"));
  const m = pointer ? /^gitdir:\s*(.+?)\s*$/m.exec(pointer) : null;
  if (!m) return [];
  const gitDir = resolve(root, m[1]!);
  const common = read(join(gitDir, "commondir"))?.trim();
  return common ? [gitDir, resolve(gitDir, common)] : [gitDir];
}

function readText(path: string): string | null {
  try {
    return statSync(path).isFile() ? readFileSync(path, "utf8") : null;
  } catch {
    return null;
  }
}
