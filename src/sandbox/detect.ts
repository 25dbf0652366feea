// Which OS sandbox run_bash can use here, and what `--sandbox auto|on|off`
// makes of it: auto confines where possible (and says once at start-up when
// it cannot), on refuses to run commands unconfined, off never confines.
import { existsSync } from "node:fs";
import { bubblewrapArgs, probeBubblewrap } from "./bubblewrap.ts";
import { hostProgram, SYSTEM_BIN_DIRS } from "./host-program.ts";
import { canScopeAbstractSockets, scopedArgv } from "./landlock.ts";
import { SANDBOX_EXEC, seatbeltArgs } from "./seatbelt.ts";
import type { SandboxSpec } from "./spec.ts";

export type SandboxMode = "auto" | "on" | "off";
export type SandboxKind = "bubblewrap" | "seatbelt";

export interface SandboxAvailability {
  kind: SandboxKind | null;
  /** The program that builds the sandbox (absolute path). */
  program?: string;
  /** Why there is none (when kind is null). */
  reason?: string;
}

/** What run_bash does with each command. */
export type SandboxPlan =
  | { confined: true; kind: SandboxKind; program: string }
  | { confined: false; refuse?: string };

export function parseSandboxMode(value: string): SandboxMode {
  if (value === "auto" || value === "on" || value === "off") return value;
  throw new Error(`--sandbox must be auto, on or off (got ${JSON.stringify(value)})`);
}

const cache = new Map<string, SandboxAvailability>();

/** Detect (once per process) whether a working sandbox exists on this machine. */
export function detectSandbox(platform: NodeJS.Platform = process.platform): SandboxAvailability {
  const hit = cache.get(platform);
  if (hit) return hit;
  const found = detectUncached(platform);
  cache.set(platform, found);
  return found;
}

/** `name` on PATH, else in a system bin directory, else null: for what runs inside the sandbox (bwrap itself: hostProgram). */
export function locateProgram(name: string, path: string = process.env.PATH ?? ""): string | null {
  return Bun.which(name, { PATH: path }) ?? SYSTEM_BIN_DIRS.map((d) => `${d}/${name}`).find((p) => existsSync(p)) ?? null;
}

function detectUncached(platform: NodeJS.Platform): SandboxAvailability {
  if (platform === "linux") {
    const bwrap = hostProgram("bwrap");
    if (!bwrap) return { kind: null, reason: "bubblewrap (bwrap) is not installed" };
    const probe = probeBubblewrap(bwrap);
    return probe.ok ? { kind: "bubblewrap", program: bwrap } : { kind: null, program: bwrap, reason: probe.reason };
  }
  if (platform === "darwin") {
    if (!existsSync(SANDBOX_EXEC)) return { kind: null, reason: `${SANDBOX_EXEC} is missing` };
    const probe = Bun.spawnSync([SANDBOX_EXEC, "-p", "(version 1)(allow default)", "/usr/bin/true"], { stdout: "ignore", stderr: "ignore" });
    return probe.exitCode === 0
      ? { kind: "seatbelt", program: SANDBOX_EXEC }
      : { kind: null, reason: "sandbox-exec cannot apply a profile here" };
  }
  return { kind: null, reason: `no sandbox is supported on ${platform}` };
}

/** How to get a sandbox, in one sentence. */
export function installHint(avail: SandboxAvailability, platform: NodeJS.Platform = process.platform): string {
  if (platform === "linux" && !avail.program) {
    return "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap)";
  }
  if (platform === "linux") {
    return "allow unprivileged user namespaces (Ubuntu 24.04+: an AppArmor profile for bwrap, or sysctl kernel.apparmor_restrict_unprivileged_userns=0; in a container: run it with user namespaces or seccomp allowed)";
  }
  if (platform === "darwin") return "sandbox-exec ships with macOS; check that /usr/bin/sandbox-exec works";
  return "run bunker on Linux or macOS for a sandbox";
}

export function planSandbox(mode: SandboxMode, avail: SandboxAvailability): SandboxPlan {
  if (mode === "off") return { confined: false };
  if (avail.kind && avail.program) return { confined: true, kind: avail.kind, program: avail.program };
  if (mode === "on") {
    return {
      confined: false,
      refuse: `commands must run in a sandbox (--sandbox on), but none is available: ${avail.reason ?? "unknown reason"}. To fix it, ${installHint(avail)}; or run bunker with --sandbox off (or auto) to run approved commands unconfined.`,
    };
  }
  return { confined: false };
}

/** The one line shown at start-up when commands will run unconfined, or null. */
export function sandboxStartupNotice(mode: SandboxMode, avail: SandboxAvailability, platform: NodeJS.Platform = process.platform): string | null {
  if (mode === "off" || avail.kind) return null;
  const what = mode === "on"
    ? "run_bash will refuse to run commands"
    : "approved commands will run without OS confinement, and every command asks (even ls)";
  return `No sandbox for commands: ${avail.reason ?? "unavailable"}; ${what}. To fix it, ${installHint(avail, platform)}.`;
}

/** `argv` wrapped in the planned sandbox (unchanged when unconfined). */
export function confine(plan: SandboxPlan, spec: SandboxSpec, argv: string[], tmpDir: string): string[] {
  if (!plan.confined) return argv;
  if (plan.kind === "bubblewrap") {
    const args = bubblewrapArgs(spec, argv, plan.program);
    // Sharing the machine's network shares its abstract Unix sockets too (X11, a session bus): Landlock scopes them off.
    return spec.allowNet && canScopeAbstractSockets() ? scopedArgv(args) : args;
  }
  return seatbeltArgs(spec, argv, tmpDir);
}
