// At start, in this workspace: an interrupted commit (bunker was killed while
// writing) is put right and said in one line; then the journal's place for
// this run's commits.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../config.ts";
import { recoverCommits } from "../fs/transaction.ts";
import type { ChangeEnv } from "./change-set.ts";

/** The journal folder beside the session store: bunker's state directory, never the workspace. */
export function journalDirOf(sessionsPath: string): string {
  return join(dirname(sessionsPath), "journal");
}

export function startChanges(config: Pick<Config, "root" | "sessionsPath">, say: (line: string) => void): ChangeEnv {
  const journalDir = journalDirOf(config.sessionsPath);
  // No journal folder (no commit was ever made from this state directory): nothing to recover, and recoverCommits'
  // code (2 KB of bytecode, linked on its first call) is not run for it.
  if (existsSync(journalDir)) for (const line of recoverCommits(journalDir, config.root)) say(line);
  return { journalDir };
}
