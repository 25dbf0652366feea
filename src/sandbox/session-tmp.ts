// One /tmp and /var/tmp for a session's commands (new user 11's N11-22): a
// build's output left in /tmp by one command is there for the next, as in
// Claude Code and Codex. A folder of bunker's own in its private folder (the
// state folder, never the workspace nor the machine's /tmp), made at the first
// command and removed when bunker exits (a bunker killed before that: by the
// next one's sweep), and emptied by /clear (a new conversation starts with a new
// /tmp, as it starts with no memory of what an earlier one left there).
//
// On disk (it outlives each sandbox, which no in-memory folder can), so it is
// bounded by a watch instead of a tmpfs size: while a command runs, bunker
// measures the folder (du, off its own thread) about twice a second, and a
// command that makes it grow past its limit (what the in-memory /tmp and
// /var/tmp held together: a quarter of this machine's memory) is stopped, its
// result saying why and what to remove. No unprivileged file system keeps a
// size across sandboxes, so the command gets no ENOSPC of its own: it is
// stopped, bunker goes on, and the next command may clear the folder. A bound
// by looking, not a wall: a command may write what the disk takes in half a
// second past the limit before it is stopped, and while the folder is over it
// one that adds to it is stopped within a tenth of a second (a command shorter
// than that is seen only by the look after it).
//
// Why sharing it keeps every guarantee: nothing a command starts outlives it
// (the sandbox's processes die with it: its own PID namespace, killed with its
// parent), so a FIFO or socket left there has no one behind it for the next
// command; what is left there is a file a later command reads as it would one
// in the workspace, which every approved command may write anyway. A line run
// unasked because it only reads sees the folder read-only. MCP servers, which
// live across commands, keep an empty /tmp of their own: a server listening on
// a socket there would be a way for commands to use its network and files.
import { openToOwner, removeTree } from "../fs/remove-tree.ts";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { hostProgram } from "./host-program.ts";
import { processFolder } from "./private-folder.ts";
import { SESSION_TMP } from "./spec.ts";
import { tmpfsSizes } from "./tmpfs-sizes.ts";

let made = 0;
/** Every session folder this bunker made (emptied by /clear). */
const folders = new Set<string>();

/**
 * The folder of one session (one run_bash tool: with its `tmp` and `var-tmp`), made at its first command. Each tool
 * its own (tests run several in one process), each removed at exit.
 */
export function sessionTmpFolder(): () => string {
  let dir: string | undefined;
  const n = ++made;
  return () => {
    if (dir && existsSync(join(dir, "tmp"))) return dir;
    dir = processFolder(n === 1 ? "bunker-tmp" : `bunker-tmp${n}`);
    for (const name of Object.values(SESSION_TMP)) mkdirSync(join(dir, name), { mode: 0o700 });
    folders.add(dir);
    return dir;
  };
}

/**
 * /clear: every session folder removed (the next command makes a new, empty one). No command runs then, and none
 * of a command's processes outlives it. Whether any of them held something.
 */
export function clearSessionTmps(): { held: boolean; kept: string[] } {
  let held = false;
  const kept: string[] = [];
  for (const dir of folders) {
    try {
      held ||= Object.values(SESSION_TMP).some((name) => readdirSync(join(dir, name)).length > 0);
    } catch {
      // Gone already: nothing held.
    }
    // A folder a command closed to its owner is opened up first; one still there is said, not thrown (reviewer's R13-11).
    if (!removeTree(dir)) kept.push(dir);
    lastSeen.delete(dir);
  }
  folders.clear();
  return { held, kept };
}

/** How much the session's /tmp and /var/tmp may hold together, in bytes (BUNKER_SESSION_TMP_MB sets it: tests). */
export function sessionTmpLimit(): number {
  const set = Number(process.env.BUNKER_SESSION_TMP_MB);
  if (process.env.BUNKER_SESSION_TMP_MB && Number.isFinite(set) && set > 0) return Math.floor(set * 1024 * 1024);
  const sizes = tmpfsSizes();
  return sizes.tmp + sizes.varTmp;
}

/** The bytes `dir` takes on disk (du), or null when it cannot be measured (no du). */
export async function diskUse(du: string, dir: string, again = true): Promise<number | null> {
  try {
    const proc = Bun.spawn([du, "-s", "-B1", dir], { stdout: "pipe", stderr: "pipe", env: { LC_ALL: "C" } });
    const [text, errors, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const bytes = Number(text.split("\t")[0]);
    // du exits 1 when a file vanished while it read (a command deleting as it goes): its count still stands. Not when
    // it could not read a folder: that folder's bytes are left out, so a command's chmod 000 would hide what it holds
    // (reviewer's R13-12). Everything in the folder is bunker's user's: opened up, and measured again.
    if (code === 1 && /cannot (read|access)|Permission denied/.test(errors)) {
      if (!again) return null;
      openToOwner(dir);
      return diskUse(du, dir, false);
    }
    return (code === 0 || code === 1) && Number.isFinite(bytes) ? bytes : null;
  } catch {
    return null;
  }
}

/** What each session folder held at bunker's last look (a look while a command ran). */
const lastSeen = new Map<string, number>();

/**
 * Watch the session folder while a command runs: `over(bytes)` is called once it holds more than `limit` and more
 * than at the look before (a command that starts over the limit may still remove files; the first look of a
 * command compares with the last one before it). Measured about twice a second, less often when measuring is slow
 * (a folder of many files), ten times a second while it is over the limit; nothing is measured before the command
 * starts, and once more after it ends (a command too short for a look). Returns the stop, which waits for that
 * last look and answers what it found when the folder is over the limit and larger than before the command, and
 * no look while it ran said so: a command quicker than the first look (`fallocate -l 200M`) is said too, not let
 * through for the next command to be blamed for (reviewer's R13-02).
 */
export function watchSessionTmp(dir: string, limit: number, over: (bytes: number) => void): () => Promise<number | null> {
  const du = hostProgram("du");
  if (!du) return () => Promise.resolve(null);
  const startSeen = lastSeen.get(dir) ?? 0;
  let said = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const full = () => (lastSeen.get(dir) ?? 0) > limit;
  const look = async () => {
    const began = Date.now();
    const bytes = await diskUse(du, dir);
    if (stopped) return;
    if (bytes !== null) {
      const before = lastSeen.get(dir) ?? 0;
      lastSeen.set(dir, bytes);
      if (bytes > limit && bytes > before) {
        stopped = true;
        said = true;
        return over(bytes);
      }
    }
    timer = setTimeout(look, Math.max(full() ? 100 : 500, (Date.now() - began) * 10));
  };
  timer = setTimeout(look, full() ? 0 : 500);
  let ended: Promise<number | null> | undefined;
  return async () => {
    stopped = true;
    clearTimeout(timer);
    // The look after it (then the next command's first look compares with what this one left).
    ended ??= diskUse(du, dir).then((bytes) => {
      if (bytes !== null && folders.has(dir)) lastSeen.set(dir, bytes);
      return bytes;
    });
    const bytes = await ended;
    return !said && bytes !== null && bytes > limit && bytes > startSeen ? bytes : null;
  };
}
