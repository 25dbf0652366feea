// The files a deny-read rule matched, remembered from one session to the
// next (denied-files.ts keeps them for a session). A command of session 1
// that moved a denied file out of its rule's reach (`mv secrets/prod.key
// notes/x`) left it readable to session 2, which knew only what its rules
// matched. Kept in bunker's state folder (hidden from every command, so none
// can make bunker forget), one small file per workspace: each identity with
// the rule that matched it (a rule the person drops frees its files), and
// when it was last seen; at most MAX_KEPT, none older than KEEP_MS.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRegularSync } from "../fs/file-kind.ts";

/** Most identities kept for one workspace (the oldest seen go first): a rule matching more is refused anyway (2 000 a command). */
export const MAX_KEPT = 5_000;
/** How long an identity no session has seen is kept. */
export const KEEP_MS = 90 * 86_400_000;
/** The file is read up to this size (MAX_KEPT entries fit well inside it); a larger one is not read. */
const MAX_BYTES = 2 * 1024 * 1024;

/** One remembered file: the rule that matched it, its identity (device:inode:birth), when it was last seen (ms). */
export type Remembered = [rule: string, id: string, seen: number];

/** The memory file of workspace `root` (a real path) in the state folder. */
export function deniedMemoryFile(stateDir: string, root: string): string {
  return join(stateDir, "denied-files", `${new Bun.CryptoHasher("sha256").update(root).digest("hex").slice(0, 16)}.json`);
}

/** What the file remembers, none past KEEP_MS; nothing when it is missing, unreadable or not bunker's shape. */
export function readRemembered(file: string, now = Date.now()): Remembered[] {
  let text: string;
  try {
    const got = readRegularSync(file, file, { max: MAX_BYTES });
    if (!got) return [];
    text = got.bytes.toString("utf8");
  } catch {
    return [];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const entries = (parsed as { entries?: unknown }).entries;
  if (!Array.isArray(entries)) return [];
  return entries.filter((e): e is Remembered => Array.isArray(e) && e.length === 3 && typeof e[0] === "string" && typeof e[1] === "string" && typeof e[2] === "number" && now - e[2] <= KEEP_MS);
}

/**
 * Writes `entries` (this session's, seen now) with what the file held for other rules, the newest MAX_KEPT of them,
 * whole or not at all (a new file renamed over the old). A state folder that cannot be written: nothing kept.
 */
export function writeRemembered(file: string, entries: Remembered[], now = Date.now()): void {
  const byKey = new Map<string, Remembered>();
  for (const e of [...readRemembered(file, now), ...entries]) byKey.set(`${e[0]}\0${e[1]}`, e);
  const kept = [...byKey.values()].sort((a, b) => b[2] - a[2]).slice(0, MAX_KEPT);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(tmp, JSON.stringify({ entries: kept }), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // A read-only state folder: this session remembers them, the next does not.
  }
}
