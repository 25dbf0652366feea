// Whole-directory snapshots for byte-for-byte comparisons in patch tests.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Every file (exact bytes, as a latin1 string) and every directory ("<dir>") under `root`, by relative path. */
export function readTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(root)) return out;
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out[r + "/"] = "<dir>";
        walk(join(dir, e.name), r);
      } else out[r] = readFileSync(join(dir, e.name)).toString("latin1");
    }
  };
  walk(root, "");
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Make `dest` hold exactly what `src` holds (src may be missing: empty). */
export function resetTree(src: string, dest: string): void {
  for (const e of readdirSync(dest)) rmSync(join(dest, e), { recursive: true, force: true });
  if (existsSync(src)) cpSync(src, dest, { recursive: true });
}

/** A fresh temp workspace holding `files` (path → content), directories made as needed. */
export function workspaceWith(files: Record<string, string | Uint8Array>, prefix = "bunker-ws-"): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), c);
  }
  return root;
}
