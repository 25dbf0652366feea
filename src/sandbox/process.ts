// The process groups of running commands, and how bunker ends on SIGTERM or
// SIGHUP at any moment: the commands' groups are killed, the "exit" handlers
// run (the terminal is given back as it was found), and bunker exits as the
// signal would have it (128 + n). A signal's default action would skip the
// "exit" handlers; no tool blocks the event loop (file opens never wait, see
// fs/file-kind.ts), so the handler runs at once.

import { writeSync } from "node:fs";
import { isTerminal } from "../ui/is-terminal.ts";
import { adoptedNow, becomeSubreaper, killEscaped } from "./reaper.ts";

/** Process groups still running, killed if bunker itself exits or is killed first. */
const liveGroups = new Set<number>();
let installed = false;

export function killLiveGroups(): void {
  for (const g of liveGroups) {
    try {
      process.kill(-g, "SIGKILL");
    } catch {
      // already gone
    }
  }
  // And what the commands started outside their groups (setsid), which bunker adopted.
  killEscaped();
}

/** Installs the exit and signal handlers (once). Called at start-up, and by the first command in any case. */
export function installSignalExits(): void {
  if (installed) return;
  installed = true;
  process.on("exit", killLiveGroups);
  for (const [sig, code] of [["SIGTERM", 143], ["SIGHUP", 129]] as const) {
    process.on(sig, () => {
      killLiveGroups();
      // A run whose stderr is a log (headless, CI) says why it ended, last of the exit handlers. Not on a
      // terminal: the person sent it, and the line would land inside the status line just given back.
      if (!isTerminal(2)) process.once("exit", () => {
        try {
          writeSync(2, `bunker: ended by ${sig}\n`);
        } catch {
          // no terminal or pipe left to say it on (SIGHUP)
        }
      });
      process.exit(code);
    });
  }
}

/**
 * Call before starting a command: from then on what it leaves outside its
 * group is adopted by bunker (reaper.ts). Returns what was adopted before it
 * (not the command's to answer for: endGroup leaves those alone).
 */
export function adoptOrphans(): ReadonlySet<number> {
  installSignalExits();
  becomeSubreaper();
  return adoptedNow();
}

export function trackGroup(pgid: number): void {
  installSignalExits();
  liveGroups.add(pgid);
}

/**
 * The command leading `pgid` has ended (or its time is up): its whole group
 * is killed, and so is everything it started outside the group, unless
 * another running command's.
 */
export function endGroup(pgid: number, adoptedBefore: ReadonlySet<number>): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone.
  }
  liveGroups.delete(pgid);
  killAdoptedSince(adoptedBefore);
}

/** Kills what was adopted since `adoptedBefore` was taken, except running commands' leaders. */
export function killAdoptedSince(adoptedBefore: ReadonlySet<number>): void {
  killEscaped(new Set([...liveGroups, ...adoptedBefore]));
}
