// The one pipeline every file change goes through. A tool only turns its
// input into changes; this does the rest, always in this order:
//   target()    resolve, and refuse early what no answer could allow
//   snapshot()  read what is there now (text only; read-before-write)
//   create/update/delete/move()   the tool's changes, against the snapshot
//   previews()  the diffs the person is shown
//   commit()    authorize once → recheck that nothing changed since the
//               snapshot (through held directories, so a parent swapped for
//               a link is refused) → journalled all-or-nothing commit →
//               record the reads and the checkpoint
import { lstatSync, statSync } from "node:fs";
import { basename, dirname, relative } from "node:path";
import { contentHash } from "../agent/session-state.ts";
import { makeFilePreview } from "../diff/preview.ts";
import type { HeldDir } from "../fs/held-dir.ts";
import { commitFiles, TransactionError, type FileOp } from "../fs/transaction.ts";
import { writeProblem } from "../fs/writable.ts";
import type { FileChangePreview } from "../perms/types.ts";
import { hookKeysChange } from "../sandbox/package-hooks.ts";
import type { ResolvedPath } from "../perms/workspace.ts";
import { ToolError, type ToolContext } from "../tools/tool.ts";
import { kindProblem, readText } from "./read-text.ts";

/** What a file held when the change was planned. */
export interface Snapshot {
  path: ResolvedPath;
  /** Decoded text (a BOM kept as the first character); null when absent. */
  text: string | null;
  bytes: Uint8Array | null;
  /** Permission bits of an existing file. */
  mode: number | null;
  /** Identity of the directory holding it, when that existed: a recheck compares it. */
  dirId: string | null;
}

/** One file of a commit, as kept for undo: before and after bytes (null: absent) and modes. */
export interface CommittedFile {
  real: string;
  display: string;
  before: Uint8Array | null;
  after: Uint8Array | null;
  beforeMode: number | null;
  afterMode: number | null;
  /** Lines added and removed, as the diff showed them (a move's count is on its new name). */
  added: number;
  removed: number;
}

/** Where a commit is journalled, and what records it for /undo. Absent in bare tests. */
export interface ChangeEnv {
  /** bunker's state directory's journal folder (never the workspace). */
  journalDir: string;
  /** Called after every commit with what changed (checkpoints for /undo and /rewind). */
  onCommitted?: (tool: string, files: CommittedFile[]) => void | Promise<void>;
}

type Planned =
  | { kind: "write"; snap: Snapshot; after: string; mode?: number }
  | { kind: "delete"; snap: Snapshot }
  | { kind: "move"; from: Snapshot; snap: Snapshot; after: string; mode?: number };

export class ChangeSet {
  private readonly snaps = new Map<string, Snapshot>();
  private readonly planned: Planned[] = [];

  constructor(
    private readonly ctx: ToolContext,
    private readonly tool: string,
    /**
     * checkpoint false: not kept for /undo (undo itself). byPerson: the person's own command asks (PermRequest.byPerson).
     * loses: what the change overwrites that bunker did not make (PermRequest.loses): asked whatever is granted.
     */
    private readonly opts: { checkpoint?: boolean; byPerson?: boolean; loses?: string } = {},
  ) {}

  /** Resolves a path the model gave and refuses, before any diff is computed, what cannot be written. */
  target(input: string): ResolvedPath {
    const path = this.ctx.perms.resolve(input);
    this.ctx.perms.precheckWrite(path, this.tool);
    const kind = kindProblem(path.real, path.display);
    if (kind) throw new ToolError(kind);
    return path;
  }

  /**
   * The file as it is now. `mustHaveRead` (the verb, "edit") enforces
   * read-before-write: the model must have seen this exact content.
   */
  snapshot(path: ResolvedPath, mustHaveRead?: string): Snapshot {
    const known = this.snaps.get(path.real);
    if (known) return known;
    const read = readText(path.real, path.display);
    const problem = writeProblem(path.real, path.display);
    if (problem) throw new ToolError(problem);
    if (read !== null && mustHaveRead) this.checkRead(path, read.bytes, mustHaveRead);
    if (read === null) this.checkCreatable(path);
    const snap: Snapshot = {
      path,
      text: read?.text ?? null,
      bytes: read?.bytes ?? null,
      mode: read?.mode ?? null,
      dirId: dirIdentity(dirname(path.real)),
    };
    this.snaps.set(path.real, snap);
    return snap;
  }

  /** Create or replace the whole content of `snap`'s file. */
  write(snap: Snapshot, after: string, mode?: number): void {
    this.planned.push({ kind: "write", snap, after, ...(mode !== undefined ? { mode } : {}) });
  }

  delete(snap: Snapshot): void {
    this.planned.push({ kind: "delete", snap });
  }

  /** `from` goes away and `to` holds `after` (keeping `from`'s mode unless `mode` says otherwise). */
  move(from: Snapshot, to: Snapshot, after: string, mode?: number): void {
    this.planned.push({ kind: "move", from, snap: to, after, ...(mode !== undefined ? { mode } : {}) });
  }

  get size(): number {
    return this.planned.length;
  }

  /** One preview per change, from the real before and after contents. */
  previews(): FileChangePreview[] {
    return this.planned.map((p) => {
      if (p.kind === "move") return makeFilePreview(`${p.from.path.display} → ${p.snap.path.display}`, p.from.text, p.after, "rename");
      return makeFilePreview(p.snap.path.display, p.snap.text, p.kind === "delete" ? null : p.after);
    });
  }

  /**
   * Asks once for the whole set (with `previews`, possibly decorated by the
   * tool), then commits it all or nothing. Throws a ToolError saying what
   * happened; on success every written file counts as read, and the line
   * for the person (committedLine) is returned.
   */
  async commit(previews: FileChangePreview[] = this.previews()): Promise<string> {
    const targets = [...new Set(this.planned.flatMap((p) => (p.kind === "move" ? [p.from.path.real, p.snap.path.real] : [p.snap.path.real])))];
    // A package.json whose hook keys change runs that change at the next commit (package-hooks.ts): asked about.
    const manifests = this.planned.filter((p) => p.kind !== "delete" && basename(p.snap.path.real) === "package.json");
    // The scripts the repository's hooks run (`npm test` in .husky/pre-commit): their keys are asked about too. Only
    // when a package.json changes: the walk that finds the hooks is loaded and run then.
    const hookScripts = manifests.length > 0 ? [...((await import("../sandbox/git-guard.ts")).scanRoots([this.ctx.root]).hookScripts ?? [])] : [];
    const changesRunLater = manifests.flatMap((p) => {
      if (p.kind === "delete") return [];
      const why = hookKeysChange(p.snap.text ?? "", p.after, hookScripts);
      return why ? [{ display: p.snap.path.display, why }] : [];
    });
    await this.ctx.perms.authorize({ kind: "write", target: targets[0]!, ...(targets.length > 1 ? { alsoTargets: targets.slice(1) } : {}), tool: this.tool, files: previews, ...(this.opts.byPerson ? { byPerson: true } : {}), ...(this.opts.loses ? { loses: this.opts.loses } : {}), ...(changesRunLater.length ? { changesRunLater } : {}) });
    if (this.ctx.signal.aborted) throw new ToolError("Interrupted by the user; nothing was written.");

    const ops: FileOp[] = this.planned.map((p) => {
      switch (p.kind) {
        case "write":
          return { kind: "write", path: p.snap.path.real, data: p.after, ...(p.mode !== undefined ? { mode: p.mode } : {}) };
        case "delete":
          return { kind: "delete", path: p.snap.path.real };
        case "move":
          return { kind: "move", from: p.from.path.real, path: p.snap.path.real, data: p.after, mode: p.mode ?? p.from.mode ?? 0o644 };
      }
    });
    const env = this.ctx.changes;
    try {
      commitFiles(ops, {
        pruneEmptyDirsBelow: this.ctx.root,
        ...(env ? { journal: { dir: env.journalDir, root: this.ctx.root, label: this.tool } } : {}),
        check: (real, current, dir) => this.recheck(real, current, dir),
      });
    } catch (err) {
      if (err instanceof ToolError) throw err;
      if (err instanceof TransactionError) throw new ToolError(`Could not write ${this.what()}: ${err.message}`);
      throw new ToolError(`Could not write ${this.what()}: ${(err as Error).message}. Nothing was changed.`);
    }
    await this.record(previews);
    return committedLine(previews);
  }

  private what(): string {
    return this.planned.length === 1 ? this.planned[0]!.snap.path.display : `the ${this.planned.length} files`;
  }

  /** After approval, through the held directory: the file and its directory must be what the snapshot saw. */
  private recheck(real: string, current: () => Uint8Array | null, dir: HeldDir): void {
    const snap = this.snaps.get(real);
    if (!snap) return;
    const d = snap.path.display;
    if (snap.dirId !== null && dir.identity() !== snap.dirId) {
      throw new ToolError(`The directory holding ${d} was replaced while waiting for approval; nothing was written. Look at ${relative(this.ctx.root, dirname(real)) || "."} again and redo the change.`);
    }
    let now: Uint8Array | null;
    try {
      now = current();
    } catch (err) {
      throw new ToolError(`${d} changed while waiting for approval (${(err as Error).message}); nothing was written.`);
    }
    if (snap.bytes === null && now !== null) {
      throw new ToolError(`${d} was created by something else while waiting for approval; nothing was written. Read it with read_file and try again.`);
    }
    if (snap.bytes !== null && (now === null || contentHash(now) !== contentHash(snap.bytes))) {
      throw new ToolError(`${d} changed on disk while waiting for approval; nothing was written. Read it again with read_file and redo the change.`);
    }
  }

  /** The new contents count as read; the checkpoint keeps before and after. */
  private async record(previews: FileChangePreview[]): Promise<void> {
    const enc = new TextEncoder();
    const files: CommittedFile[] = [];
    let counts = { added: 0, removed: 0 };
    const add = (snap: Snapshot, after: Uint8Array | null, afterMode: number | null) =>
      files.push({ real: snap.path.real, display: snap.path.display, before: snap.bytes, after, beforeMode: snap.mode, afterMode, ...counts });
    for (const [i, p] of this.planned.entries()) {
      counts = { added: previews[i]?.added ?? 0, removed: previews[i]?.removed ?? 0 };
      if (p.kind === "delete") {
        this.ctx.session.readHashes.delete(p.snap.path.real);
        add(p.snap, null, null);
        continue;
      }
      const bytes = enc.encode(p.after);
      this.ctx.session.recordRead(p.snap.path.real, bytes);
      const mode = modeOf(p.snap.path.real);
      if (p.kind === "move") {
        this.ctx.session.readHashes.delete(p.from.path.real);
        const moved = counts;
        counts = { added: 0, removed: 0 };
        add(p.from, null, null);
        counts = moved;
      }
      add(p.snap, bytes, mode);
    }
    if (this.opts.checkpoint !== false) await this.ctx.changes?.onCommitted?.(this.tool, files);
  }

  private checkRead(path: ResolvedPath, bytes: Uint8Array, verb: string): void {
    const seen = this.ctx.session.readHashes.get(path.real);
    if (seen === undefined) {
      // After -c/-r the conversation shows earlier reads, but the file may have changed since: say why they do not count.
      const since = this.ctx.session.continued ? " (reads from before this session was continued do not count: the file may have changed since)" : "";
      throw new ToolError(`You have not read ${path.display} in this session${since}. Read it with read_file first, then ${verb} it.`);
    }
    if (seen !== contentHash(bytes)) {
      throw new ToolError(`${path.display} has changed on disk since you last read it. Read it again with read_file, then ${verb} it.`);
    }
  }

  /** For a file about to be created: the nearest existing ancestor must be a directory. */
  private checkCreatable(path: ResolvedPath): void {
    for (let dir = dirname(path.real); ; dir = dirname(dir)) {
      let isDir: boolean;
      try {
        isDir = statSync(dir).isDirectory();
      } catch {
        if (dirname(dir) === dir) return;
        continue;
      }
      if (!isDir) throw new ToolError(`Cannot create ${path.display}: ${relative(this.ctx.root, dir) || basename(dir)} is a file, not a directory.`);
      return;
    }
  }
}

/** Files named one by one in the line after a commit; more are counted. */
const NAMED_FILES = 3;

/**
 * The one line the person sees after an approved change, as Claude Code says
 * it: `Updated calc.py (+3 -1)`, `Created notes.md (12 lines)`; files of a
 * patch joined, or counted when there are many. One line: a file name with a
 * newline in it is escaped where it is printed, never a second line.
 */
export function committedLine(previews: FileChangePreview[]): string {
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const counts = (p: { added: number; removed: number }) => `(+${p.added} -${p.removed})`;
  if (previews.length > NAMED_FILES) {
    const sum = previews.reduce((t, p) => ({ added: t.added + p.added, removed: t.removed + p.removed }), { added: 0, removed: 0 });
    return `Changed ${plural(previews.length, "file")} ${counts(sum)}`;
  }
  const one = (p: FileChangePreview, first: boolean) => {
    const verb = (word: string) => (first ? word : word.toLowerCase());
    switch (p.kind) {
      case "create":
        return `${verb("Created")} ${p.display} (${p.added === 0 ? "empty" : plural(p.added, "line")})`;
      case "delete":
        return `${verb("Deleted")} ${p.display}`;
      case "rename":
        return `${verb("Moved")} ${p.display}${p.added + p.removed > 0 ? ` ${counts(p)}` : ""}`;
      case "modify":
        return `${verb("Updated")} ${p.display} ${counts(p)}`;
    }
  };
  return previews.map((p, i) => one(p, i === 0)).join(", ");
}

function dirIdentity(dir: string): string | null {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() ? `${st.dev}:${st.ino}` : null;
  } catch {
    return null;
  }
}

function modeOf(real: string): number | null {
  try {
    return statSync(real).mode & 0o7777;
  } catch {
    return null;
  }
}
