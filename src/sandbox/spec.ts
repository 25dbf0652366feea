// What a sandboxed command sees, whatever the mechanism (bubblewrap on Linux,
// Seatbelt on macOS): an allow-list, as Deno's --allow-read is, enforced by
// the OS. The workspace (read-write, its .git and .bunker read-only); the
// system directories programs need (/etc without its secret files); the
// toolchains on PATH and the version managers' trees, read-only; git's own
// config (not its credential store); what the person granted; a private empty
// home and /tmp. Nothing else of the machine exists inside: other homes, the
// rest of $HOME, /root, /srv, /mnt, /media. Credential stores need no list
// there; the list below only hides those a grant or toolchain tree would
// otherwise show.
import { credentialFreeCopies } from "./git-config-copy.ts";
import { gitDirsOfFolder, repositoryConfigs } from "./repo-configs.ts";
import { lstatSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import type { NetProxySpec } from "../net/command-net.ts";
import { globBase } from "./denied-files.ts";
import { gitDirsInside, isWithin, realpathLoose } from "../perms/workspace.ts";
import type { WallState } from "./git-wall.ts";
import type { GrantedGit } from "./git-grant.ts";
import { homeDotMasks } from "./home-dots.ts";
import { xdgConfigHome } from "../fs/home.ts";
import { KEPT_CACHES } from "./kept-home.ts";
import { commondirTarget, gitfileTarget, readSmallText } from "../perms/gitfile.ts";
import { gitConfigFiles } from "../perms/startup-files.ts";
import type { ProcessLimits } from "./process-limits.ts";

export interface SandboxSpec {
  /** The workspace root (absolute, realpath'd): read-write. */
  root: string;
  /** Where the process starts, when not the workspace (a user's MCP server: its own state directory). */
  cwd?: string;
  /** Network access (--allow-net). */
  allowNet: boolean;
  /** Without allowNet: the only way out, bunker's filtering proxy (src/net/command-net.ts). */
  netProxy?: NetProxySpec;
  /** Whether the workspace's .git may be written (the person granted writes there). */
  gitWritable: boolean;
  /** Under that grant: the git directories (each its own writable mount) and what git obeys in them, kept read-only (git-grant.ts). */
  grantedGit?: GrantedGit;
  /** Further absolute paths the person granted for writing (--allow-write=PATHS outside the workspace). */
  writable: string[];
  /**
   * The granted write paths that are folders: each guarded as the workspace
   * is (every .git in it read-only, found in `readOnly`; a missing top .git a
   * read-only stand-in; walked after the command).
   */
  grantedRoots?: string[];
  /** Absolute paths outside the workspace granted for reading (--allow-read=PATHS, read: rules): shown read-only. */
  readable?: string[];
  /** System directories shown read-only (default: SYSTEM_DIRS for this platform). */
  system?: string[];
  /** Toolchain directories shown read-only: PATH entries, version managers' trees (see toolchainDirs). */
  toolchains?: string[];
  /** git's own config files (never its credential store), shown read-only. */
  gitConfig?: string[];
  /** A git config file (or cargo's config.toml) that holds a credential → a copy without it, shown in its place (git-config-copy.ts). */
  gitConfigCopies?: Record<string, string>;
  /** The person's home directory: an empty private one in its place. */
  home?: string;
  /** The workspace's kept caches (kept-home.ts), shown in the empty `home` to a command that may write. */
  keptHome?: string;
  /** Absolute paths made invisible (empty) wherever a mount would show them: credential stores, denied reads. */
  hidden?: string[];
  /** Further paths inside the workspace and the granted folders kept read-only (--deny-write, the git wall). */
  readOnly?: string[];
  /**
   * The paths of `readOnly` the git wall found (git-wall.ts): each must have its read-only mount. One gone by the time
   * the sandbox is built was moved meanwhile (red team 6's F12j): the command is not run (mount-check.ts).
   */
  wallPaths?: string[];
  /**
   * The whole workspace read-only, and no granted paths writable: for a line
   * that bunker ran unasked because it only reads (ls, cat, git status…).
   */
  workspaceReadOnly?: boolean;
  /**
   * Why the workspace is read-only whole for a command that may write: a dot-entry of the person's home leads to it
   * or to a folder holding it (~/.ipython: the program reading that folder runs what is written there), as the person names that entry.
   */
  workspaceLinkedAs?: string;
  /** Read-only whole because of a bare --deny-write (the person's "never"), not because the line only reads. */
  writesDenied?: boolean;
  /** With writesDenied: the deny-write rule that covers the workspace whole (a denied folder holding it), when not a bare --deny-write. */
  writesDeniedBy?: string;
  /** The repositories found in the workspace before the command (every one is in readOnly): checked again after it. */
  repositories?: WallState;
  /** Writable even when the workspace is read-only: an MCP server's own state directory (and what the person's settings let it write). */
  privateDirs?: string[];
  /**
   * The program is the sandbox's pid 1 (bubblewrap's --as-pid-1): no reaper of bubblewrap's, which no filter of the
   * program's covers and which a process of the sandbox could trace, runs beside it (no-unix-sockets.ts).
   */
  asPid1?: boolean;
  /** The memory the private in-memory folders' sizes and the memory limit are worked out from (tmpfs-sizes.ts, process-limits.ts); default: this machine's. */
  memoryBytes?: number;
  /** How many processes and how much memory the command may take (default: process-limits.ts's for this machine). */
  limits?: ProcessLimits;
  /**
   * Folders inside the workspace each bound onto itself, writable as before: a mount point cannot be renamed or
   * removed, so a hidden path below them (bunker's state folder, state-dir.ts) stays where bunker looks for it.
   */
  pinned?: string[];
  /**
   * The session's own folder for /tmp and /var/tmp (its `tmp` and `var-tmp`), shared by its commands (new user 11's
   * N11-22): bunker's, never the machine's /tmp, removed when bunker exits (session-tmp.ts). Unset: each command an
   * empty in-memory one. `readOnly`: a line run unasked because it only reads sees it and writes nothing there.
   */
  sessionTmp?: { dir: string; readOnly: boolean };
  /** The files deny-write rules hold (read-only, their folders pinned): looked at again after the command (denied-writes.ts). */
  deniedWriteFiles?: string[];
}

/** What one path in the sandbox is. Listed parents first: a later mount sits on top of an earlier one. */
export type Mount =
  /** The host's path, read-only or read-write. */
  | { kind: "ro" | "rw"; path: string }
  /** Another host file shown read-only at `path` (a git config without its credentials). macOS cannot: the file is not shown there. */
  | { kind: "copy"; path: string; source: string }
  /** A symbolic link as the host has it (`/bin -> usr/bin`). */
  | { kind: "link"; path: string; target: string }
  /** An empty directory: writable (private /tmp, home) or a read-only stand-in (a missing .bunker). */
  | { kind: "empty"; path: string; writable: boolean }
  /** bunker's own folder `source` shown at `path` (a kept cache: kept-home.ts; the session's /tmp); nothing of the host's at `path`. */
  | { kind: "kept"; path: string; source: string; writable: boolean }
  /**
   * Hidden: an empty read-only directory, or an empty file. `keeps`: the mounts inside it that are shown all the
   * same (a grant, an MCP server's own folder inside bunker's state folder): the rest of it stays hidden.
   */
  | { kind: "mask"; path: string; dir: boolean; keeps?: string[] };

/** Where programs and their libraries live: read-only in every sandbox. /etc loses its secrets (etcSecrets). */
export const SYSTEM_DIRS: Partial<Record<NodeJS.Platform, string[]>> = {
  linux: ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store"],
  darwin: [
    "/usr", "/bin", "/sbin", "/System", "/Library", "/private/etc", "/etc", "/private/var/db/timezone", "/var",
    "/opt/homebrew", "/opt/local", "/nix/store", "/Applications/Xcode.app",
  ],
};

/** Private directories (Linux; macOS gets the session's TMPDIR instead): empty, or the session's own. */
const PRIVATE_DIRS = ["/tmp", "/var/tmp", "/run"];
/** Which of them are the session's, shared by its commands, and the folder of `sessionTmp.dir` each is. */
export const SESSION_TMP: Record<string, string> = { "/tmp": "tmp", "/var/tmp": "var-tmp" };

/**
 * Paths inside the workspace that stay read-only: .git (unless granted), and
 * bunker's own settings, always: a command must not grant itself permissions.
 */
export function readOnlyInside(spec: SandboxSpec): string[] {
  const paths = [join(spec.root, ".bunker")];
  // A .git file's git directory inside the workspace (`gitdir: ./.bare`) is .git all the same.
  if (!spec.gitWritable) paths.unshift(join(spec.root, ".git"), ...gitDirsInside(spec.root));
  const roots = [spec.root, ...(spec.grantedRoots ?? []), ...(spec.grantedGit?.gitDirs ?? [])];
  for (const r of spec.grantedRoots ?? []) if (!paths.includes(join(r, ".git"))) paths.push(join(r, ".git"));
  const kept = [...(spec.readOnly ?? []), ...(spec.grantedGit?.readOnly ?? []), ...(spec.grantedGit?.standIns ?? [])];
  for (const p of kept) if (roots.some((r) => isWithin(r, p) && p !== r) && !paths.includes(p)) paths.push(p);
  return paths;
}

/**
 * Where bubblewrap mounts an empty read-only stand-in when nothing is there:
 * the workspace's .bunker and .git, each granted root's .git. A command can
 * then neither create settings that grant it more nor a repository whose
 * hooks the person's next git would run (`git init`).
 */
export function standInPaths(spec: SandboxSpec): string[] {
  return [
    join(spec.root, ".bunker"),
    ...(spec.gitWritable ? [] : [join(spec.root, ".git")]),
    ...(spec.grantedRoots ?? []).map((r) => join(r, ".git")),
    ...(spec.grantedGit?.standIns ?? []),
  ];
}

/** What the host has at a path (without following a link at the path itself). */
export interface HostFs {
  kind(path: string): "dir" | "file" | "link" | null;
  readlink(path: string): string;
  /** A folder's names (a granted home's dot-entries are hidden: home-dots.ts); default: the real disk's. */
  list?(path: string): string[];
}

export const realHostFs: HostFs = {
  kind(path) {
    try {
      const st = lstatSync(path);
      return st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : "file";
    } catch {
      return null;
    }
  },
  readlink: (path) => readlinkSync(path),
  list(path) {
    try {
      return readdirSync(path);
    } catch {
      return [];
    }
  },
};

/** A link's target exists (it is followed). */
function leadsSomewhere(link: string): boolean {
  try {
    statSync(link);
    return true;
  } catch {
    return false;
  }
}

/** `path` split into components, for ordering mounts parents first. */
function depth(path: string): number {
  return path.split(sep).filter(Boolean).length;
}

/**
 * The mounts that make up what `spec` shows, parents before children (masks
 * last at their depth), so nothing is mounted over something deeper.
 */
export function sandboxMounts(spec: SandboxSpec, platform: NodeJS.Platform = process.platform, fs: HostFs = realHostFs): Mount[] {
  const out: Mount[] = [];
  const exists = (p: string) => fs.kind(p) !== null;
  // A directory or file the host has: a link is kept as a link (its target is mounted on its own, or not at all).
  const show = (path: string, kind: "ro" | "rw") => {
    const k = fs.kind(path);
    if (k === "link") out.push({ kind: "link", path, target: fs.readlink(path) });
    else if (k) out.push({ kind, path });
  };
  for (const dir of spec.system ?? SYSTEM_DIRS[platform] ?? []) show(dir, "ro");
  if (platform === "linux") {
    for (const dir of PRIVATE_DIRS) {
      const shared = spec.sessionTmp && SESSION_TMP[dir];
      out.push(shared ? { kind: "kept", path: dir, source: join(spec.sessionTmp!.dir, shared), writable: !spec.sessionTmp!.readOnly } : { kind: "empty", path: dir, writable: true });
    }
  }
  if (spec.home) out.push({ kind: "empty", path: spec.home, writable: true });
  const granted = [...(spec.readable ?? []), ...(spec.workspaceReadOnly ? [] : spec.writable), ...(spec.privateDirs ?? [])];
  for (const dir of [...(spec.toolchains ?? []), ...(spec.gitConfig ?? [])]) {
    // A dangling link (~/.gitconfig -> a dotfiles file not made yet) has nothing to mount: bubblewrap would refuse every command.
    if (isWithin(spec.root, dir) || !exists(dir) || (fs.kind(dir) === "link" && !leadsSomewhere(dir))) continue;
    const copy = spec.gitConfigCopies?.[dir];
    out.push(copy ? { kind: "copy", path: dir, source: copy } : { kind: "ro", path: dir });
  }
  for (const p of spec.readable ?? []) {
    // A read inside a granted write would make it read-only; the workspace is shown anyway.
    if (isWithin(spec.root, p) || (!spec.workspaceReadOnly && spec.writable.some((w) => isWithin(w, p)))) continue;
    if (exists(p)) out.push({ kind: "ro", path: p });
  }
  if (!spec.workspaceReadOnly) for (const p of spec.writable) if (exists(p)) out.push({ kind: "rw", path: p });
  for (const p of spec.privateDirs ?? []) if (exists(p)) out.push({ kind: "rw", path: p });
  // The git wall inside a private writable folder (an MCP server's `write` folder): its repositories and runs-later files, read-only.
  for (const p of privateReadOnly(spec)) if (exists(p)) out.push({ kind: "ro", path: p });
  // Unasked read-only commands: whatever trick we did not foresee, nothing can be written.
  out.push({ kind: spec.workspaceReadOnly ? "ro" : "rw", path: spec.root });
  if (!spec.workspaceReadOnly) {
    // A granted git directory is a mount of its own: a command cannot rename it away and make another in its place.
    for (const g of spec.grantedGit?.gitDirs ?? []) if (!out.some((m) => m.path === g)) out.push({ kind: "rw", path: g });
    const standIns = standInPaths(spec);
    for (const p of readOnlyInside(spec)) {
      if (exists(p)) out.push({ kind: "ro", path: p });
      // Missing .bunker or .git: an empty read-only stand-in (standInPaths).
      else if (standIns.includes(p)) out.push({ kind: "empty", path: p, writable: false });
    }
  } else {
    // A read-only workspace: only a private writable folder (an MCP server's `write` folder) can have a folder renamed.
    const inPrivate = (p: string) => (spec.privateDirs ?? []).some((d) => isWithin(d, p) && d !== p) && !privateReadOnly(spec).some((r) => isWithin(r, p));
    for (const p of spec.pinned ?? []) if (exists(p) && inPrivate(p) && !out.some((m) => m.path === p)) out.push({ kind: "rw", path: p });
  }
  // A granted home (or a folder holding it) shows its non-dot entries; a dot-entry only where a grant or another mount names it.
  if (spec.home) {
    // A grant of a folder holding the home (/home, /) shows the home as it shows the rest, over the private one.
    const holders = out.filter((m) => (m.kind === "ro" || m.kind === "rw") && m.path !== spec.home && isWithin(m.path, spec.home!));
    const holder = holders.sort((a, b) => depth(b.path) - depth(a.path))[0];
    if (holder && !out.some((m) => m.path === spec.home && (m.kind === "ro" || m.kind === "rw"))) out.push({ kind: holder.kind as "ro" | "rw", path: spec.home });
    const list = fs.list ?? realHostFs.list!;
    const masks = homeDotMasks(spec.home, granted, out.map((m) => m.path), { kind: (p) => fs.kind(p), list });
    for (const m of masks) out.push({ kind: "mask", ...m });
    // A home granted for writing (red team 9's F07): its own level read-only, each non-dot entry writable on top, so no
    // new dot-entry can be made (a ~/.gdbinit, ~/.bash_completion, a folder in a shown ~/.config would run at the
    // person's next gdb, shell or login) and a hidden one cannot be renamed away; a folder the masks entered (~/.config
    // around git's config) is read-only the same way, its shown entries mounted on their own.
    if (granted.some((g) => isWithin(g, spec.home!)) && out.some((m) => m.path === spec.home && m.kind === "rw")) {
      out.push({ kind: "ro", path: spec.home });
      // A stand-in for a missing .git or .bunker there has nothing to stand in for (and no mount point can be made).
      for (let i = out.length - 1; i >= 0; i--) {
        const m = out[i]!;
        if (m.kind === "empty" && !m.writable && dirname(m.path) === spec.home && !exists(m.path)) out.splice(i, 1);
      }
      for (const name of list(spec.home)) {
        const p = join(spec.home, name);
        const k = fs.kind(p);
        if (!name.startsWith(".") && (k === "dir" || k === "file") && !out.some((m) => m.path === p)) out.push({ kind: "rw", path: p });
      }
    }
  }
  // The folders between a writable root and bunker's state folder, each a mount of its own (state-dir.ts): not one
  // the home's masks hide (a hidden ~/.local is pinned by its mask, and a pin would show it whole, writable: F07).
  // Only where it is writable already: a pin inside a read-only mount (.git/hooks on the way to a denied
  // .git/hooks/NAME) would make that folder writable, and the read-only mount holds its folders in place anyway.
  if (!spec.workspaceReadOnly) {
    for (const p of spec.pinned ?? []) {
      if (exists(p) && !out.some((m) => m.path === p) && !out.some((m) => m.kind === "mask" && isWithin(m.path, p)) && innermost(out, p)?.kind === "rw") out.push({ kind: "rw", path: p });
    }
  }
  // The workspace's kept caches in the empty home (kept-home.ts), each where nothing else is mounted in or around it
  // (a granted home is the person's own, caches and all).
  if (keptHomeShown(spec, platform)) {
    for (const cache of KEPT_CACHES) {
      const path = join(spec.home!, cache);
      // Another mount between the home and the cache (a toolchain's ~/.cargo) or inside it; or the home itself shown
      // from the host (granted, or under a granted folder). The private /tmp around a home in /tmp is no such mount.
      const between = (m: Mount) => m.path !== spec.home && isWithin(spec.home!, m.path) && (isWithin(m.path, path) || isWithin(path, m.path));
      const hostHome = (m: Mount) => (m.kind === "ro" || m.kind === "rw") && isWithin(m.path, spec.home!);
      if (out.some((m) => between(m) || hostHome(m))) continue;
      out.push({ kind: "kept", path, source: join(spec.keptHome!, cache), writable: true });
    }
  }
  // A config that holds a credential inside what is shown (~/.cargo/config.toml in a toolchain tree, a repository's
  // .git/config in the workspace or a granted folder): its copy in its place, over a read-only mount of it too.
  for (const [file, copy] of Object.entries(spec.gitConfigCopies ?? {})) {
    const at = out.findIndex((m) => m.path === file);
    if (at !== -1 ? out[at]!.kind !== "ro" : !out.some((m) => (m.kind === "ro" || m.kind === "rw") && isWithin(m.path, file))) continue;
    if (at !== -1) out.splice(at, 1);
    out.push({ kind: "copy", path: file, source: copy });
  }
  // Hidden: wherever something above would show it, unless a grant names it. A grant inside it (or an MCP server's own
  // folder inside bunker's state folder) is shown on the mask; the rest of it stays hidden (before, such a grant
  // unmasked the whole folder: every session in the state folder of a workspace that held it).
  const shown = out.filter((m) => m.kind === "ro" || m.kind === "rw").map((m) => m.path);
  const mounted = [...out];
  for (const p of spec.hidden ?? []) {
    const k = fs.kind(p);
    if (!k || k === "link") continue; // a link shows only what its target's own mount shows
    if (!shown.some((s) => isWithin(s, p)) || granted.includes(p)) continue;
    // Already inside a hidden home dot-entry (bubblewrap could not make a mount point in it).
    if (out.some((m) => m.kind === "mask" && isWithin(m.path, p))) continue;
    const keeps = k === "dir" ? mounted.filter((m) => m.kind !== "mask" && m.path !== p && isWithin(p, m.path)).map((m) => m.path) : [];
    // A mask already inside it (a denied file, bunker's state folder) is hidden by this one, and could not have its
    // mount point made in this empty read-only folder (bwrap failed every command); one on a kept mount stays.
    if (k === "dir") {
      const covered = (m: Mount) => m.kind === "mask" && m.path !== p && isWithin(p, m.path) && !keeps.some((kept) => isWithin(kept, m.path));
      for (let i = out.length - 1; i >= 0; i--) if (covered(out[i]!)) out.splice(i, 1);
    }
    out.push({ kind: "mask", path: p, dir: k === "dir", ...(keeps.length > 0 ? { keeps } : {}) });
  }
  const rank = (m: Mount) => depth(m.path) * 2 + (m.kind === "mask" ? 1 : 0);
  return out.map((m, i) => ({ m, i })).sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i).map(({ m }) => m);
}

/** The deepest mount at or above `path` (the later one of two at one depth): what a command finds there. */
function innermost(mounts: readonly Mount[], path: string): Mount | undefined {
  let found: Mount | undefined;
  for (const m of mounts) if (isWithin(m.path, path) && (!found || depth(m.path) >= depth(found.path))) found = m;
  return found;
}

/** Whether `spec`'s home holds the workspace's kept caches (kept-home.ts): on Linux, for a command that may write. */
export function keptHomeShown(spec: SandboxSpec, platform: NodeJS.Platform = process.platform): boolean {
  return Boolean(spec.keptHome && spec.home && !spec.workspaceReadOnly && platform === "linux");
}

/** The paths kept read-only inside a private writable folder (an MCP server's `write` folder: git-wall.ts). */
export function privateReadOnly(spec: SandboxSpec): string[] {
  return (spec.readOnly ?? []).filter((p) => (spec.privateDirs ?? []).some((d) => isWithin(d, p) && d !== p));
}

/** What a command inside the sandbox finds at `path` (absolute): the innermost mount that covers it. */
export function shownAs(mounts: Mount[], path: string): "rw" | "ro" | "hidden" | "private" | "absent" {
  let found: Mount | undefined;
  for (const m of mounts) if (isWithin(m.path, path)) found = m;
  if (!found) return "absent";
  if (found.kind === "mask") return "hidden";
  if (found.kind === "empty" || found.kind === "kept") return found.writable ? "private" : "ro";
  if (found.kind === "link" || found.kind === "copy") return "ro";
  return found.kind;
}

// ---- what the host contributes --------------------------------------------------

/**
 * Where credentials (and sockets that control the machine) usually live
 * under a home directory or the config directory: hidden when a grant or a
 * toolchain tree would show them (the private home shows none of them).
 */
const SECRET_HOME_ENTRIES = [
  ".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".password-store", ".netrc", ".git-credentials", ".pgpass",
  ".config/gh", ".config/hub", ".config/glab-cli", ".config/git/credentials", ".docker", ".kube", ".npmrc", ".yarnrc",
  ".yarnrc.yml", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".terraform.d",
  ".vault-token", ".config/op", ".config/rclone", ".m2/settings.xml", ".gradle/gradle.properties",
  ".composer/auth.json", ".local/share/keyrings", ".mozilla", ".config/google-chrome", ".config/chromium",
  ".claude/.credentials.json", ".config/anthropic", ".bash_history", ".zsh_history", ".python_history",
  ".psql_history", ".mysql_history", ".node_repl_history", ".lesshst", ".local/share/fish/fish_history",
  // Package managers' and cloud tools' logins, some inside the trees shown as toolchains (~/.local/share/uv).
  ".local/share/uv/credentials", ".config/uv/credentials", ".config/pip/pip.conf", ".pip/pip.conf", ".config/pypoetry/auth.toml",
  ".bunfig.toml", ".config/.bunfig.toml", ".local/share/gem/credentials", ".m2/settings-security.xml", ".terraformrc",
  ".config/composer/auth.json", ".nuget/NuGet/NuGet.Config", ".config/NuGet/NuGet.Config", ".hex/hex.config",
  ".pub-cache/credentials.json", ".config/dart/pub-credentials.json", ".config/dart/pub-tokens.json", ".config/helm/registry",
  // Found by red team 5 (--allow-read=~ showed them): Hugging Face, Copilot, Stripe, configstore (firebase-tools and others), sbt.
  ".cache/huggingface/token", ".huggingface/token", ".config/github-copilot", ".config/stripe", ".config/configstore", ".sbt/.credentials",
  ".local/share/containers/auth.json", ".config/containers/auth.json", ".s3cfg", ".boto", ".config/hcloud", ".config/doctl",
];
/** The same stores, by the variables that move them. */
const SECRET_ENV_PATHS = [
  "GNUPGHOME", "DOCKER_CONFIG", "KUBECONFIG", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AZURE_CONFIG_DIR",
  "CLOUDSDK_CONFIG", "GOOGLE_APPLICATION_CREDENTIALS", "GH_CONFIG_DIR", "NPM_CONFIG_USERCONFIG", "NPM_CONFIG_GLOBALCONFIG", "PASSWORD_STORE_DIR",
  "VAULT_CONFIG_PATH", "HISTFILE", "NETRC", "CARGO_HOME/credentials.toml", "CARGO_HOME/credentials",
  "UV_CREDENTIALS_DIR", "PIP_CONFIG_FILE", "POETRY_CONFIG_DIR/auth.toml", "GRADLE_USER_HOME/gradle.properties",
  "TF_CLI_CONFIG_FILE", "COMPOSER_HOME/auth.json", "HEX_HOME/hex.config", "PUB_CACHE/credentials.json", "REGISTRY_AUTH_FILE",
  "XDG_DATA_HOME/uv/credentials", "XDG_DATA_HOME/gem/credentials",
];

/**
 * Where Node version managers keep each version's prefix: its `etc/npmrc` is the global npmrc `npm config set -g`
 * writes a registry token to (red team 5's F2), inside a tree shown as a toolchain. [variable, else under home, versions
 * folder, prefix inside a version].
 */
const NODE_VERSION_DIRS: [string | null, string, string, string][] = [
  ["NVM_DIR", ".nvm", "versions/node", ""], ["VOLTA_HOME", ".volta", "tools/image/node", ""],
  ["FNM_DIR", ".fnm", "node-versions", "installation"], [null, ".local/share/fnm", "node-versions", "installation"],
  ["ASDF_DATA_DIR", ".asdf", "installs/nodejs", ""], [null, ".local/share/mise", "installs/node", ""],
];

/** Each global npmrc: every Node version's `etc/npmrc` in the managers' trees, and that of each PATH entry's prefix (`~/.npm-global/bin`). */
function globalNpmrcs(home: string, env: Record<string, string | undefined>): string[] {
  const out: string[] = [];
  for (const [name, rel, versions, prefix] of NODE_VERSION_DIRS) {
    const v = name ? env[name] : undefined;
    const dir = join(v && isAbsolute(v) ? v : join(home, rel), versions);
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // not installed
    }
    for (const version of names) out.push(join(dir, version, prefix, "etc/npmrc"));
  }
  for (const entry of (env.PATH ?? "").split(":")) if (isAbsolute(entry) && entry.endsWith("/bin")) out.push(join(dirname(entry), "etc/npmrc"));
  return out;
}

/** Control sockets outside /run (which the sandbox replaces): a reachable one is a way out. */
const SOCKET_DIRS = ["/var/snap/lxd/common/lxd", "/var/lib/lxd/unix.socket", "/var/lib/incus/unix.socket"];

/** The credential stores and control sockets to hide, except any that lie inside the workspace. */
export function secretPaths(home: string, root: string, env: Record<string, string | undefined> = {}): string[] {
  const config = xdgConfigHome(env, home);
  const fromHome = SECRET_HOME_ENTRIES.map((e) => join(home, e));
  const fromConfig = SECRET_HOME_ENTRIES.filter((e) => e.startsWith(".config/")).map((e) => join(config, e.slice(8)));
  const fromEnv = SECRET_ENV_PATHS.flatMap((spec) => {
    const slash = spec.indexOf("/");
    const [name, sub] = slash === -1 ? [spec, ""] : [spec.slice(0, slash), spec.slice(slash + 1)];
    // KUBECONFIG may be a list.
    return (env[name!] ?? "").split(":").filter((v) => isAbsolute(v)).map((v) => (sub ? join(v, sub) : v));
  });
  return [...new Set([...fromHome, ...fromConfig, ...fromEnv, ...globalNpmrcs(home, env), ...SOCKET_DIRS])].filter((p) => !isWithin(root, p) && !isWithin(p, root));
}

/** Names in /etc that are secret whatever their mode says (some images make them world-readable). */
const ETC_SECRET_NAMES = [
  "shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "sudoers.d", "ssl/private", "security/opasswd", "krb5.keytab",
  "NetworkManager/system-connections", "wpa_supplicant", "ppp/chap-secrets", "ppp/pap-secrets", "openvpn", "wireguard",
  "master.passwd", "spwd.db",
];

const etcCache = new Map<string, string[]>();

/**
 * The secret files of /etc: the ones named above, SSH host keys, and every
 * entry the system itself keeps from other users (a file not world-readable,
 * a directory not world-searchable): the system's own word for "secret".
 * Walked once per process (a thousand entries, a few milliseconds).
 */
export function etcSecrets(etc = "/etc"): string[] {
  const hit = etcCache.get(etc);
  if (hit) return hit;
  const found = new Set<string>();
  for (const name of ETC_SECRET_NAMES) if (realHostFs.kind(join(etc, name)) !== null) found.add(join(etc, name));
  const walk = (dir: string, level: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(dir, name);
      if (found.has(p)) continue;
      let st;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) continue;
      if (/^ssh_host_.*key$/.test(name) || (st.mode & 0o004) === 0 || (st.isDirectory() && (st.mode & 0o001) === 0)) {
        found.add(p);
      } else if (st.isDirectory() && level < 8) {
        walk(p, level + 1);
      }
    }
  };
  walk(etc, 0);
  const list = [...found].sort();
  etcCache.set(etc, list);
  return list;
}

/** Version managers' trees, by the variable that moves them, else under the home directory. */
const TOOLCHAIN_TREES: [string | null, string][] = [
  ["BUN_INSTALL", ".bun"], ["NVM_DIR", ".nvm"], ["VOLTA_HOME", ".volta"], ["FNM_DIR", ".fnm"], [null, ".local/share/fnm"],
  ["CARGO_HOME", ".cargo"], ["RUSTUP_HOME", ".rustup"], ["PYENV_ROOT", ".pyenv"], [null, ".local/share/uv"],
  [null, ".local/share/pipx"], ["DENO_INSTALL", ".deno"], ["ASDF_DATA_DIR", ".asdf"], [null, ".local/share/mise"],
  ["SDKMAN_DIR", ".sdkman"], ["RBENV_ROOT", ".rbenv"], ["GOROOT", ".go"],
];
/** Where a tool prefix keeps what its bin links to: shown whole (a package needs its folder), unlike other folders. */
const PACKAGE_AREAS = ["lib", "lib64", "libexec", "share", "install", "pkgs", "packages", "node_modules", "versions", "tools", "venvs", "global"];
/** Most links of one PATH folder followed. */
const MAX_PATH_LINKS = 1000;

/**
 * What the links in a PATH folder of the home lead to: inside the folder's
 * own prefix (`~/.npm-global/bin/tsc -> ../lib/node_modules/…`), the
 * prefix's package area (`~/.npm-global/lib`); anywhere else, the file
 * itself. Never the prefix whole: `~/.dotfiles/bin` does not show
 * `~/.dotfiles/zsh/secrets.zsh`.
 */
function linkTargets(dir: string, home: string): string[] {
  const prefix = dirname(dir);
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir).slice(0, MAX_PATH_LINKS);
  } catch {
    return out;
  }
  for (const name of names) {
    const p = join(dir, name);
    if (realHostFs.kind(p) !== "link") continue;
    const target = realpathLoose(p).real;
    if (isWithin(dir, target)) continue;
    const area = prefix !== home && isWithin(prefix, target) ? target.slice(prefix.length + 1).split(sep)[0]! : null;
    out.push(area && PACKAGE_AREAS.includes(area) ? join(prefix, area) : target);
  }
  return out;
}

/**
 * The toolchain directories a command may run from: every PATH entry, and
 * the version managers' trees (where a PATH entry's `bin` links into), all
 * resolved physically. Never `/`, the home directory or anything above it or
 * the workspace, a folder inside the workspace, nor a credential store.
 */
export function toolchainDirs(env: Record<string, string | undefined>, home: string, root: string): string[] {
  const candidates: string[] = [];
  for (const entry of (env.PATH ?? "").split(":")) {
    if (!isAbsolute(entry)) continue; // "" and "." mean the current directory: the workspace
    const dir = realpathLoose(entry).real;
    candidates.push(dir);
    // In the home (`~/.npm-global/bin`, `~/.dotfiles/bin`): not the folder around it, which may hold anything,
    // but what its entries lead to (`../lib/node_modules/x/bin/x`: the prefix's lib).
    if (isWithin(home, dir) && dir !== home) candidates.push(...linkTargets(dir, home));
  }
  for (const [name, rel] of TOOLCHAIN_TREES) {
    const v = name ? env[name] : undefined;
    candidates.push(realpathLoose(v && isAbsolute(v) ? v : join(home, rel)).real);
  }
  // GOPATH trees (GOPATH/src holds projects, the workspace may be one of them): only the installed tools and modules.
  for (const gopath of (env.GOPATH || join(home, "go")).split(":").filter((v) => isAbsolute(v))) {
    candidates.push(join(realpathLoose(gopath).real, "bin"), join(realpathLoose(gopath).real, "pkg"));
  }
  const secrets = secretPaths(home, root, env);
  const out: string[] = [];
  for (const dir of candidates) {
    if (dir === sep || isWithin(dir, home) || isWithin(dir, root) || isWithin(root, dir)) continue;
    if (secrets.some((s) => isWithin(s, dir))) continue;
    if (!out.includes(dir) && !out.some((o) => isWithin(o, dir))) out.push(dir);
  }
  return out.filter((d) => !out.some((o) => o !== d && isWithin(o, d)));
}

/**
 * The repository the workspace is a folder of (a .git above the root), shown
 * read-only so git works in a workspace that is part of a larger repository.
 * Never one at or above the home directory: a dotfiles repository's history
 * holds what the home holds.
 */
export function enclosingGitDirs(root: string, home: string, fs: HostFs = realHostFs): string[] {
  for (let dir = dirname(root); !isWithin(dir, home); dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    const kind = fs.kind(dotGit);
    if (kind === "dir") return [dotGit];
    if (kind === "file") return linkedGitDirs(dir);
    if (dirname(dir) === dir) break;
  }
  return [];
}

/**
 * When .git is a file (a worktree or submodule: `gitdir: …`), the repository
 * lives outside the workspace: the directories git needs to work there.
 */
export function linkedGitDirs(root: string, read: (path: string) => string | null = readSmallText): string[] {
  const pointer = read(join(root, ".git"));
  const target = gitfileTarget(pointer);
  if (!target) return [];
  const gitDir = resolve(root, target);
  const common = commondirTarget(read(join(gitDir, "commondir")));
  return common ? [gitDir, resolve(gitDir, common)] : [gitDir];
}


/** What this machine contributes to every command's view: system, toolchains, git config, the home to replace, the secrets to hide. */
export function hostView(
  root: string,
  env: Record<string, string | undefined>,
  home: string,
  platform: NodeJS.Platform = process.platform,
): Pick<SandboxSpec, "system" | "toolchains" | "gitConfig" | "gitConfigCopies" | "home" | "hidden"> {
  const realHome = realpathLoose(home).real;
  const system = SYSTEM_DIRS[platform] ?? [];
  // HOME=/ (a service) or one inside a system directory: nothing to replace.
  const privateHome = realHome !== sep && !system.some((s) => isWithin(s, realHome)) && !isWithin(realHome, root);
  const inSystem = (p: string) => system.some((s) => realHostFs.kind(s) === "dir" && isWithin(s, p));
  const gitConfig = gitConfigFiles(env, realHome);
  // cargo's config, in a toolchain tree: a `[registry] token` there is shown as a copy without it.
  const cargoHome = env.CARGO_HOME && isAbsolute(env.CARGO_HOME) ? env.CARGO_HOME : join(realHome, ".cargo");
  const cargoConfigs = [join(realpathLoose(cargoHome).real, "config.toml")];
  return {
    system,
    toolchains: toolchainDirs(env, realHome, root).filter((d) => !inSystem(d)),
    gitConfig,
    // The workspace's repository's own config (and an enclosing one's) too: a token in a remote URL (repo-configs.ts).
    gitConfigCopies: credentialFreeCopies([...gitConfig, ...cargoConfigs, ...repositoryConfigs([...gitDirsOfFolder(root), ...enclosingGitDirs(root, realHome)])]),
    ...(privateHome ? { home: realHome } : {}),
    hidden: [...secretPaths(realHome, root, env), ...etcSecrets(platform === "darwin" ? "/private/etc" : "/etc")],
  };
}

// Beside globBase, where the read path's hard-link check finds it without loading this module.
export { grantedReadPaths } from "./denied-files.ts";
