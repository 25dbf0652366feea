// The table of workspace escape attempts, shared by every path-taking tool's
// tests: a workspace next to an "outside" directory and a sibling whose name
// shares the root's prefix (/…/ws vs /…/ws2), with links pointing out.
// `snapshot()` records everything outside the workspace so a test can assert
// that nothing there was read into a result or written.
import { afterAll, beforeAll, test } from "bun:test";
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { tempDir, unseenDir } from "./context.ts";

export const SECRET = "top secret content 7f3a";

export interface EscapeFixture {
  base: string;
  /** The workspace root (realpath'd). */
  root: string;
  outside: string;
  /** `${root}2`: shares the root's prefix, is not inside it. */
  sibling: string;
  /** Real files outside the workspace that exist (for read-before-write setup). */
  outsideFiles: string[];
  /** Everything under `base` except the workspace, plus the real files the table names. */
  snapshot(): Map<string, string>;
  cleanup(): void;
}

export interface EscapeAttempt {
  name: string;
  path: (f: EscapeFixture) => string;
  /** A fragment the error must contain (case-insensitive). */
  expect: RegExp;
  /**
   * Names a real file of this machine (/etc/passwd, ~/.ssh/id_rsa). Tests must
   * not say yes to everything for these rows: a broken resolver would then
   * really write there. Use no grants and an approver that refuses (a broken
   * policy then shows up as a question asked, and still writes nothing).
   */
  realFile?: boolean;
}

const OUTSIDE = /outside the workspace/i;

export const ESCAPE_ATTEMPTS: EscapeAttempt[] = [
  { name: "../x", path: () => "../x", expect: OUTSIDE },
  { name: "../outside/secret.txt", path: () => "../outside/secret.txt", expect: OUTSIDE },
  { name: "/etc/passwd", path: () => "/etc/passwd", expect: OUTSIDE, realFile: true },
  { name: "~/.ssh/id_rsa", path: () => "~/.ssh/id_rsa", expect: OUTSIDE, realFile: true },
  { name: "symlinked file pointing outside", path: () => "linkfile", expect: OUTSIDE },
  { name: "file in a symlinked dir pointing outside", path: () => "linkdir/secret.txt", expect: OUTSIDE },
  { name: "new file in a symlinked dir pointing outside", path: () => "linkdir/new.txt", expect: OUTSIDE },
  { name: "link chain", path: () => "chain1", expect: OUTSIDE },
  { name: "dangling link whose target is outside", path: () => "dangling", expect: OUTSIDE },
  { name: "a/../../x", path: () => "a/../../x", expect: OUTSIDE },
  { name: "NUL byte", path: () => "a\0b", expect: /NUL byte/i },
  { name: "300-character name", path: () => "n".repeat(300), expect: /too long/i },
  { name: "sibling dir sharing the root's prefix (relative)", path: () => "../ws2/file.txt", expect: OUTSIDE },
  { name: "sibling dir sharing the root's prefix (absolute)", path: (f) => join(f.sibling, "file.txt"), expect: OUTSIDE },
  // `..` after a link: the kernel follows the link first, then goes up from where it led.
  // The innocent links `self -> .`, `sub/here -> .` and `sub/up -> ..` all stay inside.
  { name: "link/.. (self -> .)", path: () => "self/../outside/secret.txt", expect: OUTSIDE },
  { name: "link/.. naming the parent itself", path: () => "self/../outside", expect: OUTSIDE },
  { name: "link/link/../..", path: (f) => `self/self/../../${basename(f.base)}/outside/secret.txt`, expect: OUTSIDE },
  { name: "link/link/link/link/../../../../etc/passwd", path: () => "self/self/self/self/../../../../etc/passwd", expect: OUTSIDE, realFile: true },
  { name: "link to / (slash -> /)", path: () => "slash/etc/passwd", expect: OUTSIDE, realFile: true },
  { name: "link to /, then ..", path: () => "slash/../etc/passwd", expect: OUTSIDE, realFile: true },
  { name: "link to a sibling of the workspace", path: () => "sib/file.txt", expect: OUTSIDE },
  { name: "link/.. into the sibling sharing the root's prefix", path: () => "self/../ws2/file.txt", expect: OUTSIDE },
  { name: "dangling link, then ..", path: () => "dangling/../outside/secret.txt", expect: OUTSIDE },
  { name: ".. after a link inside sub/ (sub/here -> .)", path: () => "sub/here/../../outside/secret.txt", expect: OUTSIDE },
  { name: ".. after a link to the root inside sub/ (sub/up -> ..)", path: () => "sub/up/../outside/secret.txt", expect: OUTSIDE },
  { name: "absolute path through link/..", path: (f) => join(f.root, "self") + "/../outside/secret.txt", expect: OUTSIDE },
];

/**
 * One test per row, over one fixture made before the enclosing block's tests
 * and removed after them: `run` tries the row and checks its result. Returns
 * the fixture, for further tests in the same block.
 */
export function eachEscape(run: (f: EscapeFixture, row: EscapeAttempt) => Promise<void>): () => EscapeFixture {
  let f: EscapeFixture;
  beforeAll(() => {
    f = makeEscapeFixture();
  });
  afterAll(() => f.cleanup());
  for (const row of ESCAPE_ATTEMPTS) test(row.name, () => run(f, row));
  return () => f;
}

/** `unseen`: under a directory no sandbox shows (not /tmp, which is private inside it), for running the table in the sandbox. */
export function makeEscapeFixture(opts: { unseen?: boolean } = {}): EscapeFixture {
  const base = opts.unseen ? unseenDir("bunker-escape-") : tempDir("bunker-escape-");
  const root = join(base, "ws");
  const outside = join(base, "outside");
  const sibling = join(base, "ws2");
  for (const d of [root, outside, sibling, join(root, "a")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(outside, "secret.txt"), SECRET);
  writeFileSync(join(sibling, "file.txt"), SECRET);
  writeFileSync(join(root, "inside.txt"), "inside\n");
  symlinkSync(join(outside, "secret.txt"), join(root, "linkfile"));
  symlinkSync("../outside", join(root, "linkdir"));
  symlinkSync("chain2", join(root, "chain1"));
  symlinkSync("../outside/secret.txt", join(root, "chain2"));
  symlinkSync("../outside/created-by-escape", join(root, "dangling"));
  // Innocent links a repository may ship: each alone stays inside.
  mkdirSync(join(root, "sub"));
  symlinkSync(".", join(root, "self"));
  symlinkSync("/", join(root, "slash"));
  symlinkSync("../ws2", join(root, "sib"));
  symlinkSync(".", join(root, "sub", "here"));
  symlinkSync("..", join(root, "sub", "up"));

  const named = ["/etc/passwd", join(homedir(), ".ssh", "id_rsa")];
  return {
    base,
    root,
    outside,
    sibling,
    outsideFiles: [join(outside, "secret.txt"), join(sibling, "file.txt")],
    snapshot() {
      const out = new Map<string, string>();
      walk(base, out, root);
      for (const p of named) out.set(p, describeEntry(p));
      return out;
    },
    cleanup() {
      rmSync(base, { recursive: true, force: true });
    },
  };
}

function walk(dir: string, out: Map<string, string>, skip: string): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (p === skip) continue;
    out.set(p, describeEntry(p));
    if (lstatSync(p).isDirectory()) walk(p, out, skip);
  }
}

function describeEntry(p: string): string {
  try {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return `link -> ${readlinkSync(p)}`;
    if (st.isDirectory()) return `dir ${st.mode.toString(8)}`;
    return `file ${st.mode.toString(8)} ${Bun.hash(readFileSync(p)).toString(16)}`;
  } catch {
    return "absent";
  }
}
