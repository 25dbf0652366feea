// Files in a writable root that share their data with files outside it (red
// team 8's F22). bun install (hard links by default on Linux), pnpm and uv
// fill node_modules and .venv with hard links to one global cache, and a
// local `git clone` hard-links its objects: appending to
// node_modules/is-number/index.js wrote the cache's inode, and every other
// project installed from it ran the command's code. A mount cannot cover
// them: a read-only bind per file costs bubblewrap 0.3 s for 250 files, 2 s
// for 1 000, 22 s for 2 900 (it caps near 3 000). So before each command
// every regular file in the writable roots whose other names are not all in
// them gets a copy of its own (hard-links.ts's ownCopy, holes kept), and the
// result says so. Bounded: a walk too big, or more to copy than a command
// may wait for, and the command is not run (fail closed), with what to do.
import { lstatSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { ownCopy } from "./hard-links.ts";
import { sandboxMounts, type SandboxSpec } from "./spec.ts";

export interface SharedLimits {
  /** Most files looked at for one command. */
  maxFiles: number;
  /** Longest the look may take. */
  budgetMs: number;
  /** Most data copied before one command (bytes on disk, holes left out). */
  maxBytes: number;
}

export const SHARED_LIMITS: SharedLimits = { maxFiles: 400_000, budgetMs: 3_000, maxBytes: 512 * 1024 * 1024 };

/** One file's data with its names in the walked roots, and how many names it has in all. */
interface Inode {
  names: string[];
  nlink: number;
  bytes: number;
}

export type SharedOutcome = { copied: string[]; bytes: number } | { refused: string };

const MB = 1024 * 1024;
const size = (n: number) => (n < 1024 ? `${n} bytes` : n < MB ? `${Math.ceil(n / 1024)} KB` : `${Math.ceil(n / MB)} MB`);

/**
 * Gives each regular file under `roots` that has a name outside them a copy of its own. `skip`: paths not looked
 * into (mounted read-only over the roots: their names cannot be written through).
 */
export function ownCopiesOfShared(roots: readonly string[], skip: ReadonlySet<string>, limits: SharedLimits = SHARED_LIMITS, watched: ReadonlySet<string> = new Set()): SharedOutcome {
  const inodes = new Map<string, Inode>();
  const started = performance.now();
  let files = 0;
  const why = "bunker gives a file in the folders commands may write that is a hard link to a file elsewhere (a package manager's global cache: bun, pnpm and uv install by hard links; a local git clone's objects) a copy of its own before each command, or a command writing it would change every other project using that cache";
  for (const root of roots) {
    const stack = [root];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue; // not a folder (a granted file: looked at below), gone, or unlistable (the git wall keeps those read-only)
      }
      for (const e of entries) {
        const p = join(dir, e.name);
        if (skip.has(p)) continue;
        if (e.isDirectory()) {
          stack.push(p);
          continue;
        }
        if (!e.isFile()) continue;
        if (++files > limits.maxFiles || ((files & 1023) === 0 && performance.now() - started > limits.budgetMs)) {
          const what = files > limits.maxFiles ? `more than ${limits.maxFiles} files` : `more files than it can look through in ${limits.budgetMs / 1000} s`;
          return { refused: `${why}; ${root} holds ${what}, too many to look through each time. To run it, start bunker in a smaller folder (-C DIR), or grant narrower folders.` };
        }
        let st;
        try {
          st = lstatSync(p);
        } catch {
          continue;
        }
        if (st.nlink < 2) continue;
        const key = `${st.dev}:${st.ino}`;
        const seen = inodes.get(key);
        if (seen) seen.names.push(p);
        else inodes.set(key, { names: [p], nlink: st.nlink, bytes: Math.min(st.size, st.blocks * 512) });
      }
    }
  }
  // A file git obeys with a name in the workspace (the person's hook linked to a tracked script) is the git wall's: it
  // disarms the hook when a command changes it (hard-links.ts), and the person's link stays.
  const shared = [...inodes.entries()].filter(([key, i]) => i.names.length < i.nlink && !watched.has(key)).map(([, i]) => i);
  const bytes = shared.reduce((n, i) => n + i.bytes * i.names.length, 0);
  if (bytes > limits.maxBytes) {
    const count = shared.reduce((n, i) => n + i.names.length, 0);
    return {
      refused: `${why}; ${count} such files here hold ${size(bytes)}, more than the ${size(limits.maxBytes)} it copies before a command. ` +
        "To run it, give them copies yourself: reinstall with copies instead of links (bun install --backend=copyfile; pnpm: package-import-method=copy; uv: UV_LINK_MODE=copy), or for a local clone's objects git repack -a -d.",
    };
  }
  const copied: string[] = [];
  for (const i of shared) {
    for (const p of i.names) {
      try {
        if (ownCopy(p, limits.maxBytes)) copied.push(p);
      } catch (e) {
        return { refused: `${why}; ${p} could not be copied (${(e as Error).message}), so the command is not run. Copy it yourself (cp --remove-destination or reinstall), then run it again.` };
      }
    }
  }
  return { copied, bytes };
}

/** The same for what `spec` lets a command write: its writable mounts, less what is mounted read-only inside them. */
export function ownCopiesForCommand(spec: SandboxSpec, platform: NodeJS.Platform = process.platform, limits: SharedLimits = SHARED_LIMITS): SharedOutcome {
  if (spec.workspaceReadOnly) return { copied: [], bytes: 0 };
  const mounts = sandboxMounts(spec, platform);
  const roots = mounts.filter((m) => m.kind === "rw").map((m) => m.path);
  const watched = new Set([...(spec.repositories?.linked.values() ?? [])].map((id) => id.split(":").slice(0, 2).join(":")));
  return ownCopiesOfShared(roots, new Set(mounts.map((m) => m.path)), limits, watched);
}

/** The first few copied files, as the person and the model are told them. */
function copiedShown(o: { copied: string[] }, root: string): string {
  return `${o.copied.slice(0, 3).map((p) => relative(root, p) || p).join(", ")}${o.copied.length > 3 ? ", …" : ""}`;
}

/** The person's line: which files are no longer the same file as their other names. */
export function ownCopiesLine(o: { copied: string[]; bytes: number }, root: string): string {
  const shown = copiedShown(o, root);
  return `${o.copied.length} hard-linked file${o.copied.length === 1 ? " was" : "s were"} given a copy of ${o.copied.length === 1 ? "its" : "their"} own before the command (${shown}): a change to ${o.copied.length === 1 ? "it" : "them"} no longer reaches ${o.copied.length === 1 ? "its other name" : "their other names"} outside the workspace`;
}

/** The line the command's result gets when files were given copies of their own. */
export function ownCopiesNote(o: { copied: string[]; bytes: number }, root: string): string | null {
  if (o.copied.length === 0) return null;
  const shown = copiedShown(o, root);
  return `bunker gave ${o.copied.length} file${o.copied.length === 1 ? "" : "s"} (${size(o.bytes)}) a copy of their own before the command: each was a hard link to a file outside the folders commands may write (a package manager's cache, another clone), which writing it would have changed too (${shown}).`;
}
