// Which process wrote something (a journal, a running turn), and whether it
// is still running: the pid with its start time, so a reused pid is not
// taken for the writer.
import { existsSync, readFileSync } from "node:fs";

let self: string | undefined;

/** This process, as `pid:start` (read from /proc once: neither changes while it runs). */
export function selfId(): string {
  return (self ??= `${process.pid}:${processStart(process.pid)}`);
}

/** Whether the process `pid` (started at `started`, from processStart; null: any) is running. */
export function isRunning(pid: number, started: string | null): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (process.platform === "linux") {
    if (!existsSync(`/proc/${pid}`)) return false;
    // A zombie has finished: only its parent has yet to collect it (a closed terminal's tmux or emulator can take seconds).
    if (processState(pid) === "Z" || processState(pid) === "X") return false;
    return started === null || processStart(pid) === started;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether `id` (from selfId) names a running process. */
export function idRunning(id: string): boolean {
  const [pid, started] = id.split(":");
  return isRunning(Number(pid), started ?? null);
}

/** Field 22 of /proc/PID/stat (start time since boot); "" where there is no /proc. */
export function processStart(pid: number): string {
  return statFields(pid)[19] ?? "";
}

/** Field 3 of /proc/PID/stat: R, S, D, Z (exited, not yet collected), …; "" where there is no /proc. */
function processState(pid: number): string {
  return statFields(pid)[0] ?? "";
}

/** /proc/PID/stat from field 3 on. */
function statFields(pid: number): string[] {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count from the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return [];
  }
}
