// Whether Ctrl+Z can stop bunker as a shell job. A stop only comes back when
// a job-control shell is above bunker: its parent in the same session, in
// another process group. Run as a tmux pane's own command, `exec bunker`,
// `ssh host bunker` or a container's first process, bunker's group is
// orphaned: the kernel drops SIGTSTP, no SIGCONT ever comes, and a prompt that
// waited for one looked frozen (reviewer's R13-03).
import { readFileSync } from "node:fs";

/** pid's parent, process group and session from /proc (after the name, which may hold spaces and parentheses); null when unreadable. */
function statOf(pid: number | "self"): { ppid: number; pgrp: number; session: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(fields[1]), pgrp: Number(fields[2]), session: Number(fields[3]) };
  } catch {
    return null;
  }
}

/** Whether a shell with job control would take bunker back after SIGTSTP; unknown (no /proc: macOS) is yes. */
export function canSuspend(): boolean {
  if (process.platform === "win32" || process.pid === 1) return false;
  const self = statOf("self");
  if (!self) return true;
  const parent = statOf(self.ppid);
  if (!parent) return true;
  return parent.session === self.session && parent.pgrp !== self.pgrp;
}
