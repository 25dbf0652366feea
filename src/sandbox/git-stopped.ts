// A rebase, cherry-pick, revert, `git am`, a merge's autostash or a bisect that a command leaves stopped is a plan
// the person's own git carries out later, outside the sandbox: `git rebase --continue` writes the commits its todo
// names into the working tree (a `pick` of a commit in no ref whose tree changes .husky/pre-commit, read-only to
// commands, red team 10 F09), `git am --continue` applies the patches in rebase-apply/, `--abort` checks out the
// orig-head it names, `git bisect reset` the commit BISECT_START names, a merge's commit applies MERGE_AUTOSTASH.
// Under --allow-write=.git a command can write all of these. So the state of an operation the command started, or
// changed other than by going on with it, is set aside after it, whole, with what it would have done next: the
// person reviews it and puts it back, or leaves it. The person's own stopped operation, which a command merely
// carries on (resolving a conflict, `git rebase --continue`, stopping at the next one), is left theirs: its todo
// may only lose lines from the front, and nothing else it obeys may change.
import { lstatSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { FileKindError, readRegularSync } from "../fs/file-kind.ts";
import { isWithin } from "../perms/workspace.ts";
import { setAside } from "./git-guard.ts";

interface Operation {
  /** Its entry in a git directory: a folder of state, or one file. */
  entry: string;
  /** What the person would take it for. */
  what: string;
  /** What carries it out. */
  carriedOutBy: string;
  /** What that writes into the working tree. */
  writes: string;
  /** The todo list in it, compared by lines: what remains may only be what was there, less lines done from the front. */
  todo?: string;
  /** Files git rewrites as the operation goes on, naming no commit or program it will apply later. */
  progress: ReadonlySet<string>;
}

const OPERATIONS: readonly Operation[] = [
  {
    entry: "rebase-merge",
    what: "a stopped rebase",
    carriedOutBy: "git rebase --continue, --skip or --abort",
    writes: "the commits it names",
    todo: "git-rebase-todo",
    progress: new Set(["done", "msgnum", "end", "message", "author-script", "stopped-sha", "amend", "rewritten-list", "rewritten-pending", "current-fixups", "message-squash", "message-fixup", "patch", "dropped", "git-rebase-todo.backup"]),
  },
  {
    entry: "rebase-apply",
    what: "a stopped git am (or rebase --apply)",
    carriedOutBy: "git am --continue, --skip or --abort (git rebase --continue)",
    writes: "the patches in it",
    progress: new Set(["next", "msg", "msg-clean", "final-commit", "info", "patch", "author-script", "original-commit", "rewritten", "abort-safety"]),
  },
  {
    entry: "sequencer",
    what: "a stopped cherry-pick or revert",
    carriedOutBy: "git cherry-pick (or revert) --continue, --skip or --abort",
    writes: "the commits it names",
    todo: "todo",
    progress: new Set(["abort-safety"]),
  },
  { entry: "MERGE_AUTOSTASH", what: "a merge's autostash", carriedOutBy: "git commit (or git merge --continue, --abort)", writes: "the stash it names", progress: new Set() },
  { entry: "BISECT_START", what: "a bisect's start", carriedOutBy: "git bisect reset", writes: "the commit it names", progress: new Set() },
];

/** Far more than a real operation holds (a `git am` of a long series); past it the state counts as changed. */
const MAX_FILES = 5_000;
/** Far more than any todo list or patch; a larger file counts as changed. */
const MAX_BYTES = 16 * 1024 * 1024;
const TOO_BIG = "\0too big";

/** Each file of one operation's state → its text (a todo) or digest; a link, FIFO or the like by its identity. */
export type OperationState = Record<string, string>;
/** Per git directory and operation entry (its path): its state before the command. */
export type StoppedOperations = Record<string, OperationState>;

function fingerprint(path: string, asText: boolean): string {
  try {
    const got = readRegularSync(path, path, { max: MAX_BYTES });
    if (!got) return "\0gone";
    return asText ? got.bytes.toString("latin1") : new Bun.CryptoHasher("sha256").update(got.bytes).digest("hex");
  } catch (e) {
    const why = e instanceof FileKindError ? e.message : String(e);
    try {
      const st = lstatSync(path);
      return `\0${why}\0${st.dev}:${st.ino}:${st.mtimeMs}:${st.size}`;
    } catch {
      return `\0${why}`;
    }
  }
}

/** The state of `op` in `gitDir`, or null when there is none. */
function stateOf(gitDir: string, op: Operation): OperationState | null {
  const top = join(gitDir, op.entry);
  let st;
  try {
    st = lstatSync(top);
  } catch {
    return null;
  }
  if (!st.isDirectory()) return { "": fingerprint(top, false) };
  const out: OperationState = {};
  let count = 0;
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      out[relative(top, dir)] = `\0${(e as Error).message}`;
      return;
    }
    for (const e of entries) {
      if (++count > MAX_FILES) {
        out["\0"] = TOO_BIG;
        return;
      }
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(top, p)] = fingerprint(p, relative(top, p) === op.todo);
    }
  };
  walk(top);
  return out;
}

/** Before a command: every stopped operation's state in these git directories. */
export function stoppedOperations(gitDirs: readonly string[]): StoppedOperations {
  const out: StoppedOperations = {};
  for (const d of gitDirs) {
    for (const op of OPERATIONS) {
      const state = stateOf(d, op);
      if (state) out[join(d, op.entry)] = state;
    }
  }
  return out;
}

/** A todo list's instructions: its lines less blank ones and comments. */
function instructions(text: string): string[] {
  return text.split("\n").map((l) => l.replace(/\r$/, "")).filter((l) => l.trim() !== "" && !l.trimStart().startsWith("#"));
}

/** What remains in `after` is what `before` ended with: the operation went on, and nothing was added. */
function isTail(before: string | undefined, after: string): boolean {
  if (before === undefined || before.startsWith("\0") || after.startsWith("\0")) return false;
  const [was, now] = [instructions(before), instructions(after)];
  return now.length <= was.length && now.every((l, i) => l === was[was.length - now.length + i]);
}

/** Why the state after differs from the person's own before, other than by going on; null when it does not. */
function changedFile(op: Operation, before: OperationState, after: OperationState): string | null {
  for (const [file, now] of Object.entries(after)) {
    if (op.progress.has(file)) continue;
    if (file === op.todo ? isTail(before[file], now) : before[file] === now) continue;
    return file === "" || file === "\0" ? op.entry : `${op.entry}/${file}`;
  }
  return null;
}

/** The first instructions still to come, to say what continuing would do. */
function nextSteps(gitDir: string, op: Operation): string {
  if (op.todo === undefined) return "";
  try {
    const got = readRegularSync(join(gitDir, op.entry, op.todo), op.todo, { max: MAX_BYTES });
    const steps = got ? instructions(got.bytes.toString("latin1")) : [];
    if (steps.length === 0) return "";
    const shown = steps.slice(0, 3).map((s) => (s.length > 80 ? `${s.slice(0, 80)}…` : s));
    return `; next in it: ${shown.join(" | ")}${steps.length > 3 ? ` (and ${steps.length - 3} more)` : ""}`;
  } catch {
    return "";
  }
}

/**
 * After the command: in each git directory, each stopped operation the command started, or changed other than by
 * going on with it, is set aside whole. One line each, saying what it was and what continuing it would have done.
 */
export function stoppedOperationsAfter(root: string, gitDirs: readonly string[], before: StoppedOperations): string[] {
  const shown = (p: string) => (isWithin(root, p) ? relative(root, p) : p);
  const lines: string[] = [];
  for (const d of gitDirs) {
    for (const op of OPERATIONS) {
      const path = join(d, op.entry);
      const now = stateOf(d, op);
      if (now === null) continue;
      const was = before[path];
      const changed = was === undefined ? null : changedFile(op, was, now);
      if (was !== undefined && changed === null) continue;
      const how = was === undefined ? "the command left" : `whose ${shown(join(d, changed!))} the command changed`;
      const next = nextSteps(d, op);
      lines.push(
        setAside(
          root,
          path,
          `${shown(path)}, ${op.what} ${how} under --allow-write=.git (${op.carriedOutBy} would carry it out outside the sandbox, writing ${op.writes} into your working tree${next}; HEAD stays where the command left it)`,
        ),
      );
    }
  }
  return lines;
}
