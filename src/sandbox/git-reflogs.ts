// Under --allow-write=.git a command writes reflogs, and the person's git obeys
// them (red team 11's F01): `stash@{0}` is the newest line of logs/refs/stash,
// `HEAD@{1}` and `B@{1}` lines of logs/HEAD and logs/refs/heads/B, and
// `git checkout -` the "moving from X" of logs/HEAD's last checkout line. A
// line appended there names any commit while no ref moves, so git-history.ts
// (which looks at refs) sees nothing; the person's `git stash pop`, `git reset
// --hard HEAD@{1}` or `git checkout -` then writes the commit's hook into their
// working tree. Reflogs cannot be read-only (git refuses to move a ref whose
// reflog it cannot append to), so they are looked at after the command: each
// line it added or changed that names a commit no ref held before or holds now
// is judged as a moved ref is, and removed when that commit brings a file the
// person's tools run later. The rest stays (a command's own commits and
// stashes keep their reflog).
import { isId } from "./git-ids.ts";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { removeEntry, replaceFile } from "../fs/no-follow.ts";
import { join, relative } from "node:path";
import { readSmallText, commondirTarget } from "../perms/gitfile.ts";
import { folderNames } from "../perms/run-entry.ts";
import { shellQuote } from "../shell/quote.ts";
import { hostGit, type RefsBefore } from "./git-history.ts";

/** Every reflog file of the git directories → its text, before the command. */
export type ReflogsBefore = Map<string, string>;

/** Most bytes of reflogs read per command (a repository's logs/HEAD grows by a line per move): past it, unread files are judged whole after. */
const MAX_BYTES = 32 * 1024 * 1024;

/** The logs folders of `gitDir`: its own, and its common directory's (a linked worktree keeps HEAD's log apart). */
function logsDirs(gitDir: string): string[] {
  const common = commondirTarget(readSmallText(join(gitDir, "commondir")));
  const dirs = [join(gitDir, "logs")];
  if (common) dirs.push(join(gitDir, common, "logs"));
  // The person's linked worktrees keep their own HEAD's reflog (`git checkout -` there reads it: red team 11's F01c).
  for (const w of linkedWorktrees(common ? join(gitDir, common) : gitDir)) dirs.push(join(w, "logs"));
  return dirs;
}

/** The git directories of a repository's linked worktrees (`.git/worktrees/NAME`). */
function linkedWorktrees(commonDir: string): string[] {
  return folderNames(join(commonDir, "worktrees")).map((w) => join(commonDir, "worktrees", w));
}


/** The reflog files under `dir` (regular files only: what a command made otherwise is judged after as new). */
function reflogFiles(dir: string, out: string[] = []): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    // What bunker set aside just before (a link the command left: git-links.ts) is no reflog of git's.
    if (e.isSymbolicLink() && e.name.includes(".bunker-set-aside")) continue;
    if (e.isDirectory()) reflogFiles(p, out);
    else out.push(p);
  }
  return out;
}

function readText(p: string): string | null {
  try {
    return lstatSync(p).isFile() ? readFileSync(p, "utf8") : null;
  } catch {
    return null;
  }
}

/** Before the command: the text of every reflog of the granted git directories. */
export function reflogsBefore(gitDirs: readonly string[]): ReflogsBefore {
  const out: ReflogsBefore = new Map();
  let bytes = 0;
  for (const g of gitDirs) {
    for (const f of logsDirs(g).flatMap((d) => reflogFiles(d))) {
      if (out.has(f)) continue;
      const text = bytes < MAX_BYTES ? readText(f) : null;
      if (text === null) continue;
      bytes += text.length;
      out.set(f, text);
    }
  }
  return out;
}

/** One reflog line: `OLD NEW who when zone<TAB>message`. */
interface Line {
  text: string;
  ids: string[];
  message: string;
}

const ZERO = /^0+$/;

function parseLine(text: string): Line {
  const tab = text.indexOf("\t");
  const head = tab === -1 ? text : text.slice(0, tab);
  const message = tab === -1 ? "" : text.slice(tab + 1);
  // Lower-cased: git reads A-F too (git-ids.ts), and what it prints is compared.
  const ids = head.split(" ").slice(0, 2).filter((w) => isId(w) && !ZERO.test(w)).map((w) => w.toLowerCase());
  return { text, ids, message };
}

/** The lines of `now` that `before` did not have (as many times as it had each: a line repeated is new too). */
function addedLines(before: string, now: string): string[] {
  const had = new Map<string, number>();
  for (const l of before.split("\n")) had.set(l, (had.get(l) ?? 0) + 1);
  const out: string[] = [];
  for (const l of now.split("\n")) {
    const n = had.get(l) ?? 0;
    if (n > 0) had.set(l, n - 1);
    else if (l.trim() !== "") out.push(l);
  }
  return out;
}

/** A checkout line's "moving from X" (what `git checkout -` goes back to): resolved by git to a commit id, if it names one. */
function checkoutFrom(gitDir: string, message: string, refs: Record<string, string>): string | null {
  // As git reads it for `git checkout -` (grab_nth_branch_switch): up to the first " to " (red team 12's F11: the
  // last one had been taken, so "moving from E to x to main" named no commit for bunker and E for git).
  const PREFIX = "checkout: moving from ";
  const to = message.startsWith(PREFIX) ? message.indexOf(" to ", PREFIX.length) : -1;
  if (to === -1) return null;
  const from = message.slice(PREFIX.length, to);
  // A branch's name: what it holds is judged as the branch (git-history.ts), git need not be asked.
  if (refs[`refs/heads/${from}`] !== undefined) return null;
  const id = hostGit(gitDir, ["rev-parse", "--verify", "-q", "--end-of-options", `${from}^{commit}`]);
  return id?.trim() || null;
}

/**
 * After the command: the reflog lines it added or changed in `before.gitDir`'s reflogs, each naming a commit no ref
 * held before nor holds now (its new or old id, or the commit a checkout line goes back to), judged by the runs-later
 * files (`laterWhy`) that commit brings: those its new commits change (merges against each parent, a stash's
 * untracked files too) and those its tree holds otherwise than HEAD's now. Such a line is removed, one sentence each
 * for the person and the model. A file git could not be asked about has its added lines removed all the same.
 */
export function reflogsAfter(worktree: string, before: RefsBefore, logs: ReflogsBefore, laterWhy: (path: string) => string | null, max = 20): string[] {
  const files = new Set([...logsDirs(before.gitDir).flatMap((d) => reflogFiles(d)).filter((f) => !logs.has(f) || logs.get(f) !== readText(f))]);
  // No reflog changed (most commands): no git asked.
  if (files.size === 0) return [];
  const now = hostGit(before.gitDir, ["for-each-ref", "--format=%(objectname)"]);
  const head = hostGit(before.gitDir, ["rev-parse", "--verify", "-q", "HEAD"])?.trim() ?? "";
  const known = new Set([...Object.values(before.refs), ...(now ?? "").split("\n").filter(Boolean), head].filter(Boolean));
  // The person's history: what the refs held before the command, and HEAD now. Not a ref the command made (a branch
  // it can delete in its next command, the forged line staying: reviewer's R11-19).
  const held = new Set([...Object.values(before.refs), head].filter(Boolean));
  const lines: string[] = [];
  for (const file of files) {
    const text = readText(file);
    const was = logs.get(file) ?? "";
    // Not a regular file now (a link to elsewhere): nothing of it is kept.
    const added = (text === null ? [] : addedLines(was, text)).map(parseLine);
    const named = added.map((l) => {
      const from = checkoutFrom(before.gitDir, l.message, before.refs);
      return { line: l, ids: [...l.ids, ...(from ? [from] : [])].filter((id) => !held.has(id)) };
    });
    // A commit a ref tip holds (an ancestor: the first of two commits, a rebase's picks) is held too (reviewer's R11-09).
    const unheld = unreachable(before.gitDir, [...new Set(named.flatMap((s) => s.ids))], [...held]);
    const suspects = named.map((s) => ({ ...s, ids: unheld === null ? s.ids : s.ids.filter((id) => unheld.has(id)) })).filter((s) => s.ids.length > 0);
    if (text !== null && suspects.length === 0) continue;
    const brought = now === null ? null : broughtLater(before.gitDir, worktree, [...new Set(suspects.flatMap((s) => s.ids))], [...known], head, laterWhy);
    const drop = suspects.filter((s) => brought === null || s.ids.some((id) => brought.has(id)));
    if (text !== null && drop.length === 0) continue;
    const kept = text === null ? null : removeLines(text, new Set(drop.map((d) => d.line.text)));
    const rel = relative(worktree, file);
    try {
      // A new file in place of the old one, through folders that are no links: nothing written through a link (no-follow.ts).
      if (kept === null) removeEntry(file);
      else replaceFile(file, kept);
    } catch (e) {
      lines.push(`bunker could not remove the reflog lines the command added to ${rel} (${(e as Error).message}): do not use git stash pop, HEAD@{1} or git checkout - before you look at it`);
      continue;
    }
    if (kept === null) {
      lines.push(`the command put something other than a file at ${rel}, where git reads a reflog from: bunker removed it`);
      continue;
    }
    for (const d of drop) {
      const id = d.ids.find((i) => brought?.has(i)) ?? d.ids[0]!;
      const why = brought?.get(id);
      lines.push(
        `bunker removed a line the command added to ${rel} naming commit ${id.slice(0, 12)}, which no ref holds` +
          (why ? ` and which brings ${why.path} (${why.why})` : " (git could not say what it holds)") +
          `: ${usedBy(rel)} would have written it into your working tree. To look at it: git --no-replace-objects show --stat ${id.slice(0, 12)}`,
      );
      if (lines.length >= max) return lines;
    }
  }
  return lines;
}

/** Of `ids`, the commits no ref in `known` reaches (null when git cannot say: each is then judged). */
function unreachable(gitDir: string, ids: string[], known: string[]): Set<string> | null {
  if (ids.length === 0) return new Set();
  const out = hostGit(gitDir, ["rev-list", "--stdin"], undefined, [...ids.map((id) => `${id}\n`), ...known.map((k) => `^${k}\n`)].join(""));
  if (out === null) return null;
  const reached = new Set(out.split("\n").filter(Boolean));
  return new Set(ids.filter((id) => reached.has(id)));
}

/** What reads a reflog, in the person's words. */
function usedBy(rel: string): string {
  if (rel.endsWith("logs/refs/stash")) return "git stash pop or git stash apply";
  if (rel.endsWith("logs/HEAD")) return "git reset --hard HEAD@{1}, git checkout - or git switch -";
  return `git reset --hard or git checkout with ${shellQuote(rel.replace(/^.*logs\/refs\/(heads\/)?/, ""))}@{1}`;
}

function removeLines(text: string, drop: Set<string>): string {
  return text.split("\n").filter((l) => !drop.has(l)).join("\n");
}

/**
 * Of the commits `ids`, those that bring a runs-later file, with the first one each brings: what the commits new to
 * them change (not reachable from `known`), and what their trees hold otherwise than `head`'s. Null when git cannot say.
 */
function broughtLater(gitDir: string, worktree: string, ids: string[], known: string[], head: string, laterWhy: (path: string) => string | null): Map<string, { path: string; why: string }> | null {
  if (ids.length === 0) return new Map();
  const out = new Map<string, { path: string; why: string }>();
  const note = (id: string, path: string) => {
    if (out.has(id)) return;
    const why = laterWhy(join(worktree, path));
    if (why) out.set(id, { path, why });
  };
  // Each id as a commit (a tag peeled); one that is not a commit brings nothing git would check out.
  const check = hostGit(gitDir, ["cat-file", "--batch-check=%(objectname) %(objecttype)"], undefined, ids.map((id) => `${id}^{commit}\n`).join(""));
  if (check === null) return null;
  const commits = ids.filter((_, i) => / commit$/.test(check.split("\n")[i] ?? ""));
  for (const c of commits) {
    const input = [`${c}\n`, ...known.map((k) => `^${k}\n`)].join("");
    const log = hostGit(gitDir, ["log", "-m", "--no-renames", "--no-textconv", "--no-ext-diff", "--format=", "--name-only", "-z", "--stdin"], undefined, input);
    if (log === null) return null;
    for (const p of log.split("\0").map((x) => x.replace(/^\n+/, "")).filter(Boolean)) note(c, p);
    if (head && !out.has(c)) {
      const diff = hostGit(gitDir, ["diff-tree", "-r", "--no-renames", "--no-textconv", "--no-ext-diff", "--name-only", "-z", head, c]);
      if (diff === null) return null;
      for (const p of diff.split("\0").filter(Boolean)) note(c, p);
    }
  }
  return out;
}
