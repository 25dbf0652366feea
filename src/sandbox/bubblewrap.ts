// Linux confinement with bubblewrap (bwrap): a private mount namespace where
// the root file system is read-only, the workspace read-write (except .git
// and .bunker), /tmp and /run private and empty, /dev and /proc minimal; new
// PID, IPC, UTS and network namespaces (network shared only when granted); no
// capabilities; killed with its parent; a new session (no TIOCSTI into our
// terminal).
import { statSync } from "node:fs";
import { proxyBwrapArgs } from "../net/command-net.ts";
import { readOnlyInside, type SandboxSpec } from "./spec.ts";

export type PathKind = "dir" | "file" | null;

function pathKind(path: string): PathKind {
  try {
    return statSync(path).isDirectory() ? "dir" : "file";
  } catch {
    return null;
  }
}

/** The bwrap command line that runs `argv` under `spec`. */
export function bubblewrapArgs(spec: SandboxSpec, argv: string[], bwrap = "bwrap", kind: (path: string) => PathKind = pathKind): string[] {
  const exists = (p: string) => kind(p) !== null;
  const args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  // /run holds sockets (docker, databases, the session bus, agents): reachable even read-only.
  args.push("--tmpfs", "/run");
  if (spec.allowNet) args.push("--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve");
  // Credential stores: an empty directory, or /dev/null for a file.
  for (const p of spec.hidden ?? []) {
    const k = kind(p);
    if (k === "dir") args.push("--tmpfs", p);
    else if (k === "file") args.push("--dev-bind", "/dev/null", p); // --ro-bind would mount it nodev: unreadable
  }
  if (spec.workspaceReadOnly) {
    // Unasked read-only commands: whatever trick we did not foresee, nothing can be written.
    args.push("--ro-bind", spec.root, spec.root);
  } else {
    args.push("--bind", spec.root, spec.root);
    for (const p of spec.writable) args.push("--bind-try", p, p);
  }
  for (const p of spec.workspaceReadOnly ? [] : readOnlyInside(spec)) {
    if (exists(p)) args.push("--ro-bind", p, p);
    // Missing .bunker: an empty read-only mount, so a command cannot create settings that grant it more.
    else if (p.endsWith("/.bunker")) args.push("--tmpfs", p, "--remount-ro", p);
  }
  for (const p of spec.privateDirs ?? []) args.push("--bind", p, p);
  if (spec.netProxy && !spec.allowNet) args.push(...proxyBwrapArgs(spec.netProxy));
  args.push("--unshare-all");
  if (spec.allowNet) args.push("--share-net");
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--chdir", spec.root, "--", ...argv);
  return args;
}

export type ProbeResult = { ok: true } | { ok: false; reason: string };

/**
 * Whether bwrap can really build a sandbox here (it is installed but user
 * namespaces may be disabled, e.g. in some containers). Takes a few ms.
 */
export function probeBubblewrap(bwrap: string): ProbeResult {
  try {
    const probe = Bun.spawnSync(
      [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-all",
        "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--", "/bin/sh", "-c", ":"],
      { stdin: "ignore", stdout: "ignore", stderr: "pipe", timeout: 5000 },
    );
    if (probe.exitCode === 0) return { ok: true };
    const err = new TextDecoder().decode(probe.stderr).trim().split("\n")[0] ?? "";
    return { ok: false, reason: `bwrap cannot create a sandbox here${err ? `: ${err}` : ` (exit ${probe.exitCode})`}` };
  } catch (e) {
    return { ok: false, reason: `bwrap could not be started: ${(e as Error).message}` };
  }
}
