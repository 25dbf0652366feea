// Unix sockets in what a command sees (red team 8's F11). A read-only mount
// does not stop connect(): a project's Postgres socket in the workspace
// (`COPY … TO PROGRAM` as the database's user), the person's tmux socket
// under `--allow-read=/tmp` (`tmux send-keys` into their shell), X11's,
// ssh-agent's. So every socket in the workspace and in every granted path is
// masked (/dev/null over it) unless a grant names that socket itself
// (`--allow-read=/run/postgresql/.s.PGSQL.5432`). Found by a walk of those
// trees at each command, each folder re-read only when it changed (a new
// socket changes its folder). The trees a command may write are looked
// through whole, or the command is not run (it could have made folders by the
// thousand to hide a socket it moved). Past the look's bounds in what it may
// only read (a grant of /), the sockets this machine's programs listen on
// (/proc/net/unix) are masked where the command would see them; one a
// container bound there is not.
// More sockets than it masks one by one (each is a mount), and the command
// is not run (the refusal says which grant to narrow). A socket a host program makes after the command
// started is not masked for that command (nothing is there to mount over at
// its start); the next command masks it.
import { accessSync, constants, lstatSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { SYSTEM_DIRS, sandboxMounts, shownAs, type Mount, type SandboxSpec } from "./spec.ts";
import { isWithin } from "../perms/workspace.ts";

export interface SocketLimits {
  /** Most folders looked at for one command in the trees it may only read (all together). */
  maxDirs: number;
  /** Longest that look may take. */
  budgetMs: number;
  /**
   * The same for the trees it may write (the workspace, write grants), looked through first and whole: there a
   * command can make folders by the thousand to push a socket it moved past any bound (red team 9's F02), so past
   * these the command is not run, as shared-inodes.ts does past its own.
   */
  maxWritableDirs: number;
  writableBudgetMs: number;
  /** Most sockets masked one by one (each is a mount: 200 cost bubblewrap 80 ms, 2 000 cost 4 s). */
  maxSockets: number;
}

export const SOCKET_LIMITS: SocketLimits = { maxDirs: 50_000, budgetMs: 1_000, maxWritableDirs: 200_000, writableBudgetMs: 5_000, maxSockets: 64 };

interface DirMemo {
  stamp: string;
  subdirs: string[];
  sockets: string[];
}

/** Folder → what it held when last read (re-read when its identity or change times move). */
const memo = new Map<string, DirMemo>();
/** A folder changed this recently is re-read whatever its time stamps say (they are coarse). */
const FRESH_MS = 2_000;

export interface SocketWalk {
  /** Every socket found (not those at `skip` paths themselves). */
  sockets: string[];
  /** Folders bunker cannot list but can enter (another user's, mode 0711): the command may still know a name in one. Hidden whole. */
  unreadable: string[];
  /** The root whose walk went past the bounds (what lies past them was not looked at), and which bound. */
  over?: { root: string; what: "folders" | "time" };
}

/**
 * The sockets under `roots` (folders; a root that is not a folder is left as it is). `skip`: paths not looked into
 * (mounted over by something else: their own root, a mask).
 */
export function findSockets(roots: readonly string[], skip: ReadonlySet<string>, limits: Pick<SocketLimits, "maxDirs" | "budgetMs"> = SOCKET_LIMITS): SocketWalk {
  const out: SocketWalk = { sockets: [], unreadable: [] };
  const started = performance.now();
  const now = Date.now();
  let dirs = 0;
  for (const root of roots) {
    const stack = [root];
    while (stack.length > 0) {
      if (++dirs > limits.maxDirs) return { ...out, over: { root, what: "folders" } };
      if ((dirs & 255) === 0 && performance.now() - started > limits.budgetMs) return { ...out, over: { root, what: "time" } };
      const dir = stack.pop()!;
      const m = readFolder(dir, now);
      // One that is a mount of its own (the git wall's read-only folder, checked in place by mount-check.ts) stays as it is.
      if (m === "unreadable" && dir !== root) out.unreadable.push(dir);
      if (!m || m === "unreadable") continue;
      for (const s of m.sockets) if (!skip.has(s)) out.sockets.push(s);
      for (const d of m.subdirs) if (!skip.has(d)) stack.push(d);
    }
  }
  return out;
}

/** A folder's subfolders and sockets: from the memo while its time stamps hold, else read. Null: not a folder, or unreadable. */
function readFolder(dir: string, now: number): DirMemo | "unreadable" | null {
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return null; // gone: nothing to connect to
  }
  if (!st.isDirectory()) return null;
  const stamp = `${st.dev}:${st.ino}:${st.ctimeMs}:${st.mtimeMs}`;
  const hit = memo.get(dir);
  if (hit && hit.stamp === stamp && st.ctimeMs <= now - FRESH_MS && st.mtimeMs <= now - FRESH_MS) return hit;
  const m: DirMemo = { stamp, subdirs: [], sockets: [] };
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    // Not listable but enterable (mode 0711): the command may know a name in it. Neither: nothing in it is reachable.
    try {
      accessSync(dir, constants.X_OK);
      return "unreadable";
    } catch {
      return null;
    }
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    let dirent: { isDirectory(): boolean; isSocket(): boolean } = e;
    // A file system that does not say a name's type: looked at.
    if (!e.isDirectory() && !e.isSocket() && !e.isFile() && !e.isSymbolicLink() && !e.isFIFO() && !e.isCharacterDevice() && !e.isBlockDevice()) {
      try {
        dirent = lstatSync(p);
      } catch {
        continue;
      }
    }
    if (dirent.isDirectory()) m.subdirs.push(p);
    else if (dirent.isSocket()) m.sockets.push(p);
  }
  if (memo.size > 400_000) memo.clear(); // a session that looked through many big trees: start again
  memo.set(dir, m);
  return m;
}

/**
 * `spec` with every Unix socket in what it shows hidden (masked: a connection is refused), except in the system and
 * toolchain directories and a socket a grant names itself; or why the command is not run (a tree too big to look
 * through before each command, or too many sockets to mask one by one).
 */
export function socketsMasked(spec: SandboxSpec, limits: SocketLimits = SOCKET_LIMITS): { spec: SandboxSpec; note?: string } | { refused: string } {
  const mounts = sandboxMounts(spec, "linux");
  const exempt = new Set([...(spec.system ?? SYSTEM_DIRS.linux!), ...(spec.toolchains ?? []), ...(spec.gitConfig ?? [])]);
  const rootsOf = (kind: "ro" | "rw") => mounts.filter((m) => m.kind === kind && !exempt.has(m.path)).map((m) => m.path);
  const roots = [...rootsOf("rw"), ...rootsOf("ro")];
  // /proc and /dev are the sandbox's own, /sys holds no socket files (a grant of / shows the rest).
  const skip = new Set([...mounts.map((m) => m.path), "/proc", "/dev", "/sys"]);
  const why = "bunker keeps commands from the Unix sockets in the workspace and in the folders granted to them (a read-only folder does not stop a connection to a socket: a database's, tmux's, an agent's), and looks for them before each command";
  const writable = findSockets(rootsOf("rw"), skip, { maxDirs: limits.maxWritableDirs, budgetMs: limits.writableBudgetMs });
  if (writable.over) {
    const bound = writable.over.what === "folders" ? `more than ${limits.maxWritableDirs.toLocaleString("en-US")} folders` : `more than ${limits.writableBudgetMs / 1000} s of looking`;
    return { refused: `${why}; ${writable.over.root}, which commands may write, holds ${bound}, and a socket past that could not be masked (a command can move one there). To run it, remove what a command made in bulk there, or work in a smaller folder.` };
  }
  const readable = findSockets(rootsOf("ro"), skip, limits);
  const walk: SocketWalk = { sockets: [...writable.sockets, ...readable.sockets], unreadable: [...writable.unreadable, ...readable.unreadable], over: readable.over };
  // Past the bounds in what commands may only read (a grant of / or a busy /tmp), where no command can move a socket:
  // the sockets programs of this machine's network namespace listen on, by the paths they bound (/proc/net/unix),
  // wherever the command would see them. One a container bound is missed.
  const found = walk.over ? [...new Set([...walk.sockets, ...liveSockets().filter((p) => roots.some((r) => isWithin(r, p)) && isShown(mounts, p) && isSocket(p))])] : walk.sockets;
  const named = new Set([...(spec.readable ?? []), ...spec.writable, ...(spec.privateDirs ?? [])]);
  const masks = fewerMasks([...found.filter((s) => !named.has(s)), ...walk.unreadable], skip, named, limits.maxSockets);
  if (masks.length > limits.maxSockets) {
    const where = [...new Set(masks.map((s) => dirname(s)))].slice(0, 5).join(", ");
    return { refused: `${why}; there are ${masks.length} sockets there (in ${where}…), more than the ${limits.maxSockets} it masks one by one (or folders it cannot list). To run it, grant narrower folders, or remove stale sockets.` };
  }
  const folders = masks.filter((m) => !found.includes(m) && !walk.unreadable.includes(m));
  return {
    spec: masks.length === 0 ? spec : { ...spec, hidden: [...(spec.hidden ?? []), ...masks] },
    ...(folders.length > 0 ? { note: `${folders.length === 1 ? "the folder" : "the folders"} ${folders.join(", ")}, full of Unix sockets, ${folders.length === 1 ? "is" : "are"} hidden from this command (bunker masks sockets one by one up to ${limits.maxSockets}); remove the stale sockets there to see ${folders.length === 1 ? "it" : "them"} again` } : {}),
  };
}

/**
 * `paths` to mask, at most `max` where it can: folders holding many masked whole instead of their sockets one by one
 * (a command that left hundreds of socket files in .cache/s must not stop every later command: red team 9's F08). Any
 * folder above them counts, not only their own (one socket in each of .cache/s1 … .cache/s65 is the same attack). The
 * narrowest folder that is enough alone, else the one holding the most; never a mount's own folder (the workspace, a
 * grant) or one a grant names; a mount inside one hidden stays shown on the mask (spec.ts).
 */
function fewerMasks(paths: string[], mountPoints: ReadonlySet<string>, named: ReadonlySet<string>, max: number): string[] {
  let out = paths;
  while (out.length > max) {
    const held = new Map<string, number>();
    for (const p of out) {
      for (let d = dirname(p); d !== dirname(d) && !mountPoints.has(d) && !named.has(d); d = dirname(d)) held.set(d, (held.get(d) ?? 0) + 1);
    }
    const folders = [...held].filter(([, n]) => n >= 2);
    if (folders.length === 0) break;
    const depth = (d: string) => d.split("/").length;
    const enough = folders.filter(([, n]) => out.length - n + 1 <= max).sort((a, b) => depth(b[0]) - depth(a[0]) || a[1] - b[1]);
    const [dir] = enough[0] ?? folders.sort((a, b) => b[1] - a[1] || depth(b[0]) - depth(a[0]))[0]!;
    out = [...out.filter((p) => !isWithin(dir, p)), dir];
  }
  return out;
}

/** The paths of the sockets listening in this machine's network namespace (absolute ones: a relative bind says not where). */
export function liveSockets(table = "/proc/net/unix"): string[] {
  let text = "";
  try {
    text = readFileSync(table, "utf8");
  } catch {
    return [];
  }
  const out = new Set<string>();
  for (const line of text.split("\n").slice(1)) {
    const path = line.trim().split(/\s+/).slice(7).join(" ");
    if (path.startsWith("/")) out.add(path);
  }
  return [...out];
}

/** Whether a command finds `path` through a mount that shows the host's (not hidden, not a private folder). */
function isShown(mounts: Mount[], path: string): boolean {
  const as = shownAs(mounts, path);
  return as === "ro" || as === "rw";
}

/** Whether `path` is a Unix socket on this machine. */
export function isSocket(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

/**
 * The socket mask bubblewrap could not mount, when the socket went away between the look and bwrap's start (its
 * folder is read-only in the sandbox, so bwrap cannot make the mount point: "bwrap: Can't create file at …: Read-only
 * file system"), or null. Asked only once bwrap itself said it started nothing (bubblewrap.ts setupFailed: the output
 * is the command's to write, a forged line included); then it is run again after a fresh look (run-bash.ts).
 * `before`: the spec socketsMasked was given; `masked`: what it made of it.
 */
export function vanishedSocketMask(output: string, exitCode: number | null, before: SandboxSpec, masked: SandboxSpec): string | null {
  if (exitCode === 0 || !output.startsWith("bwrap: ")) return null;
  const line = output.slice(0, output.indexOf("\n") === -1 ? undefined : output.indexOf("\n"));
  const had = new Set(before.hidden ?? []);
  for (const p of masked.hidden ?? []) {
    if (had.has(p) || !line.includes(` ${p}:`)) continue;
    try {
      lstatSync(p);
    } catch {
      return p;
    }
  }
  return null;
}
