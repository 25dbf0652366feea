// How much each of a sandbox's in-memory folders may hold. Its private /tmp,
// /var/tmp, /run, home and /dev/shm are tmpfs: memory (or swap) of the
// person's machine, unbounded unless told, so a command writing to /tmp could
// take the machine's memory. Together they may hold half of it, as the
// kernel's own default for a single tmpfs: /tmp and the home (a build's
// scratch files, the go-build and npm caches) a fifth each, /var/tmp and
// /dev/shm a twentieth each, /run 16 MiB (sockets and pid files). Linux only:
// macOS gives each command a TMPDIR on disk.
import { totalmem } from "node:os";

const MiB = 1024 * 1024;

export interface TmpfsSizes {
  tmp: number;
  varTmp: number;
  run: number;
  home: number;
  shm: number;
}

/** The sizes in bytes (whole MiB, at least 1) for a machine with `memoryBytes` of memory. */
export function tmpfsSizes(memoryBytes: number = totalmem()): TmpfsSizes {
  const part = (fraction: number) => Math.max(MiB, Math.floor((memoryBytes * fraction) / MiB) * MiB);
  return { tmp: part(1 / 5), varTmp: part(1 / 20), run: 16 * MiB, home: part(1 / 5), shm: part(1 / 20) };
}

/** The size of the private folder at `path` (`home`: the spec's home), or undefined for another path. */
export function tmpfsSizeOf(path: string, home: string | undefined, sizes: TmpfsSizes): number | undefined {
  if (path === "/tmp") return sizes.tmp;
  if (path === "/var/tmp") return sizes.varTmp;
  if (path === "/run") return sizes.run;
  if (path === "/dev/shm") return sizes.shm;
  if (home !== undefined && path === home) return sizes.home;
  return undefined;
}

/** A size as a person reads it: "3.2 GB", "800 MB", "16 MB". */
export function shownSize(bytes: number): string {
  if (bytes >= 1024 * MiB) return `${(bytes / (1024 * MiB)).toFixed(1).replace(/\.0$/, "")} GB`;
  return `${Math.round(bytes / MiB)} MB`;
}
