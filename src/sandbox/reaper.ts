// Processes that leave a command's process group (`setsid …`, a job-control
// group) are not killed with the group, and would outlive the command's time
// box and bunker itself. On Linux bunker makes itself a child subreaper
// (prctl PR_SET_CHILD_SUBREAPER): whatever such a process leaves behind when
// its parent dies is adopted by bunker instead of init, so bunker can find it.
// Every adopted process lives in a session other than bunker's (commands run
// in sessions of their own); bunker's own children (MCP servers, the pager)
// share its session and are never touched.
import { readdirSync, readFileSync } from "node:fs";

const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;

interface Libc {
  prctl(option: number, arg2: number, arg3: number, arg4: number, arg5: number): number;
  waitpid(pid: number, status: null, options: number): number;
}

let libc: Libc | null | undefined;
let reaper: boolean | undefined;

function openLibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (process.platform !== "linux") return libc;
  try {
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    const { symbols } = dlopen("libc.so.6", {
      prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
      waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    });
    libc = symbols as unknown as Libc;
  } catch {
    // Not glibc (musl names it differently): commands' escaped processes are then not followed.
  }
  return libc;
}

/** Makes bunker the subreaper of everything it starts (once); false where the system has none. */
export function becomeSubreaper(): boolean {
  if (reaper !== undefined) return reaper;
  const c = openLibc();
  reaper = c !== null && c.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) === 0;
  return reaper;
}

/** pid → [parent, session, state, start time] from /proc/PID/stat (the command name may hold spaces and parentheses). */
function stat(pid: number): { ppid: number; sid: number; state: string; start: string } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "latin1");
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: f[0]!, ppid: Number(f[1]), sid: Number(f[3]), start: f[19]! };
  } catch {
    return null;
  }
}

/** The children of `pid`, from every thread's list (/proc/PID/task/TID/children). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, "latin1").trim().split(" ")) if (c) out.push(Number(c));
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** `pid` and everything below it, leaves first. */
function subtree(pid: number, seen = new Set<number>()): number[] {
  if (seen.has(pid)) return [];
  seen.add(pid);
  return [...childrenOf(pid).flatMap((c) => subtree(c, seen)), pid];
}

/** The processes bunker has adopted so far (children in another session). */
export function adoptedNow(): Set<number> {
  if (!reaper) return new Set();
  const ownSession = stat(process.pid)?.sid;
  return new Set(childrenOf(process.pid).filter((pid) => stat(pid)?.sid !== ownSession));
}

/**
 * Kills what commands left behind and bunker adopted: each child of bunker in
 * another session (except `keep`, commands still running) with everything
 * below it, and reaps them. Returns how many processes were killed.
 */
export function killEscaped(keep: ReadonlySet<number> = new Set()): number {
  if (!reaper) return 0;
  const c = openLibc()!;
  const ownSession = stat(process.pid)?.sid;
  let killed = 0;
  // Killing one lets its children be adopted in turn: a few rounds catch them.
  for (let round = 0; round < 5; round++) {
    const adopted = childrenOf(process.pid).filter((pid) => !keep.has(pid) && stat(pid)?.sid !== ownSession);
    if (adopted.length === 0) break;
    for (const root of adopted) {
      // Stopped first, so none of them can start more while the tree is walked; then killed.
      for (const pid of subtree(root)) signal(pid, "SIGSTOP");
      for (const pid of subtree(root)) if (signal(pid, "SIGKILL")) killed++;
    }
    // Reap them (libuv waits only for the children it started): a zombie each otherwise.
    const deadline = Date.now() + 200;
    for (const pid of adopted) while (c.waitpid(pid, null, WNOHANG) === 0 && Date.now() < deadline) Bun.sleepSync(1);
  }
  return killed;
}

function signal(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false; // gone already
  }
}

/** A process and everything below it now → each one's start time (a pid reused later is not the same process). */
export type ProcessTree = Map<number, string>;

/** `pid` and everything below it, as now (Linux; elsewhere empty). */
export function processTree(pid: number): ProcessTree {
  const tree: ProcessTree = new Map();
  if (process.platform !== "linux") return tree;
  for (const p of subtree(pid)) {
    const st = stat(p);
    if (st) tree.set(p, st.start);
  }
  return tree;
}

/**
 * Ends a sandbox (an MCP server's bwrap: `tree`, taken while it ran) and waits, at most `ms`, until nothing in it
 * can write any more: each process gone or a zombie. bwrap's inner init and what runs under it are in the tree;
 * once that init has exited, the kernel has killed and reaped the whole PID namespace, whatever was started after
 * the tree was taken. SIGTERM to `pid` first (bwrap dies, and takes the namespace with it), then the rest stopped
 * and killed. A process is signalled only while its start time is the one in the tree. Returns whether all of it
 * is gone.
 */
export function endTree(pid: number, tree: ProcessTree, ms = 2_000, graceMs = 300): boolean {
  const live = () => [...tree].filter(([p, start]) => {
    const st = stat(p);
    return st !== null && st.start === start && st.state !== "Z" && st.state !== "X";
  });
  const wait = (until: number) => {
    while (live().length > 0 && Date.now() < until) Bun.sleepSync(2);
    return live().length === 0;
  };
  if (live().length === 0) return true;
  const start = Date.now();
  if (live().some(([p]) => p === pid)) signal(pid, "SIGTERM");
  if (wait(start + Math.min(graceMs, ms))) return true;
  // Stopped first, so none of them can start more; then killed.
  for (const [p] of live()) signal(p, "SIGSTOP");
  for (const [p] of live()) signal(p, "SIGKILL");
  return wait(start + ms);
}
