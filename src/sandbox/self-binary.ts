// bunker's compiled binary as its sandboxes run it (the mount checker, the
// network forwarder) and as the Landlock wrapper runs it: always the file this
// process was started from, never whatever its path holds now. A rebuild or an
// update replaces the path mid-session (the old file deleted, `dist/bunker
// (deleted)` in /proc/self/exe): mounting the path then failed every command
// (`bwrap: execvp …: No such file or directory`) or ran another program as
// bunker's own; where a sandboxed command can write the binary (bunker built in
// its own workspace), that program ran outside the sandbox as the Landlock
// wrapper.
import { closeSync, copyFileSync, fstatSync, openSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";
import { processFolder } from "./private-folder.ts";

/** Where bubblewrap shows the binary inside (its private /run): the checker and the forwarder start from there. */
export const SANDBOX_SELF = "/run/bunker-self";
/** The descriptor bwrap finds the binary on (its fourth: stdin, stdout, stderr, then this). */
export const SELF_FD = 3;

/** Whether this is the compiled binary (not bun running the checkout's main.ts). */
export function isCompiled(): boolean {
  return import.meta.path.startsWith("/$bunfs/");
}

/** The running binary to run on the host (the Landlock wrapper): the file this process started from, by its /proc link. */
export function hostSelf(): string {
  return `/proc/${process.pid}/exe`;
}

let running: number | undefined;
let copy: { dir: string; fd: number } | undefined;

/** An open descriptor still naming a file (bwrap cannot bind one whose name is gone: it resolves the link's text). */
function named(fd: number): boolean {
  try {
    return !readlinkSync(`/proc/self/fd/${fd}`).endsWith(" (deleted)") && fstatSync(fd).nlink > 0;
  } catch {
    return false;
  }
}

/**
 * The descriptor of the binary bwrap binds at SANDBOX_SELF: the running binary itself while it has a name; once its
 * path was replaced or removed, a private copy of it (made once, in a folder of bunker's own, removed at exit).
 * Bound by descriptor, never by path: nothing can swap the file between this choice and bwrap's mount.
 */
export function selfBinaryFd(): number {
  running ??= openSync("/proc/self/exe", "r");
  if (named(running)) return running;
  if (copy && named(copy.fd)) return copy.fd;
  if (copy) {
    closeSync(copy.fd);
    rmSync(copy.dir, { recursive: true, force: true });
  }
  // Where no sandbox is shown it (private-folder.ts).
  const dir = processFolder("bunker-self");
  const made = { dir, fd: -1 };
  const file = join(dir, "bunker");
  copyFileSync(`/proc/self/fd/${running}`, file);
  made.fd = openSync(file, "r");
  copy = made;
  return made.fd;
}

/** The bwrap arguments that show the binary at SANDBOX_SELF (handed over on SELF_FD: see inheritedFds). */
export function selfBinaryArgs(): string[] {
  return ["--ro-bind-fd", String(SELF_FD), SANDBOX_SELF];
}

/** The descriptors a spawn of `argv` must hand on after stdin, stdout and stderr: the binary, where bwrap binds it. */
export function inheritedFds(argv: readonly string[]): number[] {
  for (let i = 0; i + 2 < argv.length; i++) {
    if (argv[i] === "--ro-bind-fd" && argv[i + 1] === String(SELF_FD) && argv[i + 2] === SANDBOX_SELF) return [selfBinaryFd()];
  }
  return [];
}
