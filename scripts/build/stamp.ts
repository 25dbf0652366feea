// What a build embeds: the package.json version and the git commit.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface Stamp {
  version: string;
  /** Short commit hash, with "-dirty" when tracked files had changes; "unknown" outside git. */
  commit: string;
}

function git(root: string, args: string[]): string | undefined {
  const r = Bun.spawnSync(["git", ...args], { cwd: root, stdout: "pipe", stderr: "ignore" });
  return r.exitCode === 0 ? r.stdout.toString().trim() : undefined;
}

export function readStamp(root: string): Stamp {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown };
  if (typeof pkg.version !== "string" || pkg.version === "") {
    throw new Error(`package.json in ${root} has no "version" string`);
  }
  const head = git(root, ["rev-parse", "--short=12", "HEAD"]);
  if (!head) return { version: pkg.version, commit: "unknown" };
  const dirty = git(root, ["status", "--porcelain", "--untracked-files=no"]);
  return { version: pkg.version, commit: dirty ? `${head}-dirty` : head };
}
