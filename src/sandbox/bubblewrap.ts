// Linux confinement with bubblewrap (bwrap): a private mount namespace built
// from nothing (bwrap's root is an empty tmpfs) with exactly the mounts of
// spec.ts's allow-list; /dev and /proc minimal; new PID, IPC, UTS and
// network namespaces (network shared only when granted); no capabilities;
// killed with its parent; a new session (no TIOCSTI into our terminal).
import { proxyBwrapArgs } from "../net/command-net.ts";
import { realHostFs, sandboxMounts, type HostFs, type Mount, type SandboxSpec } from "./spec.ts";

/** One mount as bwrap arguments. */
function mountArgs(m: Mount): string[] {
  switch (m.kind) {
    case "ro":
      return ["--ro-bind", m.path, m.path];
    case "rw":
      return ["--bind", m.path, m.path];
    case "copy":
      return ["--ro-bind", m.source, m.path];
    case "link":
      return ["--symlink", m.target, m.path];
    case "empty":
      return m.writable ? ["--tmpfs", m.path] : ["--tmpfs", m.path, "--remount-ro", m.path];
    case "mask":
      // A file becomes /dev/null (--ro-bind would mount it nodev: unreadable rather than empty).
      return m.dir ? ["--tmpfs", m.path, "--remount-ro", m.path] : ["--dev-bind", "/dev/null", m.path];
  }
}

/** The bwrap command line that runs `argv` under `spec`. */
export function bubblewrapArgs(spec: SandboxSpec, argv: string[], bwrap = "bwrap", fs: HostFs = realHostFs): string[] {
  const mounts = sandboxMounts(spec, "linux", fs);
  const args = [bwrap];
  // A grant of / itself comes first, then bwrap's own /dev and /proc, then the rest on top.
  for (const m of mounts) if (m.path === "/") args.push(...mountArgs(m));
  args.push("--dev", "/dev", "--proc", "/proc");
  for (const m of mounts) if (m.path !== "/") args.push(...mountArgs(m));
  // /run is private (it holds sockets: docker, databases, the session bus, agents); the resolver's, when networked.
  if (spec.allowNet) args.push("--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve");
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
