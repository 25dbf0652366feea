// macOS confinement with sandbox-exec and a generated Seatbelt (SBPL)
// profile of the same meaning as the bubblewrap mounts (spec.ts): read only
// the system and toolchain directories, git's config, what was granted and
// the workspace, minus the hidden paths; write only the workspace (not .git
// unless granted, never .bunker), granted paths and a private temporary
// directory; no network unless granted. macOS has no private home: the home
// directory is simply not readable. sandbox-exec is called by its absolute
// path so a PATH entry cannot stand in for it.
import { proxySeatbeltRule } from "../net/command-net.ts";
import { privateReadOnly, readOnlyInside, sandboxMounts, type HostFs, realHostFs, type SandboxSpec } from "./spec.ts";

export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** An SBPL string literal. */
export function sbplString(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** Devices every program may use. */
const DEVICES = [
  `(literal "/dev/null")`, `(literal "/dev/zero")`, `(literal "/dev/stdout")`, `(literal "/dev/stderr")`, `(literal "/dev/tty")`,
  `(literal "/dev/random")`, `(literal "/dev/urandom")`, `(literal "/dev/dtracehelper")`,
  `(regex #"^/dev/fd/[0-9]+$")`, `(regex #"^/dev/ttys[0-9]+$")`,
];

/**
 * The profile. `tmpDir` is a fresh per-command directory (passed to the
 * command as TMPDIR): macOS has no private /tmp, so /tmp is not shown.
 */
/** A writable folder less what the git wall keeps read-only in it. */
function writableBut(dir: string, readOnly: string[]): string {
  const inner = readOnly.filter((p) => p !== dir && p.startsWith(`${dir}/`));
  if (inner.length === 0) return `(subpath ${sbplString(dir)})`;
  return `(require-all (subpath ${sbplString(dir)}) ${inner.map((p) => `(require-not (subpath ${sbplString(p)}))`).join(" ")})`;
}

export function seatbeltProfile(spec: SandboxSpec, tmpDir: string, fs: HostFs = realHostFs): string {
  const mounts = sandboxMounts(spec, "darwin", fs);
  const readable = mounts.flatMap((m) => {
    if (m.kind === "ro" || m.kind === "rw") return [`(subpath ${sbplString(m.path)})`];
    if (m.kind === "link") return [`(literal ${sbplString(m.path)})`];
    return [];
  });
  // A copy cannot be shown in a file's place here: the file is not shown at all.
  // A mask that keeps mounts inside it (a grant, an MCP server's own folder) denies all but them.
  const hidden = mounts.filter((m) => m.kind === "mask" || m.kind === "copy").map((m) => {
    const keeps = m.kind === "mask" ? m.keeps ?? [] : [];
    if (keeps.length === 0) return `(subpath ${sbplString(m.path)})`;
    return `(require-all (subpath ${sbplString(m.path)}) ${keeps.map((k) => `(require-not (subpath ${sbplString(k)}))`).join(" ")})`;
  });
  const workspace = [
    `(subpath ${sbplString(spec.root)})`,
    ...readOnlyInside(spec).map((p) => `(require-not (subpath ${sbplString(p)}))`),
  ];
  const writable = [
    ...(spec.workspaceReadOnly ? [] : [`(require-all ${workspace.join(" ")})`]),
    `(subpath ${sbplString(tmpDir)})`,
    ...(spec.privateDirs ?? []).map((p) => writableBut(p, privateReadOnly(spec))),
    // A granted folder less its repositories and runs-later files, as the workspace (before, only the workspace's were kept).
    ...(spec.workspaceReadOnly ? [] : spec.writable.map((p) => writableBut(p, readOnlyInside(spec)))),
    ...DEVICES.filter((d) => !d.includes("random") && !d.includes("dtrace")),
  ];
  return [
    "(version 1)",
    "(deny default)",
    "",
    "; processes: run programs, signal only our own",
    "(allow process-exec)",
    "(allow process-fork)",
    "(allow process-info* (target same-sandbox))",
    "(allow signal (target same-sandbox))",
    "",
    "; what ordinary programs need from the system",
    "(allow sysctl-read)",
    "(allow user-preference-read)",
    "(allow pseudo-tty)",
    "(allow file-ioctl (literal \"/dev/null\") (literal \"/dev/tty\") (regex #\"^/dev/ttys[0-9]+$\"))",
    "(allow iokit-open (iokit-registry-entry-class \"RootDomainUserClient\"))",
    "(allow ipc-posix-shm-read-data (ipc-posix-name \"apple.shm.notification_center\"))",
    "(allow mach-lookup",
    "  (global-name \"com.apple.system.opendirectoryd.libinfo\")",
    "  (global-name \"com.apple.system.notification_center\")",
    "  (global-name \"com.apple.system.logger\")",
    "  (global-name \"com.apple.trustd.agent\")",
    "  (global-name \"com.apple.SecurityServer\")",
    "  (global-name \"com.apple.coreservices.launchservicesd\")",
    "  (global-name \"com.apple.logd\"))",
    "",
    "; files: names and attributes along any path (realpath needs them); contents only of what is shown",
    "(allow file-read-metadata)",
    `(allow file-read*\n  ${[...readable, `(subpath ${sbplString(tmpDir)})`, ...DEVICES].join("\n  ")})`,
    `(allow file-write*\n  ${writable.join("\n  ")})`,
    ...(hidden.length ? [`(deny file-read* file-write*\n  ${hidden.join("\n  ")})`] : []),
    "",
    spec.allowNet
      ? "; network: granted (--allow-net)\n(allow network*)\n(allow mach-lookup (global-name \"com.apple.dnssd.service\") (global-name \"com.apple.SystemConfiguration.configd\"))"
      : spec.netProxy ? proxySeatbeltRule(spec.netProxy) : "; network: none (not granted)",
    "",
  ].join("\n");
}

/** The command line that runs `argv` under the profile. */
export function seatbeltArgs(spec: SandboxSpec, argv: string[], tmpDir: string): string[] {
  return [SANDBOX_EXEC, "-p", seatbeltProfile(spec, tmpDir), ...argv];
}
