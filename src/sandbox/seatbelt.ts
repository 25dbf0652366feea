// macOS confinement with sandbox-exec and a generated Seatbelt (SBPL)
// profile of the same meaning as the bubblewrap one: read everything but the
// credential stores, write
// only the workspace (not .git unless granted, never .bunker) and a private
// temporary directory, no network unless granted. sandbox-exec is called by
// its absolute path so a PATH entry cannot stand in for it.
import { proxySeatbeltRule } from "../net/command-net.ts";
import { readOnlyInside, type SandboxSpec } from "./spec.ts";

export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** An SBPL string literal. */
export function sbplString(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/**
 * The profile. `tmpDir` is a fresh per-command directory (passed to the
 * command as TMPDIR): macOS has no private /tmp, so /tmp stays read-only.
 */
export function seatbeltProfile(spec: SandboxSpec, tmpDir: string): string {
  const workspace = [
    `(subpath ${sbplString(spec.root)})`,
    ...readOnlyInside(spec).map((p) => `(require-not (subpath ${sbplString(p)}))`),
  ];
  const writable = [
    ...(spec.workspaceReadOnly ? [] : [`(require-all ${workspace.join(" ")})`]),
    `(subpath ${sbplString(tmpDir)})`,
    ...(spec.privateDirs ?? []).map((p) => `(subpath ${sbplString(p)})`),
    ...(spec.workspaceReadOnly ? [] : spec.writable.map((p) => `(subpath ${sbplString(p)})`)),
    `(literal "/dev/null")`,
    `(literal "/dev/zero")`,
    `(literal "/dev/stdout")`,
    `(literal "/dev/stderr")`,
    `(literal "/dev/tty")`,
    `(regex #"^/dev/fd/[0-9]+$")`,
    `(regex #"^/dev/ttys[0-9]+$")`,
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
    "; files: read everywhere, write only here",
    "(allow file-read*)",
    ...(spec.hidden?.length ? [`(deny file-read* file-write*\n  ${spec.hidden.map((p) => `(subpath ${sbplString(p)})`).join("\n  ")})`] : []),
    `(allow file-write*\n  ${writable.join("\n  ")})`,
    ...(spec.privateDirs?.length ? [`(allow file-read*\n  ${spec.privateDirs.map((p) => `(subpath ${sbplString(p)})`).join("\n  ")})`] : []),
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
