import { readFileSync } from "node:fs";

/** Running: a zombie waiting for its reaper does not count (it has stopped; under load PID 1 may reap it late). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2)[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}
