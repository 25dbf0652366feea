// The release targets: which Bun runtime each binary is compiled against,
// the file name it gets in dist/, and whether this machine can run it.
import { existsSync } from "node:fs";

export interface Target {
  /** Bun's compile target, passed as `--target=bun-<id>`. */
  id: string;
  /** File name in dist/ and in the release (what install.sh downloads). */
  file: string;
  os: "linux" | "darwin" | "windows";
  arch: "x64" | "arm64";
  libc?: "glibc" | "musl";
}

export const RELEASE_TARGETS: readonly Target[] = [
  { id: "linux-x64", file: "bunker-linux-x64", os: "linux", arch: "x64", libc: "glibc" },
  { id: "linux-arm64", file: "bunker-linux-arm64", os: "linux", arch: "arm64", libc: "glibc" },
  { id: "linux-x64-musl", file: "bunker-linux-x64-musl", os: "linux", arch: "x64", libc: "musl" },
  { id: "darwin-x64", file: "bunker-darwin-x64", os: "darwin", arch: "x64" },
  { id: "darwin-arm64", file: "bunker-darwin-arm64", os: "darwin", arch: "arm64" },
  { id: "windows-x64", file: "bunker-windows-x64.exe", os: "windows", arch: "x64" },
];

/** The C library of the running process on Linux (Bun reports glibc's version like Node). */
export function hostLibc(): "glibc" | "musl" | undefined {
  if (process.platform !== "linux") return undefined;
  const report = process.report?.getReport?.() as { header?: { glibcVersionRuntime?: string } } | undefined;
  if (report?.header?.glibcVersionRuntime) return "glibc";
  return existsSync(`/lib/ld-musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`) ? "musl" : "glibc";
}

/** Whether a binary for `t` can be executed on this machine (same OS, CPU and C library). */
export function runsOnHost(t: Target): boolean {
  const os = process.platform === "win32" ? "windows" : process.platform;
  if (t.os !== os || t.arch !== process.arch) return false;
  return t.libc === undefined || t.libc === hostLibc();
}
