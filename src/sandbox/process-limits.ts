// How many processes and how much memory one sandboxed command may take,
// set inside the sandbox by util-linux's prlimit just before the command runs
// (Linux; without root, a cgroup needs a user systemd to ask, and a normal
// desktop may have none):
//   processes  RLIMIT_NPROC, 2048 + 128 a CPU. Counted per user namespace since Linux 5.14: set inside the
//              sandbox's own, it counts the sandbox's processes and threads only, not the person's (set
//              before bwrap it would count their browser's threads too, and refuse bwrap itself). Older
//              kernels count the person's: no limit there. Not enforced for root (the kernel exempts it).
//   memory     RLIMIT_DATA, half of this machine's memory, per process: a private writable mapping past it
//              fails (a 50 GB allocation gets ENOMEM). RLIMIT_AS would break JS runtimes and Go, which
//              reserve far more address space than they use; RLIMIT_DATA counts only what is writable.
// Together they stop a fork bomb and a runaway allocation. Shared memory (MAP_SHARED, memfd, SysV shm) is not
// counted by RLIMIT_DATA, and many processes each under it can still add up: only a cgroup bounds a total (docs/sandbox.md).
import { availableParallelism, release, totalmem } from "node:os";
import { readFileSync, realpathSync } from "node:fs";

export interface ProcessLimits {
  /** RLIMIT_NPROC for the command's user namespace, or null where it would count the person's processes. */
  processes: number | null;
  /** RLIMIT_DATA in bytes, per process. */
  dataBytes: number;
}

/** Whether a kernel release ("6.8.0-45-generic") counts RLIMIT_NPROC per user namespace (5.14 and later). */
export function nprocPerNamespace(kernel: string): boolean {
  const m = /^(\d+)\.(\d+)/.exec(kernel);
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 5 || (major === 5 && minor >= 14);
}

/** The limits for this machine (or the one described). */
export function processLimits(cpus: number = availableParallelism(), memoryBytes: number = totalmem(), kernel: string = release()): ProcessLimits {
  return { processes: nprocPerNamespace(kernel) ? 2048 + 128 * cpus : null, dataBytes: Math.floor(memoryBytes / 2) };
}

/** The soft and hard limits bunker runs under, from /proc/self/limits ("unlimited": Infinity); null when unreadable. */
export function currentLimit(name: "Max processes" | "Max data size", text: string | null = readLimits()): { soft: number; hard: number } | null {
  // Fixed columns: the name in 26, then the soft and hard limits.
  const line = text?.split("\n").find((l) => l.startsWith(`${name} `));
  const [soft, hard] = line?.slice(26).trim().split(/\s+/) ?? [];
  const value = (v: string | undefined) => (v === "unlimited" ? Infinity : Number(v));
  if (!Number.isFinite(value(soft)) && soft !== "unlimited") return null;
  if (!Number.isFinite(value(hard)) && hard !== "unlimited") return null;
  return { soft: value(soft), hard: value(hard) };
}

function readLimits(): string | null {
  try {
    return readFileSync("/proc/self/limits", "utf8");
  } catch {
    return null;
  }
}

/** One prlimit option: ours, never above what bunker itself runs under (a lower limit the person set stays). */
function option(flag: string, ours: number, current: { soft: number; hard: number } | null): string {
  const soft = Math.min(ours, current?.soft ?? Infinity);
  const hard = Math.min(ours, current?.hard ?? Infinity);
  return `--${flag}=${soft}:${hard}`;
}

/** `argv` started under the limits by prlimit (its path inside the sandbox). */
export function limitedArgv(prlimit: string, limits: ProcessLimits, argv: string[], limitsText: string | null = readLimits()): string[] {
  const opts = [option("data", limits.dataBytes, currentLimit("Max data size", limitsText))];
  if (limits.processes !== null) opts.unshift(option("nproc", limits.processes, currentLimit("Max processes", limitsText)));
  return [prlimit, ...opts, "--", ...argv];
}

let found: string | null | undefined;
/** util-linux's prlimit where the sandbox shows it (a system directory, or the Nix store it links into), or null. */
export function prlimitProgram(): string | null {
  if (found !== undefined) return found;
  const at = Bun.which("prlimit", { PATH: "/usr/bin:/bin:/usr/sbin:/sbin:/run/current-system/sw/bin" });
  try {
    found = at === null ? null : realpathSync(at);
  } catch {
    found = null;
  }
  return found;
}
