// A writer process for the atomic-write kill test: rewrites one file forever
// with self-describing versions until it is killed. With --plain it writes
// the way a naive program does (truncate, then write in chunks), so the test
// can show that its check does catch torn files.
import { closeSync, openSync, writeSync } from "node:fs";
import { writeFileAtomic } from "../../src/fs/atomic-write.ts";
import { versionContent } from "./atomic-version.ts";

const [path, mode] = process.argv.slice(2);
if (!path) throw new Error("usage: atomic-writer.ts PATH [--plain]");
process.stdout.write("ready\n");
for (let v = 1; ; v++) {
  const bytes = new TextEncoder().encode(versionContent(v));
  if (mode !== "--plain") {
    writeFileAtomic(path, bytes);
    continue;
  }
  const fd = openSync(path, "w");
  for (let off = 0; off < bytes.length; off += 64 * 1024) writeSync(fd, bytes, off, Math.min(64 * 1024, bytes.length - off));
  closeSync(fd);
}
