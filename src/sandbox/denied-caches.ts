// A deny-read file whose bytes a data tool keeps a copy of, by hash, outside the file's own path: DVC's cache
// (`dvc add data/secret.csv` copies it to .dvc/cache/files/md5/XX/REST, DVC 2 to .dvc/cache/XX/REST, and keeps every
// earlier version there too). The mask on the file hides its path, not that copy: `grep -r . .dvc/cache` read it.
// The same class as git's object store and Git LFS's and git-annex's stores (denied-history.ts): a store of tracked
// files' contents by hash. Which entry holds which version cannot be told from the path, and earlier versions are
// named only in history, so the store is hidden whole: each cache of the DVC project a denied file is in, when
// DVC tracks that file (a NAME.dvc for it or a folder holding it) or the cache holds its bytes as they are now.
import { readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { readRegularSync } from "../fs/file-kind.ts";
import { isWithin } from "../perms/workspace.ts";

/** Past this size a file's bytes are not hashed (its .dvc file still counts). */
const MAX_HASHED_BYTES = 64 * 1024 * 1024;
/** Most denied files looked at (a secret is a few files; past it, each DVC project met is hidden as unknown). */
const MAX_FILES = 2_000;

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
const isFile = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/** The DVC project `file` is in: the nearest folder above it with a .dvc folder, at most up to `/`. */
function projectOf(file: string): string | null {
  for (let d = dirname(file); ; d = dirname(d)) {
    if (isDir(join(d, ".dvc"))) return d;
    if (dirname(d) === d) return null;
  }
}

/** A project's caches: .dvc/cache, and the `dir` its config's [cache] section names (config, then config.local). */
export function dvcCaches(project: string): string[] {
  const dotDvc = join(project, ".dvc");
  const out = [join(dotDvc, "cache")];
  for (const name of ["config", "config.local"]) {
    let text: string;
    try {
      text = readFileSync(join(dotDvc, name), "utf8");
    } catch {
      continue;
    }
    let section = "";
    for (const line of text.split("\n")) {
      const head = /^\s*\[\s*([^\]]+?)\s*\]/.exec(line);
      if (head) section = head[1]!.replace(/\s+/g, " ").toLowerCase();
      const dir = section === "cache" ? /^\s*dir\s*=\s*(.+?)\s*$/.exec(line) : null;
      if (dir) out.push(resolve(dotDvc, dir[1]!.replace(/^["']|["']$/g, "")));
    }
  }
  return [...new Set(out)];
}

/** Whether DVC tracks `file` in `project`: a NAME.dvc beside it or beside a folder holding it. */
function tracked(file: string, project: string): boolean {
  for (let p = file; p !== project && isWithin(project, p); p = dirname(p)) if (isFile(`${p}.dvc`)) return true;
  return false;
}

/** Whether a cache holds `file`'s bytes as they are now (md5-named: DVC 3's files/md5/XX/REST, DVC 2's XX/REST). */
function cached(file: string, caches: readonly string[]): boolean {
  let bytes: Buffer;
  try {
    const got = readRegularSync(file, basename(file), { max: MAX_HASHED_BYTES });
    if (!got) return false;
    bytes = got.bytes;
  } catch {
    return false;
  }
  const forms = [bytes];
  // DVC 2 hashed text files with CRLF made LF.
  if (bytes.includes("\r\n")) forms.push(Buffer.from(bytes.toString("latin1").replaceAll("\r\n", "\n"), "latin1"));
  return forms.some((b) => {
    const md5 = new Bun.CryptoHasher("md5").update(b).digest("hex");
    return caches.some((c) => isFile(join(c, "files", "md5", md5.slice(0, 2), md5.slice(2))) || isFile(join(c, md5.slice(0, 2), md5.slice(2))));
  });
}

/**
 * The content caches to hide for these denied files (paths the rules name and the files their globs match): each
 * cache of the DVC project a file is in, when DVC tracks it or the cache holds its bytes. Never a cache that holds
 * `root` (a cache.dir set to a folder above the workspace is no cache to hide the workspace with).
 */
export function deniedCaches(files: readonly string[], root: string): string[] {
  const out = new Set<string>();
  const projects = new Map<string, string[]>();
  const list = files.slice(0, MAX_FILES);
  for (const file of list) {
    const project = projectOf(file);
    if (project === null) continue;
    let caches = projects.get(project);
    if (!caches) projects.set(project, (caches = dvcCaches(project).filter((c) => isDir(c) && !isWithin(c, root))));
    if (caches.every((c) => out.has(c))) continue;
    if (files.length > MAX_FILES || tracked(file, project) || cached(file, caches)) for (const c of caches) out.add(c);
  }
  return [...out];
}
