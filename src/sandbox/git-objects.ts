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
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { removeEntry, replaceFile } from "../fs/no-follow.ts";
import { join, relative } from "node:path";
import { readRegularSync } from "../fs/file-kind.ts";
import { hostProgram } from "./host-program.ts";
import { folderNames } from "../perms/run-entry.ts";
import { setAside } from "./git-guard.ts";

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
export async function objectsAfter(before: ObjectsBefore, root: string, opts: { progress?: (line: string) => void; signal?: AbortSignal } = {}): Promise<string[]> {
  const { objects } = before;
  const lines: string[] = [];
  const shown = (rel: string) => relative(root, join(objects, rel)) || rel;

  for (const [a, was] of before.alternates) {
    const now = readSmall(join(objects, a));
    const changed = was === null ? existsSync(join(objects, a)) || now !== null : now === null || !now.equals(was);
    if (!changed) continue;
    try {
      // Never through a link the command left there (no-follow.ts).
      if (was === null) removeEntry(join(objects, a), { recursive: true });
      else replaceFile(join(objects, a), was);
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
      removeEntry(join(objects, rel), { recursive: true });
      lines.push(`bunker removed ${shown(rel)}, which the command wrote: git reads commits and objects through it without checking them, and works without it (git rebuilds it when it needs it)`);
      continue;
    }
    if (rel.startsWith("pack/") && (rel.endsWith(".idx") || rel.endsWith(".pack"))) {
      const idx = rel.endsWith(".idx") ? rel : `${rel.slice(0, -".pack".length)}.idx`;
      if (!packsToVerify.includes(idx)) packsToVerify.push(idx);
    }
  }
  // Packs an earlier check of which was interrupted: checked now, where they still are (reviewer's R12-17).
  const pending = unfinished.get(objects);
  unfinished.delete(objects);
  for (const idx of pending ?? []) if (!packsToVerify.includes(idx) && existsSync(join(objects, idx))) packsToVerify.push(idx);
  for (const idx of packsToVerify) {
    const pack = `${idx.slice(0, -".idx".length)}.pack`;
    const verdict = existsSync(join(objects, idx)) && existsSync(join(objects, pack)) ? await verifyPack(join(objects, idx), join(objects, pack), shown(pack), opts) : "fails";
    if (verdict === "verifies") continue;
    // Ctrl+C while it verifies reads as "stop waiting", not "take my history away" (reviewer's R12-17: a `git gc`'s
    // pack, the whole history, was set aside): an unfinished check is not a failed one. The pack stays where it is,
    // unverified, said as such, and is checked again after the next command (set aside then if it fails).
    if (verdict === "interrupted") {
      const left = unfinished.get(objects) ?? new Set<string>();
      left.add(idx);
      unfinished.set(objects, left);
      lines.push(`bunker left ${shown(pack)}, which the command wrote, where it is, NOT VERIFIED: its check (git verify-pack) was interrupted. bunker checks it again after the next command and sets it aside if it fails; until then do not use git here on what it holds (checkout, cherry-pick, merge), and if you end the session first, check it with: git verify-pack ${shown(idx)}`);
      continue;
    }
    // Not kept unverified at any size (reviewer's R11-18: a forged pack padded past the old 16 MB limit was): a check
    // that ran out of its time sets the pack aside too (one built to take long would otherwise stay), with how to check
    // it and put it back (a `git gc`'s pack verifies well inside its time: VERIFY_MS_PER_MB).
    const why = verdict === "fails" ? "which does not verify (git verify-pack)" : `which bunker could not verify (git verify-pack did not finish in its time; check it with git verify-pack ${shown(idx)}.bunker-set-aside before putting it back)`;
    for (const rel of [idx, pack]) {
      if (!existsSync(join(objects, rel))) continue;
      lines.push(setAside(root, join(objects, rel), `${shown(rel)}, which the command wrote and ${why}: git would have taken its objects for the ones their ids name`));
    }
  }

  lines.push(...looseAfter(before, root));
  return lines;
}

/** Each object store's packs whose check was interrupted (Ctrl+C): left in place, checked again after the next command. */
const unfinished = new Map<string, Set<string>>();

/**
 * How long `git verify-pack` may take for a pack the command wrote: a base and a time per MB. It hashes every object
 * (resolving deltas): about 12 MB/s for a pack of 1.2 million small objects (a 300,000-commit history), about 50 MB/s
 * for large blobs, on two busy cores. The time allowed is five to twenty times that; past it (a pack built to take
 * long, a delta chain that inflates to gigabytes) the pack is set aside. It runs without holding up the REPL
 * (reviewer's R11-17: it ran synchronously, up to 15 s), with a line saying so when the pack is large.
 */
const VERIFY_BASE_MS = 15_000;
const VERIFY_MS_PER_MB = 500;
/** The time allowed for a pack of `size` bytes (BUNKER_VERIFY_PACK_MS sets it whole: tests). */
function verifyLimitMs(size: number): number {
  const set = Number(process.env.BUNKER_VERIFY_PACK_MS);
  return process.env.BUNKER_VERIFY_PACK_MS && Number.isFinite(set) && set > 0 ? set : VERIFY_BASE_MS + (size / 1048576) * VERIFY_MS_PER_MB;
}
/** From this size on, the person is told bunker is verifying (it takes a second or more). */
const SAY_VERIFYING_BYTES = 16 * 1024 * 1024;

/**
 * `git verify-pack` on the host (it hashes every object and checks the index against the pack), outside any
 * repository (run from /: no repository's config, hooks or replace refs are read). "unchecked" when it could not run
 * or did not finish in its time, "interrupted" when the person stopped it.
 */
async function verifyPack(idx: string, pack: string, shown: string, opts: { progress?: (line: string) => void; signal?: AbortSignal }): Promise<"verifies" | "fails" | "unchecked" | "interrupted"> {
  const git = hostProgram("git");
  if (!git) return "unchecked";
  let size = 0;
  try {
    size = lstatSync(pack).size;
  } catch {
    return "fails";
  }
  if (size >= SAY_VERIFYING_BYTES) opts.progress?.(`bunker is verifying ${shown} (${Math.round(size / 1048576)} MB), which the command wrote, before git here may read it…`);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", LC_ALL: "C" };
  const proc = Bun.spawn([git, "verify-pack", idx], { cwd: "/", env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, verifyLimitMs(size));
  // Ctrl+C while it verifies stops it; one that stopped the command before (the pack may be a finished fetch's) does not.
  const signal = opts.signal?.aborted ? undefined : opts.signal;
  const stop = () => proc.kill("SIGKILL");
  signal?.addEventListener("abort", stop, { once: true });
  try {
    const code = await proc.exited;
    if (signal?.aborted) return "interrupted";
    if (timedOut || proc.signalCode) return "unchecked";
    return code === 0 ? "verifies" : "fails";
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", stop);
  }
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
    // Every object file is looked at (a stat each, a hash for those changed): a folder's own times say nothing of a file
    // rewritten in place, and its owner sets them (a cap past which folders were skipped by their time was the command's
    // to reach with junk names and `touch -d`: red team 12's F08).
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
