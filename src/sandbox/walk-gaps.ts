// What the git wall's walk cannot see by name, and how it fails closed there
// (red team 5's F12). A folder it cannot list hides what is in it; a name
// that is not UTF-8 cannot be carried by a JavaScript string, so the decoded
// name opens nothing and cannot be named to the sandbox either. Before a
// command: an unlistable folder is mounted read-only whole, and a folder
// under a name that is not UTF-8 that holds anything the wall guards refuses
// the command. After it: an unlistable folder of the person's the command
// made or changed is made listable again (chmod u+rx); a name that is not
// UTF-8 the command made or renamed is set aside under a UTF-8 name; below an
// older one, what the command planted is set aside by its bytes.
import { chmodSync, existsSync, lstatSync, readdirSync, renameSync, type Stats } from "node:fs";

/** An entry whose name is not UTF-8, found in a folder the walk read (`dir`, itself nameable). */
export interface Undecodable {
  dir: string;
  name: Buffer;
  /** dev:ino: a new one, or one renamed in (`mv tools $'t\377'`), is not in the walk before; writes inside keep it. */
  id: string;
}

/** A folder the walk could not list or enter: its identity, whether the person owns it (then it can be made listable), and why. */
export interface Unlistable {
  path: string;
  id: string;
  owned: boolean;
  /** EACCES or EPERM (its mode: fixed by chmod), or another error (a path too long to open: not). */
  code: string;
}

/** The folder's mode keeps the walk out: chmod u+rx lets it in. */
const byMode = (u: Unlistable) => u.code === "EACCES" || u.code === "EPERM";

/** Names from readdir that came back with U+FFFD: their bytes, where they are not UTF-8 (a real U+FFFD is). */
export function undecodableNames(dir: string, names: readonly string[]): Buffer[] {
  if (!names.some((n) => n.includes("\ufffd"))) return [];
  try {
    return readdirSync(dir, { encoding: "buffer" }).filter((b) => !isUtf8(b));
  } catch {
    return [];
  }
}

/** The bytes are UTF-8 (decoding and encoding again gives them back). */
export function isUtf8(bytes: Buffer): boolean {
  return Buffer.from(bytes.toString("utf8"), "utf8").equals(bytes);
}

/** A folder's path and a name in it, as bytes. */
export function joinBytes(dir: string | Buffer, name: string | Buffer): Buffer {
  return Buffer.concat([typeof dir === "string" ? Buffer.from(dir) : dir, Buffer.from("/"), typeof name === "string" ? Buffer.from(name) : name]);
}

/** The identity (dev:ino) of a path given as bytes, or null when it is not there. */
export function bytesId(path: Buffer): string | null {
  try {
    const st = lstatSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/**
 * A path for the person's shell, byte for byte: ANSI-C quoted ($'t\377') when it is not plain; every byte that is
 * not printable ASCII as an octal escape, so nothing reaches the terminal that does not show itself.
 */
export function bytesQuote(path: Buffer): string {
  const text = path.toString("latin1");
  if (/^[\w./@%+=:,-]+$/.test(text)) return text;
  let out = "";
  for (const byte of path) {
    if (byte === 0x27 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\${byte.toString(8).padStart(3, "0")}`;
  }
  return `$'${out}'`;
}

/** A UTF-8 name for a name that is not: each byte that does not decode as %XX (`t\377` → `t%FF`). */
export function utf8Name(name: Buffer): string {
  let out = "";
  for (let i = 0; i < name.length; ) {
    let len = 0;
    for (let n = 1; n <= 4 && i + n <= name.length; n++) {
      const part = name.subarray(i, i + n);
      if (isUtf8(part) && !part.toString("utf8").includes("\ufffd")) {
        len = n;
        break;
      }
    }
    if (len === 0) {
      out += `%${name[i]!.toString(16).toUpperCase().padStart(2, "0")}`;
      i++;
    } else {
      out += name.subarray(i, i + len).toString("utf8");
      i += len;
    }
  }
  return out;
}

/** How far a folder under a name that is not UTF-8 is looked into (past it, it counts as holding something). */
const BYTE_WALK_ENTRIES = 20_000;

/**
 * What the wall would guard below a path it cannot name (`top`, bytes), by bytes: every `.git`, every folder git
 * takes for a repository (HEAD beside objects and refs, or a commondir), every file `later` matches by its decoded
 * name, every folder it cannot list, and the whole when it holds more than it looks through. Each with its identity.
 */
export function guardedBelow(top: Buffer, later: (decoded: string) => boolean): Map<string, { path: Buffer; id: string }> {
  const found = new Map<string, { path: Buffer; id: string }>();
  const add = (p: Buffer) => found.set(p.toString("hex"), { path: p, id: bytesId(p) ?? "gone" });
  let seen = 0;
  const walk = (dir: Buffer) => {
    let names: Buffer[];
    try {
      names = readdirSync(dir, { encoding: "buffer" });
    } catch {
      if (existsSync(dir)) add(dir);
      return;
    }
    const plain = new Set(names.map((n) => n.toString("utf8")));
    if (plain.has("HEAD") && ((plain.has("objects") && plain.has("refs")) || plain.has("commondir"))) add(dir);
    for (const name of names) {
      if (++seen > BYTE_WALK_ENTRIES) return void add(top);
      const p = joinBytes(dir, name);
      const st = lstatOrNull(p);
      if (!st) continue;
      const decoded = p.toString("utf8");
      if (name.toString("utf8").toLowerCase() === ".git" || later(decoded) || (st.isSymbolicLink() && later(`${decoded}/_`))) add(p);
      if (st.isDirectory()) walk(p);
    }
  };
  let st;
  try {
    st = lstatSync(top);
  } catch {
    return found;
  }
  if (st.isDirectory()) walk(top);
  else if (st.isSymbolicLink() && later(`${top.toString("utf8")}/_`)) add(top);
  return found;
}

/** An entry's lstat, or null when it is gone or cannot be looked at (the byte walks skip it). */
function lstatOrNull(p: Buffer): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/** Rename a path given as bytes to NAME.bunker-set-aside (or -2, -3…) beside it; the new path, as bytes. */
export function setAsideBytes(path: Buffer, asName?: string): Buffer {
  const slash = path.lastIndexOf(0x2f);
  const dir = path.subarray(0, slash);
  const base = asName ?? path.subarray(slash + 1).toString("utf8");
  let aside = joinBytes(dir, `${base}.bunker-set-aside`);
  for (let n = 2; bytesId(aside) !== null; n++) aside = joinBytes(dir, `${base}.bunker-set-aside-${n}`);
  renameSync(path, aside);
  return aside;
}

/** Make a folder the person owns listable and enterable again (u+rx), keeping its other bits. */
export function makeListable(path: string): void {
  chmodSync(path, (lstatSync(path).mode & 0o7777) | 0o500);
}

/** How many folders below one made listable are looked through in the same pass. */
const LISTABLE_PASS = 200_000;

/**
 * `path` made listable, and in the same pass every folder below it the person owns that is not (red team 6's F12k:
 * 70 nested folders set to 0311 took the walk after one round each). Links are not followed. The number made
 * listable below it.
 */
export function makeListableTree(path: string): number {
  makeListable(path);
  const uid = process.getuid?.();
  let fixed = 0;
  let seen = 0;
  const stack: Buffer[] = [Buffer.from(path)];
  while (stack.length > 0 && seen < LISTABLE_PASS) {
    const dir = stack.pop()!;
    let names: Buffer[];
    try {
      names = readdirSync(dir, { encoding: "buffer" });
    } catch {
      continue; // another user's, or gone: the walk says so
    }
    for (const name of names) {
      seen++;
      const p = joinBytes(dir, name);
      const st = lstatOrNull(p);
      if (!st) continue;
      if (!st.isDirectory()) continue;
      if ((st.mode & 0o500) !== 0o500 && st.uid === uid) {
        try {
          chmodSync(p, (st.mode & 0o7777) | 0o500);
          fixed++;
        } catch {
          // The walk finds it still unlistable and says so.
        }
      }
      stack.push(p);
    }
  }
  return fixed;
}

/** What one walk could not see (WorkspaceScan's part). */
export interface WalkGaps {
  unlistable: Unlistable[];
  undecodable: Undecodable[];
  /** Folders a walk stopped before, at its bound (MAX_DIRS folders): nothing in them was seen. */
  unwalked: string[];
}

/** More folders left unwalked than this are not mounted read-only one by one: the command is refused. */
const MAX_UNWALKED = 5_000;

/** What the person and the model are told when a walk before the command stopped at its bound, or null. */
export function unwalkedNote(gaps: Pick<WalkGaps, "unwalked">): string | null {
  const n = gaps.unwalked.length;
  if (n === 0) return null;
  return `note: bunker stopped looking for git repositories and files that run later at its bound of 200,000 folders, so the ${n.toLocaleString("en-US")} folder${n === 1 ? "" : "s"} it did not come to (${gaps.unwalked.slice(0, 3).map(quoted).join(", ")}${n > 3 ? ", …" : ""}) ${n === 1 ? "was" : "were"} read-only to this command. Remove what is not needed there (a command may have made it) to make ${n === 1 ? "it" : "them"} writable again.`;
}

/**
 * After a command, past the walk's bound (red team 6's F12g2: 200,001 folders the walk reaches first, an armed
 * repository behind them): what it did not come to is set aside. The walk takes the folders that were there before
 * first (`before`: path → dev:ino:ctime from the walk before), so what is left is the command's: for each folder not
 * walked, the topmost new folder holding it is renamed to NAME.bunker-set-aside (git and editors find nothing by the
 * old name). `unchecked`: folders not walked that hold nothing new to set aside (the person's own, past the bound).
 */
export function setAsideUnwalked(roots: readonly string[], unwalked: readonly string[], before: ReadonlyMap<string, string>): { lines: string[]; unchecked: string[] } {
  const root = roots[0]!;
  const isNew = (dir: string) => {
    const was = before.get(dir);
    const now = bytesId(Buffer.from(dir));
    return was === undefined || now === null || !was.startsWith(`${now}:`);
  };
  const tops = new Set<string>();
  const unchecked: string[] = [];
  for (const dir of unwalked) {
    const home = roots.filter((r) => dir === r || dir.startsWith(`${r}/`)).sort((a, b) => b.length - a.length)[0];
    if (!home) continue;
    let top: string | null = null;
    const parts = dir.slice(home.length + 1).split("/");
    for (let i = 1; i <= parts.length && top === null; i++) {
      const p = `${home}/${parts.slice(0, i).join("/")}`;
      if (isNew(p)) top = p;
    }
    if (top === null) unchecked.push(dir);
    else tops.add(top);
  }
  const lines: string[] = [];
  // Outermost first: one inside another goes with it.
  for (const top of [...tops].sort()) {
    if ([...tops].some((t) => t !== top && top.startsWith(`${t}/`))) continue;
    const shown = shownFrom(root, Buffer.from(top));
    try {
      const aside = shownFrom(root, setAsideBytes(Buffer.from(top)));
      lines.push(`bunker set aside ${shown}, which the command made and which its check did not reach (it stops at 200,000 folders): it is now ${aside}; to restore it after checking it: mv ${aside} ${shown}`);
    } catch (e) {
      unchecked.push(top);
      lines.push(`bunker could not set aside ${shown} (${(e as Error).message}), which the command made and which its check did not reach (it stops at 200,000 folders)`);
    }
  }
  return { lines, unchecked };
}

/** A path as the person's shell names it, every byte that does not show itself escaped (bytesQuote). */
const quoted = (path: string): string => bytesQuote(Buffer.from(path));

/** `path` (bytes) as the person's shell names it from the workspace folder `root`. */
function shownFrom(root: string, path: Buffer): string {
  const prefix = Buffer.from(`${root}/`);
  if (path.equals(Buffer.from(root))) return ".";
  return bytesQuote(path.subarray(0, prefix.length).equals(prefix) ? path.subarray(prefix.length) : path);
}

/**
 * Before a command: the folders the walk could not list are mounted read-only whole (`readOnly`); a writable root
 * it cannot list, or a path it cannot name that holds anything it guards, refuses the command (`refusal`, a
 * sentence that says which and how to fix it).
 */
export function gapsBefore(roots: readonly string[], gaps: WalkGaps, later: (decoded: string) => boolean): { readOnly: string[]; refusal: string | null } {
  const root = roots[0]!;
  // One its mode does not explain (a path too long to open): not even a read-only mount can name it.
  const unreadable = gaps.unlistable.find((u) => !byMode(u));
  if (unreadable) {
    return { readOnly: [], refusal: `bunker cannot look into ${shownFrom(root, Buffer.from(unreadable.path))} (${unreadable.code}), so it cannot keep what is in it read-only for commands; move or remove it (from a shell outside bunker), then run the command again.` };
  }
  const unlistedRoot = gaps.unlistable.find((u) => roots.includes(u.path));
  if (unlistedRoot) {
    const fix = unlistedRoot.owned ? `make it listable again (chmod u+rx ${bytesQuote(Buffer.from(unlistedRoot.path))})` : "it belongs to another user: ask them to make it listable, or grant another folder";
    return { readOnly: [], refusal: `bunker cannot list ${quoted(unlistedRoot.path)}, so it cannot find the git repositories in it to keep them read-only for commands; ${fix}, then run the command again.` };
  }
  for (const u of gaps.undecodable) {
    const top = joinBytes(u.dir, u.name);
    const hit = [...guardedBelow(top, later).values()][0];
    if (!hit) continue;
    return {
      readOnly: [],
      refusal: `bunker cannot keep ${shownFrom(root, hit.path)} read-only for commands: its path is not UTF-8, and bunker can name only UTF-8 paths to the sandbox. Rename the folder to a UTF-8 name (mv ${shownFrom(root, top)} NEW-NAME), then run the command again.`,
    };
  }
  // Past the walk's bound: read-only whole, or, when too many to mount one by one, the command is not run.
  if (gaps.unwalked.length > MAX_UNWALKED) {
    return { readOnly: [], refusal: `bunker stopped looking for git repositories in ${roots.map(quoted).join(", ")} at its bound of 200,000 folders, with ${gaps.unwalked.length.toLocaleString("en-US")} folders it did not come to: too many to keep read-only one by one. Remove what is not needed there (a command may have made it), or run bunker with --sandbox off.` };
  }
  return { readOnly: [...gaps.unlistable.map((u) => u.path), ...gaps.unwalked], refusal: null };
}

/**
 * After a command: what it hid from the walk, undone. An unlistable folder it made or changed is made listable
 * again (the person's; another user's is said); a name that is not UTF-8 it made or renamed is set aside under a
 * UTF-8 name; below one that was there before, what the command planted that the wall guards is set aside by its
 * bytes. `rescan`: the walk must look again (what was hidden is visible now). Never throws.
 */
export function gapsAfter(roots: readonly string[], before: WalkGaps, after: WalkGaps, later: (decoded: string) => boolean): { lines: string[]; rescan: boolean } {
  const root = roots[0]!;
  const lines: string[] = [];
  let rescan = false;
  const was = new Set([...before.unlistable.map((u) => u.id), ...before.undecodable.map((u) => `${joinBytes(u.dir, u.name).toString("hex")}\0${u.id}`)]);
  for (const u of after.unlistable) {
    // Unlistable before the command too, and unchanged (its mode and identity: moved with a folder around it or not):
    // it was read-only to the command (gapsBefore). (A path too long to open has no identity: it is said every time.)
    if (byMode(u) && was.has(u.id)) continue;
    const shown = shownFrom(root, Buffer.from(u.path));
    if (!byMode(u)) {
      lines.push(`bunker cannot look into ${shown} (${u.code}), so it cannot check what the command put there; later commands are refused until it is moved or removed. Before running git in it, look at what the command made.`);
      continue;
    }
    if (!u.owned) {
      lines.push(`bunker cannot list ${shown} (it belongs to another user), so it cannot check what the command put there; later commands see it read-only. Before running git in it, ask its owner to look.`);
      continue;
    }
    try {
      const below = makeListableTree(u.path);
      rescan = true;
      const inside = below > 0 ? `, and ${below.toLocaleString("en-US")} folder${below === 1 ? "" : "s"} inside it,` : "";
      lines.push(`bunker made ${shown}${inside} listable again (chmod u+rx): the command made ${below > 0 ? "them" : "it"} unlistable, which hides what is in ${below > 0 ? "them" : "it"} from bunker's check for what runs later.`);
    } catch (e) {
      lines.push(`bunker could not make ${shown} listable again (${(e as Error).message}), so it cannot check what the command put there: before running git in it, make it listable (chmod u+rx ${shown}) and look.`);
    }
  }
  for (const u of after.undecodable) {
    const path = joinBytes(u.dir, u.name);
    const shown = shownFrom(root, path);
    try {
      if (!was.has(`${path.toString("hex")}\0${u.id}`)) {
        const aside = setAsideBytes(path, utf8Name(u.name));
        rescan = true;
        const now = shownFrom(root, aside);
        lines.push(`bunker set aside ${shown}, which the command made or renamed and whose name is not UTF-8 (bunker cannot check what is in it by that name): it is now ${now}; to restore it after checking it: mv ${now} ${shown}`);
        continue;
      }
      // The person's own folder by a name bunker cannot name: nothing guarded was in it (else the command was refused).
      for (const hit of guardedBelow(path, later).values()) {
        const aside = setAsideBytes(hit.path);
        const [from, to] = [shownFrom(root, aside), shownFrom(root, hit.path)];
        lines.push(`bunker set aside ${to}, which the command made in a folder whose name is not UTF-8 (bunker cannot check or disarm it there): it is now ${from}; to restore it after checking it: mv ${from} ${to}`);
      }
    } catch (e) {
      lines.push(`bunker could not set aside ${shown} (${(e as Error).message}), whose name is not UTF-8: before running git in it or opening it in an editor, look at what the command made there.`);
    }
  }
  return { lines, rescan };
}
