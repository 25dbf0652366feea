// One /tmp and /var/tmp for a session's commands (new user 11's N11-22): a
// build's output left in /tmp by one command is there for the next, as in
// Claude Code and Codex. A folder of bunker's own in its private folder (the
// state folder, never the workspace nor the machine's /tmp), made at the first
// command and removed when bunker exits (a bunker killed before that: by the
// next one's sweep). On disk, so not bounded by a size as the in-memory /run
// and home are: a command filling it fills the disk, as the workspace would.
//
// Why sharing it keeps every guarantee: nothing a command starts outlives it
// (the sandbox's processes die with it: its own PID namespace, killed with its
// parent), so a FIFO or socket left there has no one behind it for the next
// command; what is left there is a file a later command reads as it would one
// in the workspace, which every approved command may write anyway. A line run
// unasked because it only reads sees the folder read-only. MCP servers, which
// live across commands, keep an empty /tmp of their own: a server listening on
// a socket there would be a way for commands to use its network and files.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { processFolder } from "./private-folder.ts";
import { SESSION_TMP } from "./spec.ts";

let made = 0;

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
    return dir;
  };
}
