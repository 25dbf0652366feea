// Under --allow-write=.git a command writes the object store as well as the
// refs, and the person's git trusts what is there without checking it: a pack
// whose index gives a real blob's id to other bytes, so the next checkout of
// .husky/pre-commit writes those (red team 11's F16); a loose object rewritten
// in place; a commit-graph that gives the person's own commit another tree, so
// a cherry-pick brings a hook (F14); an alternates file that lends objects from
// a folder the command fills. git-history.ts judges what the refs gained; this
// looks at the objects themselves. After the command: a cache git can rebuild
// or do without (commit-graph, multi-pack-index, bitmaps, reverse indexes) that
// the command wrote is removed; a pack it wrote is verified by host git (each
// object hashed) and set aside when it fails; a loose object it wrote must hash
// to its name or is set aside; an alternates file it changed is put back. A
// command that touched nothing there costs a look at the pack and info folders
// and a stat of each loose object (a file rewritten in place moves no folder's
// time, only its own change time).
import { existsSync, lstatSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { readRegularSync } from "../fs/file-kind.ts";
import { hostProgram } from "./host-program.ts";
import { folderNames } from "../perms/run-entry.ts";
import { setAside } from "./git-guard.ts";

/** Past this many loose objects, only those in folders that gained a file are checked (git gc packs them: said once). */
export const MAX_LOOSE = 20_000;
/** The alternates files: objects git takes from elsewhere as its own. */
const ALTERNATES = ["info/alternates", "info/http-alternates"];
/** What git keeps beside packs and commits to go faster, and rebuilds or does without. */
const CACHE = /^(info\/commit-graph|info\/commit-graphs(\/.*)?|pack\/multi-pack-index|pack\/multi-pack-index\.d(\/.*)?|pack\/.*\.(bitmap|rev|mtimes))$/;

/** The object store of a granted git directory before a command. */
export interface ObjectsBefore {
  /** The git directory (for host git) and its objects folder (a linked worktree's common one). */
  gitDir: string;
  objects: string;
  /** When it was looked at: a loose object whose inode changed since then is the command's (or what it ran). */
  at: number;
  /** Each file under info/ and pack/ (relative to `objects`) by size, times and inode. */
  files: Map<string, string>;
  /** The alternates files' bytes (null: none). */
  alternates: Map<string, Buffer | null>;
  /** Each loose-object folder (two hex digits) by kind and inode: one swapped for another holds files of any age. */
  folders: Map<string, string>;
}

function signature(path: string): string | null {
  try {
    const st = lstatSync(path);
    return `${st.isSymbolicLink() ? "l" : st.isDirectory() ? "d" : "f"}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
  } catch {
    return null;
  }
}

/** Every file below `dir` (relative to `base`), with its signature. */
function filesBelow(base: string, dir: string, into: Map<string, string>, depth = 0): void {
  for (const name of folderNames(join(base, dir))) {
    const rel = `${dir}/${name}`;
    const sig = signature(join(base, rel));
    if (sig === null) continue;
    into.set(rel, sig);
    if (sig.startsWith("d:") && depth < 2) filesBelow(base, rel, into, depth + 1);
  }
}

/** The objects folder a git directory uses: its own, or the common one a linked worktree's `commondir` names. */
export function objectsDirOf(gitDir: string): string {
  try {
    const got = readRegularSync(join(gitDir, "commondir"), "commondir", { max: 4096 });
    const common = got?.bytes.toString("utf8").trim();
    if (common) return join(common.startsWith("/") ? common : join(gitDir, common), "objects");
  } catch {
    // none: the git directory's own
  }
  return join(gitDir, "objects");
}

function readSmall(path: string): Buffer | null {
  try {
    return readRegularSync(path, path, { max: 1024 * 1024 })?.bytes ?? null;
  } catch {
    return null;
  }
}

export function objectsBefore(gitDir: string, now = Date.now()): ObjectsBefore {
  const objects = objectsDirOf(gitDir);
  const files = new Map<string, string>();
  filesBelow(objects, "info", files);
  filesBelow(objects, "pack", files);
  const alternates = new Map<string, Buffer | null>();
  for (const a of ALTERNATES) alternates.set(a, readSmall(join(objects, a)));
  const folders = new Map<string, string>();
  for (const d of folderNames(objects)) {
    if (d.length !== 2 || !isHex(d)) continue;
    const sig = folderSignature(join(objects, d));
    if (sig !== null) folders.set(d, sig);
  }
  return { gitDir, objects, at: now, files, alternates, folders };
}

/** The object stores of these git directories (those that are folders), each once (linked worktrees share theirs). */
export function objectStoresBefore(gitDirs: readonly string[]): ObjectsBefore[] {
  const out: ObjectsBefore[] = [];
  for (const g of gitDirs) {
    if (!existsSync(join(g, "objects")) && !existsSync(join(g, "commondir"))) continue;
    const o = objectsBefore(g);
    if (!out.some((x) => x.objects === o.objects)) out.push(o);
  }
  return out;
}

/** What the command did to the object store that git would trust: undone, set aside or removed, each said in one line. */
export function objectsAfter(before: ObjectsBefore, root: string): string[] {
  const { objects } = before;
  const lines: string[] = [];
  const shown = (rel: string) => relative(root, join(objects, rel)) || rel;

  for (const [a, was] of before.alternates) {
    const now = readSmall(join(objects, a));
    const changed = was === null ? existsSync(join(objects, a)) || now !== null : now === null || !now.equals(was);
    if (!changed) continue;
    try {
      if (was === null) rmSync(join(objects, a), { force: true, recursive: true });
      else writeFileSync(join(objects, a), was);
      lines.push(`bunker put back ${shown(a)}, which the command ${was === null ? "made" : "changed"}: git would have taken objects from the folders it names as this repository's own`);
    } catch (e) {
      lines.push(`bunker could not put back ${shown(a)}, which the command changed (${(e as Error).message}): check it before using git here`);
    }
  }

  const after = new Map<string, string>();
  filesBelow(objects, "info", after);
  filesBelow(objects, "pack", after);
  const packsToVerify: string[] = [];
  for (const [rel, sig] of after) {
    if (before.files.get(rel) === sig || sig.startsWith("d:")) continue;
    if (CACHE.test(rel)) {
      rmSync(join(objects, rel), { force: true, recursive: true });
      lines.push(`bunker removed ${shown(rel)}, which the command wrote: git reads commits and objects through it without checking them, and works without it (git rebuilds it when it needs it)`);
      continue;
    }
    if (rel.startsWith("pack/") && (rel.endsWith(".idx") || rel.endsWith(".pack"))) {
      const idx = rel.endsWith(".idx") ? rel : `${rel.slice(0, -".pack".length)}.idx`;
      if (!packsToVerify.includes(idx)) packsToVerify.push(idx);
    }
  }
  for (const idx of packsToVerify) {
    const pack = `${idx.slice(0, -".idx".length)}.pack`;
    const verdict = existsSync(join(objects, idx)) && existsSync(join(objects, pack)) ? verifyPack(join(objects, idx), join(objects, pack)) : "fails";
    if (verdict === "verifies") continue;
    if (verdict === "unchecked") {
      // Never set aside on a check that did not finish: a pack `git gc` rewrote is the repository's whole history (reviewer's R11-13).
      lines.push(`bunker did not verify ${shown(pack)}, which the command wrote (over ${MAX_VERIFIED_PACK / 1048576} MB, or it took too long): before a checkout or cherry-pick in this repository, run git verify-pack ${shown(idx)}`);
      continue;
    }
    for (const rel of [idx, pack]) {
      if (!existsSync(join(objects, rel))) continue;
      lines.push(setAside(root, join(objects, rel), `${shown(rel)}, which the command wrote and which does not verify (git verify-pack): git would have taken its objects for the ones their ids name`));
    }
  }

  lines.push(...looseAfter(before, root));
  return lines;
}

/**
 * The largest pack verified after a command: the check runs before the command's result is shown, and a `git gc`
 * of a large repository writes one of hundreds of MB (2 min to verify under load, the REPL waiting: reviewer's R11-17).
 * A larger one is kept, with a line saying to verify it before a checkout.
 */
const MAX_VERIFIED_PACK = 16 * 1024 * 1024;
const VERIFY_MS = 15_000;

/**
 * `git verify-pack` on the host (it hashes every object and checks the index against the pack), outside any
 * repository (run from /: no repository's config, hooks or replace refs are read). "unchecked" when it could not run
 * or did not finish in its time: only a check that finished and failed sets a pack aside.
 */
function verifyPack(idx: string, pack: string): "verifies" | "fails" | "unchecked" {
  const git = hostProgram("git");
  if (!git) return "unchecked";
  let size = 0;
  try {
    size = lstatSync(pack).size;
  } catch {
    return "fails";
  }
  if (size > MAX_VERIFIED_PACK) return "unchecked";
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", LC_ALL: "C" };
  const r = Bun.spawnSync([git, "verify-pack", idx], { cwd: "/", env, stdin: "ignore", stdout: "ignore", stderr: "ignore", timeout: VERIFY_MS });
  if (r.exitCode === 0) return "verifies";
  return r.exitCode === null || r.signalCode ? "unchecked" : "fails";
}

/** A loose-object folder's kind and inode ("d:INODE", "l:INODE" for a link), or null when it is not there. */
function folderSignature(path: string): string | null {
  try {
    const st = lstatSync(path);
    return `${st.isDirectory() ? "d" : st.isSymbolicLink() ? "l" : "f"}:${st.ino}`;
  } catch {
    return null;
  }
}

/**
 * Loose objects written since `before.at` (a new one, or one rewritten in place): each must hash to its name. A
 * folder that was not there before, or is another folder now (renamed into place), is checked whole: a rename keeps
 * the change time of the files in it, so objects forged by an earlier command in a folder no check looks at kept
 * theirs, older than this command (red team 12's F01). A folder that is now a link, which git never makes, is set aside.
 */
function looseAfter(before: ObjectsBefore, root: string): string[] {
  const { objects } = before;
  const lines: string[] = [];
  const dirs = folderNames(objects).filter((d) => d.length === 2 && isHex(d));
  let seen = 0;
  let capped = false;
  for (const d of dirs) {
    const dir = join(objects, d);
    const sig = folderSignature(dir);
    if (sig === null) continue;
    const replaced = sig !== before.folders.get(d);
    if (replaced && !sig.startsWith("d:")) {
      lines.push(setAside(root, dir, `${relative(root, dir) || d}, which the command made a link or a file (git makes a folder there): git would have read the objects where it leads as this repository's own`));
      continue;
    }
    const names = folderNames(dir);
    seen += names.length;
    if (seen > MAX_LOOSE && !capped) capped = true;
    // Past the cap, a folder no file was added to (and not swapped for another) is not looked in.
    if (capped && !replaced && lstatSync(dir).mtimeMs < before.at) continue;
    for (const name of names) {
      if (!isHex(name) || (name.length !== 38 && name.length !== 62)) continue;
      const path = join(dir, name);
      let st;
      try {
        st = lstatSync(path);
      } catch {
        continue;
      }
      if (!replaced && st.ctimeMs < before.at) continue;
      const rel = `${d}/${name}`;
      if (!st.isFile() || !looseObjectIsWhatItsNameSays(path, d + name)) {
        lines.push(setAside(root, path, `${relative(root, path) || rel}, which the command wrote: its bytes are not the object its name says (git would have taken them for that object)`));
      }
    }
  }
  if (capped) lines.push(`this repository has more than ${MAX_LOOSE} loose objects: bunker checked only those in folders the command added to (git gc packs them)`);
  return lines;
}

function isHex(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** A loose object's zlib stream inflates to "TYPE SIZE\0…", whose SHA-1 (40 hex) or SHA-256 (64) is its id. */
export function looseObjectIsWhatItsNameSays(path: string, id: string): boolean {
  try {
    const raw = readFileSync(path);
    const inflated = Bun.inflateSync(raw, { windowBits: 15 });
    const nul = inflated.indexOf(0);
    if (nul < 0 || nul > 32) return false;
    const header = new TextDecoder().decode(inflated.subarray(0, nul));
    const [type, size] = header.split(" ");
    if (!["blob", "tree", "commit", "tag"].includes(type ?? "") || Number(size) !== inflated.length - nul - 1) return false;
    const hasher = new Bun.CryptoHasher(id.length === 64 ? "sha256" : "sha1");
    return hasher.update(inflated).digest("hex") === id;
  } catch {
    return false;
  }
}
