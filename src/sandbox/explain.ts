// When a sandboxed command fails on a path, one line that says what the
// sandbox shows and which flag shows more: the model can then ask the person
// instead of retrying, and the person knows what to pass.
import { isAbsolute, join, normalize, relative, resolve } from "node:path";
import { isWithin } from "../perms/workspace.ts";
import { shellQuote } from "../shell/quote.ts";
import { isSocket } from "./sockets.ts";
import { keptHomeShown, sandboxMounts, shownAs, type Mount, type SandboxSpec } from "./spec.ts";
import { shownSize, tmpfsSizes } from "./tmpfs-sizes.ts";
import { processLimits } from "./process-limits.ts";

/** What a command sees, in one phrase. */
export function describeView(spec: SandboxSpec): string {
  const ws = spec.workspaceLinkedAs
    ? `the workspace (read-only: ${spec.workspaceLinkedAs} in the person's home leads to it)`
    : spec.writesDenied
    ? `the workspace and every folder granted for writing (read-only: ${spec.writesDeniedBy ? `writes to ${spec.writesDeniedBy} are denied` : "a bare --deny-write"})`
    : spec.workspaceReadOnly
    ? "the workspace and every folder granted for writing (read-only, as this command only reads)"
    : `the workspace (read-write; ${spec.gitWritable ? ".bunker and .git's config, hooks and info/" : ".git and .bunker"} read-only)`;
  return `${ws}, the system and toolchain directories and git's config (read-only), what the person granted (--allow-read, --allow-write), ${homePhrase(spec)} and a private /tmp; nothing else of this machine`;
}

/** The home a command has: the empty in-memory one, or the workspace's own kept between commands (kept-home.ts). */
function homePhrase(spec: SandboxSpec): string {
  return keptHomeShown(spec) ? "a private empty home whose package caches (~/.cache/pip, ~/.npm/_cacache, …) are the workspace's own, kept between its commands" : "a private empty home";
}

/** A failure that names a path: where the path is, as the program printed it. */
const FAILURE = /No such file or directory|Permission denied|Operation not permitted|cannot access|cannot open|not found|Connection refused/;
const PATH_WORD = /(?:^|[\s'"`:(=])((?:\/|\.\.\/|~\/)[^\s'"`:),]*)/g;

/**
 * The one-line note for the first path the output says could not be reached
 * that the sandbox does not show (or hides, or replaces with a private
 * empty directory), or null.
 */
export function pathNote(output: string, spec: SandboxSpec, home: string = spec.home ?? "", mounts: Mount[] = sandboxMounts(spec)): string | null {
  for (const line of output.split("\n")) {
    if (!FAILURE.test(line)) continue;
    for (const m of line.matchAll(PATH_WORD)) {
      const word = m[1]!.replace(/[.;]+$/, "");
      const abs = word.startsWith("~/") ? (home ? `${home}/${word.slice(2)}` : null) : isAbsolute(word) ? word : resolve(spec.root, word);
      if (!abs) continue;
      const seen = shownAs(mounts, abs);
      const flagPath = shellQuote(abs);
      const grant = `the person can show it with --allow-read=${flagPath} (read-only) or --allow-write=${flagPath}`;
      const view = `The sandbox shows commands ${describeView(spec)}.`;
      if (seen === "absent") return `${view} ${abs} is not among them: ${grant}. Do not retry; ask the person.`;
      if (seen === "hidden" && isSocket(abs)) return `${abs} is a Unix socket, and the sandbox keeps commands from the sockets in the workspace and granted folders (a database's, tmux's, an agent's: whoever connects commands that program). Only a grant naming the socket itself lets commands connect to it: --allow-read=${flagPath}. Do not retry; ask the person.`;
      if (seen === "hidden") return `${view} ${abs} is hidden in it (it holds credentials, or reads there are denied): only a grant naming it shows it (--allow-read=${flagPath}). Do not retry; ask the person.`;
      if (seen === "private") {
        const where = abs === "/tmp" || abs.startsWith("/tmp/") || abs.startsWith("/var/tmp/") ? "/tmp is private: files in the machine's /tmp are not visible inside it. Work with files in the workspace instead" : `${abs} is in the private empty home, not the machine's: ${grant}`;
        return `${view} ${where}.`;
      }
    }
  }
  return null;
}

/**
 * Package caches inside the toolchain trees (read-only in the sandbox), and
 * the variable that points the toolchain at another cache for one command.
 */
const TOOLCHAIN_CACHES: { dir: string; variable: string }[] = [
  { dir: ".bun/install/cache", variable: "BUN_INSTALL_CACHE_DIR" },
  { dir: ".cargo/registry", variable: "CARGO_HOME" },
  { dir: ".cargo/git", variable: "CARGO_HOME" },
  { dir: "go/pkg/mod", variable: "GOMODCACHE" },
  { dir: ".rustup", variable: "RUSTUP_HOME" },
];

/**
 * When a write failed because it went to a toolchain's directory (a package
 * cache: `bun install`, `cargo build` fetching): which flag makes it
 * writable, what that costs, and the other way. Null when the output names
 * no such path.
 */
export function toolchainWriteNote(output: string, spec: SandboxSpec, home: string = spec.home ?? "", mounts: Mount[] = sandboxMounts(spec)): string | null {
  if (!/Read-only file system|EROFS|os error 30/.test(output)) return null;
  for (const m of output.matchAll(PATH_WORD)) {
    const word = m[1]!.replace(/[.;]+$/, "").replace(/(.)\/+$/, "$1");
    const abs = word.startsWith("~/") ? (home ? `${home}/${word.slice(2)}` : null) : isAbsolute(word) ? word : null;
    if (!abs || shownAs(mounts, abs) !== "ro") continue;
    const tree = (spec.toolchains ?? []).find((t) => isWithin(t, abs));
    if (!tree) continue;
    const cache = home ? TOOLCHAIN_CACHES.find((c) => isWithin(join(home, c.dir), abs)) : undefined;
    const grant = cache ? join(home, cache.dir) : abs;
    const own = `${cache?.variable}=/tmp/${cache?.variable.toLowerCase()} (gone when it ends)`;
    const other = cache ? ` Or the command can use a cache of its own, e.g. ${own} or a folder in the workspace.` : "";
    return `${abs} is in ${tree}, a toolchain's directory, which the sandbox shows read-only so that a command cannot change the packages and programs the person's other projects use. ` +
      `The person can make it writable with --allow-write=${grant} (commands here can then change what is in it).${other} Do not retry as it is.`;
  }
  return null;
}

/** A line that says a path was busy: EBUSY, which removing or renaming a mount point gives. */
const BUSY = /Device or resource busy|EBUSY|resource busy/i;
/** A path as programs quote it: 'x', "x", ‘x’, `x'. */
const QUOTED = /['"‘`]([^'"’`\n]+)['"’]/g;

/**
 * Whether the output says a path was busy that is one of the sandbox's read-only mounts (a hook, .envrc or venv
 * program mounted read-only cannot be removed or renamed over): the sandbox blocked that write. A busy device, a
 * file another program holds, or a mount of the person's own is not the sandbox's doing, and is not said to be.
 */
export function busyOnReadOnlyMount(output: string, spec: SandboxSpec, mounts: () => Mount[] = () => sandboxMounts(spec)): boolean {
  const lines = output.split("\n").filter((l) => BUSY.test(l));
  if (lines.length === 0) return false;
  const readOnly = mounts().filter((m) => m.kind === "ro" || m.kind === "copy" || m.kind === "mask" || (m.kind === "empty" && !m.writable)).map((m) => m.path);
  for (const line of lines) {
    for (const m of line.matchAll(QUOTED)) {
      const word = m[1]!;
      if (readOnly.includes(resolve(spec.root, word))) return true;
      // Relative to a folder the command went into (`cd .venv && rm bin/pip`): a read-only mount in the workspace that ends with it.
      const rel = normalize(word).replace(/\/+$/, "");
      if (!isAbsolute(word) && !rel.startsWith("..") && readOnly.some((p) => isWithin(spec.root, p) && p.endsWith(`/${rel}`))) return true;
    }
  }
  return false;
}

/**
 * When a write ran out of space: the sandbox's private folders are in memory and limited (tmpfs-sizes.ts), which a
 * command sees only as "No space left on device"; say how much each holds and where large files go. Null otherwise.
 */
export function spaceNote(output: string, spec: SandboxSpec, platform: NodeJS.Platform = process.platform): string | null {
  // On macOS a command's TMPDIR is on disk: nothing of the sandbox's is in memory there.
  if (platform !== "linux" || !/No space left on device|ENOSPC|os error 28/.test(output)) return null;
  const s = tmpfsSizes(spec.memoryBytes);
  // The home is in memory (its kept caches are on disk: kept-home.ts).
  const home = spec.home ? `the home (${shownSize(s.home)}), ` : "";
  // The session's /tmp and /var/tmp (session-tmp.ts) are on disk, as the workspace is.
  const held = spec.sessionTmp ? `${spec.home ? `home (${shownSize(s.home)}), ` : ""}/dev/shm` : `/tmp (${shownSize(s.tmp)}), ${home}/var/tmp (${shownSize(s.varTmp)}), /dev/shm`;
  return `A write ran out of space. The sandbox's private ${held} (${shownSize(s.shm)}) and /run (${shownSize(s.run)}) are held in this machine's memory and limited, so that a command cannot fill it; ` +
    "the workspace is on disk: put large files there (a build's temporary files with TMPDIR=$PWD/.tmp, a cache with XDG_CACHE_HOME=$PWD/.cache). Do not retry as it is.";
}

/** What runtimes say when an allocation fails. */
const OUT_OF_MEMORY = /MemoryError|Cannot allocate memory|ENOMEM|insufficient memory|[Oo]ut of memory|std::bad_alloc|heap out of memory|memory allocation of \d+ bytes failed|failed to allocate|fatal error: runtime: cannot allocate/;

/**
 * When an allocation failed: each sandboxed process may hold at most half this machine's memory (process-limits.ts),
 * which a command sees only as its runtime's "out of memory" (the new user: `java -Xms13g` with 22 GB free). Null otherwise.
 */
export function memoryNote(output: string, spec: SandboxSpec, platform: NodeJS.Platform = process.platform): string | null {
  if (platform !== "linux" || !OUT_OF_MEMORY.test(output)) return null;
  const limit = (spec.limits ?? processLimits(undefined, spec.memoryBytes)).dataBytes;
  return `An allocation failed. bunker limits each sandboxed process to ${shownSize(limit)} of memory (half of this machine's), so that one command cannot take it all; the person can run a command that needs more themselves. Do not retry as it is.`;
}

/** A write refused (read-only, or busy: a mount point renamed over), in one line of a command's output. */
const REFUSED_WRITE = /Read-only file system|EROFS|os error 30|Device or resource busy|EBUSY|resource busy/i;

/**
 * When a write failed on files the sandbox keeps read-only because the person's own tools run them later (a hook, a
 * script it runs, the app code that script imports): which files, why each (as the walk found it), and what changes it.
 * The generic note said only "files other tools run later, such as .envrc, .husky/…" and suggested --allow-write,
 * which does not help (reviewer's R12-23: src/config.js, imported by a hook's script, refused with no reason). Null
 * when the output names no such file.
 */
export function runsLaterNote(output: string, spec: SandboxSpec, command = ""): string | null {
  const state = spec.repositories;
  if (!state) return null;
  const found = new Map<string, string>();
  const look = (text: string) => {
    for (const m of text.matchAll(/[^\s'"`‘’:(),;|&<>]+/g)) {
      const word = m[0].replace(/[.;]+$/, "");
      if (found.size >= 5 || (!word.includes("/") && !word.includes("."))) continue;
      const abs = isAbsolute(word) ? normalize(word) : resolve(spec.root, word);
      if (found.has(abs) || !state.laterFiles.has(abs)) continue;
      found.set(abs, (state.laterWhy?.(abs) ?? "runs later").replace(/^[\s,]+/, ""));
    }
  };
  const refused = output.split("\n").filter((line) => REFUSED_WRITE.test(line));
  for (const line of refused) look(line);
  // A tool that names only its own temporary file (`sed -i`: "cannot rename src/sedXYZ: Device or resource busy"):
  // the files the command names that are read-only.
  if (found.size === 0 && refused.length > 0) look(command);
  if (found.size === 0) return null;
  const one = found.size === 1;
  const files = [...found].map(([p, why]) => `${relative(spec.root, p) || p} (${why})`).join("; ");
  return `The sandbox blocked a write: it keeps ${one ? "this file" : "these files"} read-only to commands because the person's own tools run ${one ? "it" : "them"} later on this machine, outside the sandbox: ${files}. ` +
    `No --allow-write flag makes ${one ? "it" : "them"} writable to commands. ` +
    `Change ${one ? "it" : "them"} with the file tools (edit_file, write_file: the person sees and approves each change); a tool that must rewrite ${one ? "it" : "them"} (a formatter, a codemod) is for the person to run. ` +
    `${one ? "It stays" : "They stay"} read-only while what runs ${one ? "it" : "them"} does (a hook, a config, a script importing ${one ? "it" : "them"}): the person can change that. Do not retry the command as it is.`;
}

const boundsSaid = new Set<string>();
/**
 * Once a session: the bounds bunker's look for what hooks and configs run stopped at (git-guard.ts), and that what
 * lies past them stays writable to commands like other project code, so a command could change code a hook runs at
 * the next commit. A person's repository makes it this large, not a command; it is said rather than kept silent
 * (bounded.ts; the reviewer's note on MAX_NAMED and MAX_IMPORTING). Null once said, or when nothing was cut.
 */
export function boundsNote(cut: readonly string[] | undefined): string | null {
  const fresh = (cut ?? []).filter((c) => !boundsSaid.has(c));
  if (fresh.length === 0) return null;
  for (const c of fresh) boundsSaid.add(c);
  return `note: bunker keeps what the person's git hooks and configs run read-only to commands, but its look stopped at its bounds here: ${fresh.join("; ")} stays writable to commands like other project code, so a hook would run a command's change there at the next commit: review changes there (git diff) before committing.`;
}
