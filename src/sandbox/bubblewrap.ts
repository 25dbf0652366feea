// Linux confinement with bubblewrap (bwrap): a private mount namespace built
// from nothing (bwrap's root is an empty tmpfs, read-only once built) with
// exactly the mounts of spec.ts's allow-list; /dev and /proc minimal; every
// writable in-memory folder of a size (tmpfs-sizes.ts); the command started
// under process and memory limits (process-limits.ts); new PID, IPC, UTS and
// network namespaces (network shared only when granted); no capabilities;
// killed with its parent; a new session (no TIOCSTI into our terminal).
import { proxyBwrapArgs } from "../net/command-net.ts";
import { realHostFs, sandboxMounts, shownAs, standInPaths, type HostFs, type Mount, type SandboxSpec } from "./spec.ts";
import { gitDirsInside, isWithin } from "../perms/workspace.ts";
import { processFolder } from "./private-folder.ts";
import { checkerInvocation, mountChecks, type MountCheck } from "./mount-check.ts";
import { tmpfsSizeOf, tmpfsSizes, type TmpfsSizes } from "./tmpfs-sizes.ts";
import { limitedArgv, prlimitProgram, processLimits } from "./process-limits.ts";
import { SANDBOX_SELF, selfBinaryArgs } from "./self-binary.ts";
import { keepingFd } from "./landlock.ts";
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";

/** One mount as bwrap arguments; a writable empty folder (an in-memory tmpfs) gets its size. */
function mountArgs(m: Mount, sizeOf: (path: string) => string[]): string[] {
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
      return m.writable ? [...sizeOf(m.path), "--tmpfs", m.path] : ["--tmpfs", m.path, "--remount-ro", m.path];
    case "kept":
      // Read-only (the session's /tmp for a line that only reads) once the mount points in it are made: below.
      return ["--bind", m.source, m.path];
    case "mask":
      // A file becomes /dev/null (--ro-bind would mount it nodev: unreadable rather than empty).
      if (m.dir && m.keeps) return ["--tmpfs", m.path];
      return m.dir ? ["--tmpfs", m.path, "--remount-ro", m.path] : ["--dev-bind", "/dev/null", m.path];
  }
}

/** The bwrap command line that runs `argv` under `spec`. */
export function bubblewrapArgs(spec: SandboxSpec, argv: string[], bwrap = "bwrap", fs: HostFs = realHostFs): string[] {
  const mounts = sandboxMounts(spec, "linux", fs);
  // The protected mounts inside what sandboxed writers can change are checked from inside before the command runs
  // (mount-check.ts): the checker and its list are shown read-only, each at its depth among the others.
  const checks = mountChecks(mounts, [spec.root, ...spec.writable, ...(spec.privateDirs ?? [])], personsLinks(spec), (p) => fs.kind(p), wallMounts(spec));
  // Limits set inside the sandbox's own user namespace, so that its processes alone are counted (process-limits.ts).
  const prlimit = prlimitProgram();
  let inner = prlimit ? limitedArgv(prlimit, spec.limits ?? processLimits(undefined, spec.memoryBytes), argv) : argv;
  if (checks.length > 0) {
    const checker = checkerInvocation(CHECK_LIST);
    // Shown from the host itself (a bind of its own), not from a folder of bunker's over it: a checkout in /tmp lies
    // under the session's /tmp, which a line that only reads sees read-only, and held none of the checkout's files.
    for (const p of checker.paths) if (!["ro", "rw"].includes(shownAs(mounts, p)) || coveredByKept(mounts, p)) atDepth(mounts, { kind: "ro", path: p });
    atDepth(mounts, { kind: "copy", path: CHECK_LIST, source: checkList(checks) });
    inner = [...checker.argv, ...inner];
  }
  const sizes: TmpfsSizes = tmpfsSizes(spec.memoryBytes);
  const sized = !sizeUnsupported.has(bwrap);
  const size = (bytes: number) => (sized ? ["--size", String(bytes)] : []);
  const sizeOf = (path: string) => size(tmpfsSizeOf(path, spec.home, sizes) ?? sizes.tmp);
  const args = [bwrap];
  // A grant of / itself comes first, then bwrap's own /dev and /proc, then the rest on top.
  const rootGranted = mounts.some((m) => m.path === "/");
  for (const m of mounts) if (m.path === "/") args.push(...mountArgs(m, sizeOf));
  // bwrap's /dev is an unsized tmpfs: read-only, with a sized /dev/shm (POSIX shared memory) on it; the devices stay writable.
  args.push("--dev", "/dev", ...size(sizes.shm), "--tmpfs", "/dev/shm", "--remount-ro", "/dev", "--proc", "/proc");
  // Under a grant of / the system's links (/bin -> usr/bin) are there already, as the host has them: bwrap cannot make them again.
  for (const m of mounts) if (m.path !== "/" && !(rootGranted && m.kind === "link")) args.push(...mountArgs(m, sizeOf));
  // A mask that keeps mounts inside it is made read-only once they are in place (their mount points are made in it).
  for (const m of mounts) if (m.kind === "mask" && m.keeps) args.push("--remount-ro", m.path);
  // So is a read-only folder of bunker's (a workspace or home in /tmp has its mount point made in the session's /tmp).
  for (const m of mounts) if (m.kind === "kept" && !m.writable) args.push("--remount-ro", m.path);
  // /run is private (it holds sockets: docker, databases, the session bus, agents); the resolver's, when networked.
  if (spec.allowNet) args.push("--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve");
  if (spec.netProxy && !spec.allowNet) args.push(...proxyBwrapArgs(spec.netProxy));
  // bunker's own binary, for the checker and the forwarder: the file it started from, bound by descriptor (self-binary.ts).
  if (inner.includes(SANDBOX_SELF)) args.push(...selfBinaryArgs());
  // bwrap's own root is an unsized tmpfs too: once every mount point is made in it, nothing more is written there.
  if (!rootGranted) args.push("--remount-ro", "/");
  args.push("--unshare-all");
  if (spec.allowNet) args.push("--share-net");
  if (spec.asPid1) args.push("--as-pid-1");
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--chdir", spec.cwd ?? spec.root, "--", ...inner);
  return args;
}

/** Whether the mount that shows `path` is a folder of bunker's (the session's /tmp), not the host's own. */
function coveredByKept(mounts: readonly Mount[], path: string): boolean {
  let found: Mount | undefined;
  for (const m of mounts) if (isWithin(m.path, path)) found = m;
  return found?.kind === "kept";
}

/** `m` added to `mounts` (parents first): last, or before the first mount inside it (a checkout holding the workspace). */
function atDepth(mounts: Mount[], m: Mount): void {
  const i = mounts.findIndex((o) => isWithin(m.path, o.path));
  mounts.splice(i === -1 ? mounts.length : i, 0, m);
}

/** Where the checker finds its list inside the sandbox (in the private /run). */
const CHECK_LIST = "/run/bunker-mount-check.json";

/** The git wall's paths that sandboxMounts mounts read-only when they are there (in a private writable folder; in a writable root). */
function wallMounts(spec: SandboxSpec): string[] {
  const under = (dirs: readonly string[], p: string) => dirs.some((d) => isWithin(d, p) && d !== p);
  const roots = spec.workspaceReadOnly ? [] : [spec.root, ...(spec.grantedRoots ?? [])];
  return (spec.wallPaths ?? []).filter((p) => under(spec.privateDirs ?? [], p) || under(roots, p));
}

/** The fixed read-only paths the person may have made links (their .git or .bunker leading elsewhere): not a swap. */
function personsLinks(spec: SandboxSpec): Set<string> {
  return new Set([...standInPaths(spec), join(spec.root, ".git"), join(spec.root, ".bunker"), ...gitDirsInside(spec.root)]);
}

let listDir: string | undefined;
/** The list written once per distinct content (commands in one workspace share it), in a folder removed at exit. */
function checkList(checks: MountCheck[]): string {
  const text = JSON.stringify(checks);
  if (!listDir || !existsSync(listDir)) {
    // Not $TMPDIR when bunker has a state folder: a command granted /tmp could empty the next command's list.
    const made = processFolder("bunker-mounts");
    listDir = made;
  }
  const file = join(listDir, `${Bun.hash(text).toString(16)}.json`);
  if (!existsSync(file)) {
    mkdirSync(listDir, { recursive: true });
    writeFileSync(file, text, { mode: 0o600 });
  }
  return file;
}

/** bwrap programs found (by the probe) to lack --size. */
const sizeUnsupported = new Set<string>();

/** bwrap programs found (by the probe) to lack --json-status-fd. */
const statusUnsupported = new Set<string>();

/** The descriptor a command's bwrap reports its setup on: after stdin, stdout, stderr and the binary's (self-binary.ts). */
export const STATUS_FD = 4;

/**
 * `argv` (what confine() made for bwrap `program`) with bwrap reporting on STATUS_FD whether it set the sandbox up
 * and started what it runs (--json-status-fd), or null where this bwrap cannot (before 0.5).
 */
export function withSetupStatus(argv: readonly string[], program: string): string[] | null {
  const at = argv.indexOf(program);
  if (at === -1 || statusUnsupported.has(program)) return null;
  // Under the Landlock wrapper (landlock.ts), which must hand the descriptor on.
  return keepingFd([...argv.slice(0, at + 1), "--json-status-fd", String(STATUS_FD), ...argv.slice(at + 1)], STATUS_FD);
}

/**
 * Whether bwrap failed before it started anything (a mount it could not make), from what it wrote on its status
 * descriptor: bwrap's own parent writes `{ "exit-code": N }` only once its child has exec'd (it is told so on a
 * close-on-exec pipe), and the command never holds the descriptor. The command's output, which it can make look like
 * bwrap's errors, plays no part (reviewer's R12-04). Not when bwrap did not exit by itself (killed: it may have run).
 */
export function setupFailed(status: string, exitCode: number | null): boolean {
  if (exitCode === null || exitCode === 0) return false;
  return !status.split("\n").some((line) => {
    try {
      return typeof JSON.parse(line)?.["exit-code"] === "number";
    } catch {
      return false;
    }
  });
}

export type ProbeResult = { ok: true } | { ok: false; reason: string };

/**
 * Whether bwrap can really build a sandbox here (it is installed but user
 * namespaces may be disabled, e.g. in some containers). Takes a few ms.
 */
export function probeBubblewrap(bwrap: string): ProbeResult {
  try {
    // The status report first: an older bwrap's "Unknown option" names the first option it lacks.
    const run = (size: string[], status: string[]) => Bun.spawnSync(
      [bwrap, ...status, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", ...size, "--tmpfs", "/tmp", "--unshare-all",
        "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--", "/bin/sh", "-c", ":"],
      { stdin: "ignore", stdout: "ignore", stderr: "pipe", timeout: 5000 },
    );
    let size = ["--size", "1048576"];
    let status = ["--json-status-fd", "2"];
    let probe = run(size, status);
    // bwrap before 0.5 cannot say whether it started the command: such a failure is then never run again (setupFailed).
    if (probe.exitCode !== 0 && /json-status-fd/.test(new TextDecoder().decode(probe.stderr))) {
      statusUnsupported.add(bwrap);
      status = [];
      probe = run(size, status);
    }
    // bwrap before 0.8 has no --size: its sandbox still works, with unsized in-memory folders (README says so).
    if (probe.exitCode !== 0 && /--size/.test(new TextDecoder().decode(probe.stderr))) {
      sizeUnsupported.add(bwrap);
      size = [];
      probe = run(size, status);
    }
    if (probe.exitCode === 0) return { ok: true };
    const err = new TextDecoder().decode(probe.stderr).trim().split("\n")[0] ?? "";
    return { ok: false, reason: `bwrap cannot create a sandbox here${err ? `: ${err}` : ` (exit ${probe.exitCode})`}` };
  } catch (e) {
    return { ok: false, reason: `bwrap could not be started: ${(e as Error).message}` };
  }
}
