// Run inside `unshare --mount` (a mount namespace of its own, as root): makes a
// read-only mount and a full disk in DIR for real, and prints as JSON what
// bunker says about each: the write precheck on the read-only mount, a commit
// on the full disk, and the session store on the full disk.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commitFiles, TransactionError } from "../../src/fs/transaction.ts";
import { writeProblem } from "../../src/fs/writable.ts";
import { SessionStore } from "../../src/session/store.ts";

const dir = process.argv[2]!;
const mount = (...args: string[]) => {
  const r = Bun.spawnSync(["mount", ...args]);
  if (r.exitCode !== 0) throw new Error(`mount ${args.join(" ")}: ${r.stderr}`);
};
const ro = join(dir, "ro");
const full = join(dir, "full");
mkdirSync(ro, { recursive: true });
mkdirSync(full, { recursive: true });
mount("--make-rprivate", "/");
mount("-t", "tmpfs", "-o", "size=1m", "tmpfs", ro);
writeFileSync(join(ro, "a.txt"), "a\n");
mount("-o", "remount,ro", ro);
mount("-t", "tmpfs", "-o", "size=256k", "tmpfs", full);
const store = SessionStore.open(join(full, "state", "sessions.db"));
store.close();
// Fill the disk to the last block.
try {
  writeFileSync(join(full, "filler"), new Uint8Array(1024 * 1024));
} catch {
  // ENOSPC: full now
}
let commit = "";
try {
  commitFiles([{ kind: "write", path: join(full, "b.txt"), data: "x".repeat(64 * 1024) }]);
} catch (err) {
  commit = err instanceof TransactionError ? err.message : String(err);
}
let session = "";
let opened: SessionStore | undefined;
try {
  opened = SessionStore.open(join(full, "state", "sessions.db"));
  opened.save("abcdefghij", { root: "/w", model: "m" }, { messages: [{ role: "user", content: "x".repeat(200_000) }], todos: [] }, null);
} catch (err) {
  // What the person is told: the open's own words, or a failed save's as the session recorder says it.
  session = opened ? opened.explain(err) : String((err as Error).message);
}
process.stdout.write(JSON.stringify({ existing: writeProblem(join(ro, "a.txt"), "a.txt"), created: writeProblem(join(ro, "new.txt"), "new.txt"), commit, session }));
