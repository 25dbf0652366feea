// The check inside the sandbox, before the command (red team 6's F12j).
// bubblewrap mounts each read-only path by its name, so a folder swapped for
// a link between the walk and the mounts (another session's command, an MCP
// server with a write folder) carries the read-only mount onto the link's
// target while the real .git stays writable. A mount holds to the folder it
// landed on; so inside the new namespace, before the command runs, bunker
// itself checks each protected path: no link on its way, a mount of its own
// there that is read-only, and (where the walk saw it) the same folder. If
// any fails, the command is not run and the sentence says why.
import { lstatSync, readFileSync } from "node:fs";
import { isWithin } from "../perms/workspace.ts";
import { execInPlace } from "./exec-in-place.ts";
import { selfInvocation } from "../self-command.ts";
import type { Mount } from "./spec.ts";

export const CHECK_SUBCOMMAND = "__check-mounts";

/** One path the sandbox must show read-only by a mount of its own; `id` (dev:ino) where it must be that very folder or file. */
export interface MountCheck {
  path: string;
  id: string | null;
  /** A file masked with /dev/null: a mount of its own, written to nothing (not a read-only mount). */
  mask?: boolean;
}

/** dev:ino of a path, its final link not followed, or null. */
export function identity(path: string): string | null {
  try {
    const st = lstatSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/**
 * The mounts a writer could move from under bubblewrap: every read-only mount (a repository, a runs-later file, an
 * empty stand-in, a mask) inside a folder some sandboxed process may write (`writableAreas`). With the identity
 * each has on the host now (a link on the host's way gives none that can match). `mustMount`: the paths the walk
 * found, each checked even when it is no longer there to mount.
 */
export function mountChecks(mounts: Mount[], writableAreas: readonly string[], mayBeLink: ReadonlySet<string>, kind: (p: string) => "dir" | "file" | "link" | null, mustMount: readonly string[] = [], id: (p: string) => string | null = identity): MountCheck[] {
  const out: MountCheck[] = [];
  const inArea = (p: string) => writableAreas.some((w) => isWithin(w, p) && w !== p);
  // What the walk found and is gone now has no mount: checked all the same, so the command is not run without it.
  for (const p of mustMount) if (inArea(p) && !mounts.some((m) => m.path === p)) out.push({ path: p, id: "gone when the sandbox was built" });
  for (const m of mounts) {
    if (m.kind === "rw" || m.kind === "link" || m.kind === "kept" || (m.kind === "empty" && m.writable)) continue;
    if (!inArea(m.path)) continue;
    const link = kind(m.path) === "link";
    // The person's own link there (a .git or .bunker that leads elsewhere): its mount lands on the target, and the
    // link itself is the walk's to check after. Anything the walk found was no link: one now is a swap.
    if (link && mayBeLink.has(m.path)) continue;
    const own = m.kind === "ro" ? (link ? "a link" : id(m.path)) : null;
    out.push({ path: m.path, id: own, ...(m.kind === "mask" && !m.dir ? { mask: true } : {}) });
  }
  return out;
}

/** The mount points of /proc/self/mountinfo, each with whether it is read-only (later lines sit on top). */
export function parseMountinfo(text: string): Map<string, boolean> {
  const points = new Map<string, boolean>();
  for (const line of text.split("\n")) {
    const f = line.split(" ");
    if (f.length < 6) continue;
    // The kernel escapes space, tab, newline and backslash as \ooo.
    const point = f[4]!.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    points.set(point, f[5]!.split(",").includes("ro"));
  }
  return points;
}

/** Why the sandbox does not hold `checks` (one sentence), or null when every one holds. */
export function mountsFailing(checks: readonly MountCheck[], mountinfo: string, id: (p: string) => string | null = identity, isLink: (p: string) => boolean = linkAt): string | null {
  const points = parseMountinfo(mountinfo);
  for (const c of checks) {
    const parts = c.path.split("/").filter(Boolean);
    for (let i = 1; i <= parts.length; i++) {
      const p = `/${parts.slice(0, i).join("/")}`;
      if (isLink(p)) return `${c.path} was reached through a link (${p}) when the sandbox was built`;
    }
    const ro = points.get(c.path);
    if (ro === undefined) return `${c.path} has no read-only mount of its own in the sandbox (it was not where the walk found it)`;
    if (!ro && !c.mask) return `${c.path} is mounted writable in the sandbox`;
    if (c.id !== null && id(c.path) !== c.id) return `${c.path} is not the folder or file bunker's check found there (it was replaced meanwhile)`;
  }
  return null;
}

function linkAt(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The words the checker is started with inside the sandbox, and the host paths it needs to see. */
export function checkerInvocation(listFile: string): { argv: string[]; paths: string[] } {
  const self = selfInvocation(CHECK_SUBCOMMAND);
  return { argv: [...self.argv, listFile, "--"], paths: self.paths };
}

/**
 * The subcommand: `__check-mounts LIST -- PROGRAM ARGS…`. Checks the mounts LIST names (JSON), then becomes PROGRAM
 * (same pid). Never runs PROGRAM when a check fails: the reason is said on stderr and the exit status is 125.
 */
export function runMountCheck(args: string[]): number {
  const fail = (why: string): number => {
    process.stderr.write(`bunker did not run the command: ${why}. Something changed these folders while the sandbox was being built (another bunker session's command or an MCP server with a write folder may be swapping them); nothing ran. Run the command again.\n`);
    return 125;
  };
  const [list, sep, ...argv] = args;
  if (!list || sep !== "--" || argv.length === 0) return fail(`bunker ${CHECK_SUBCOMMAND} was started without its list and command`);
  let checks: MountCheck[];
  let mountinfo: string;
  try {
    checks = JSON.parse(readFileSync(list, "utf8")) as MountCheck[];
    mountinfo = readFileSync("/proc/self/mountinfo", "utf8");
  } catch (e) {
    return fail(`bunker could not read what to check (${(e as Error).message})`);
  }
  const why = mountsFailing(checks, mountinfo);
  if (why) return fail(why);
  return execInPlace(argv, fail);
}
