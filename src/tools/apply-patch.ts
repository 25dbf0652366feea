// apply_patch: a multi-file patch (unified diff or the `*** Begin Patch`
// envelope), placed by a dry run, shown and approved once as a whole, then
// written all or nothing. Nothing touches the disk until every hunk of every
// file has been placed and the person has said yes.
import { readFileSync, statSync } from "node:fs";
import { writeProblem } from "../fs/writable.ts";
import { makeFilePreview } from "../diff/preview.ts";
import { commitFiles, TransactionError, type FileOp } from "../fs/transaction.ts";
import { applyPatches, type FileChange } from "../patch/apply.ts";
import { parsePatch } from "../patch/parse.ts";
import { formatReport } from "../patch/report.ts";
import { PatchSyntaxError, type FilePatch } from "../patch/types.ts";
import type { FileChangePreview } from "../perms/types.ts";
import type { ResolvedPath } from "../perms/workspace.ts";
import { ToolError, type Tool, type ToolContext } from "./tool.ts";

export interface ApplyPatchInput {
  patch: string;
  dry_run?: boolean;
}

const NAME = "apply_patch";
/** Tool output is bounded at the source (the loop's budget is about 20 KB). */
const MAX_OUTPUT = 20_000;

export const applyPatchTool: Tool<ApplyPatchInput> = {
  name: NAME,
  description:
    "Apply a patch to one or more files, all or nothing, after one approval. Accepts a unified diff (--- a/path, +++ b/path, @@ hunks, as git diff writes; /dev/null to create or delete; rename from/to) or a *** Begin Patch … *** End Patch envelope (Add File/Update File/Delete File/Move to). Give each hunk 3 unchanged context lines; @@ line numbers are only hints. dry_run: check and show the diff without writing.",
  inputSchema: {
    type: "object",
    properties: {
      patch: { type: "string", description: "The patch text." },
      dry_run: { type: "boolean", description: "Only check the patch and return the resulting diff." },
    },
    required: ["patch"],
    additionalProperties: false,
  },

  summarize(input) {
    let files: string[];
    try {
      files = parsePatch(input.patch).map((f) => (f.moveTo ? `${f.path} → ${f.moveTo}` : f.path));
    } catch {
      files = [];
    }
    const shown = files.length > 3 ? `${files.slice(0, 3).join(", ")} (+${files.length - 3} more)` : files.join(", ");
    return [shown, input.dry_run ? "(dry run)" : ""].filter(Boolean).join(" ");
  },

  async run(input, ctx) {
    if (input.patch.trim() === "") {
      throw new ToolError(
        "The patch is empty; nothing was written. Send a unified diff (--- a/path, +++ b/path, @@ hunks) or a *** Begin Patch … *** End Patch envelope.",
      );
    }
    let parsed: FilePatch[];
    try {
      parsed = parsePatch(input.patch);
    } catch (err) {
      if (err instanceof PatchSyntaxError) {
        throw new ToolError(`The patch is malformed at line ${err.line}: ${err.reason}. Nothing was written.`);
      }
      throw err;
    }
    if (parsed.length === 0) throw new ToolError("The patch has no file changes; nothing was written.");

    const paths = await resolveAll(parsed, ctx);
    const patches = parsed.map((f) => ({
      ...f,
      path: paths.get(f.path)!.display,
      ...(f.moveTo !== undefined ? { moveTo: paths.get(f.moveTo)!.display } : {}),
    }));
    const byDisplay = new Map<string, ResolvedPath>([...paths.values()].map((p) => [p.display, p]));
    const snapshot = readSnapshot(byDisplay);

    const dry = applyPatches(patches, (p) => snapshot.get(p) ?? null);
    if (!dry.ok) return { content: bound(formatReport(dry.problems), MAX_OUTPUT, "report"), isError: true };
    const { changes, notes } = dry;
    if (changes.length === 0) return "The patch changes nothing (every file would stay as it is); nothing was written.";

    const previews = changes.map(previewOf);
    const summary = previews.map(summaryLine).join("\n");
    const noteText = notes.length > 0 ? `\nNotes:\n${notes.map((n) => `  ${n}`).join("\n")}` : "";
    if (input.dry_run) {
      const head = `Dry run: the patch applies cleanly; nothing was written.\n${summary}${noteText}\n\n`;
      return head + bound(previews.map((p) => p.diff).join("\n\n"), MAX_OUTPUT - head.length, "diff");
    }

    const real = (display: string) => byDisplay.get(display)!.real;
    for (const p of new Set(changes.flatMap((c) => (c.from !== undefined ? [c.from, c.path] : [c.path])))) {
      const problem = writeProblem(real(p), p);
      if (problem) throw new ToolError(`${problem} Nothing was written.`);
    }
    const targets = [...new Set(changes.flatMap((c) => (c.from !== undefined ? [real(c.from), real(c.path)] : [real(c.path)])))];
    await ctx.perms.authorize({ kind: "write", target: targets[0]!, alsoTargets: targets.slice(1), tool: NAME, files: previews });

    if (ctx.signal.aborted) throw new ToolError("Interrupted by the user; nothing was written.");
    // The person may have taken a while: refuse to overwrite edits made meanwhile.
    for (const c of changes) {
      for (const p of c.from !== undefined ? [c.from, c.path] : [c.path]) {
        if (readText(p, real(p)) !== (snapshot.get(p) ?? null)) {
          throw new ToolError(`${p} changed on disk while the patch was waiting for approval; nothing was written. Re-read it and send the patch again.`);
        }
      }
    }

    const ops: FileOp[] = [];
    for (const c of changes) {
      if (c.after === null) ops.push({ kind: "delete", path: real(c.path) });
      else {
        const mode = c.mode ?? (c.from !== undefined ? statSync(real(c.from)).mode & 0o7777 : undefined);
        ops.push({ kind: "write", path: real(c.path), data: c.after, ...(mode !== undefined ? { mode } : {}) });
      }
      if (c.from !== undefined) ops.push({ kind: "delete", path: real(c.from) });
    }
    try {
      commitFiles(ops, { pruneEmptyDirsBelow: ctx.root });
    } catch (err) {
      if (err instanceof TransactionError) throw new ToolError(`Writing the patch failed: ${err.message}`);
      throw err;
    }

    for (const c of changes) {
      if (c.after === null) ctx.session.readHashes.delete(real(c.path));
      else ctx.session.recordRead(real(c.path), c.after);
      if (c.from !== undefined) ctx.session.readHashes.delete(real(c.from));
    }
    const n = changes.length;
    return `Applied the patch to ${n} file${n === 1 ? "" : "s"}:\n${summary}${noteText}`;
  },
};

/** Every path through the workspace resolver and the write precheck; outside paths stop here. */
async function resolveAll(patches: FilePatch[], ctx: ToolContext): Promise<Map<string, ResolvedPath>> {
  const out = new Map<string, ResolvedPath>();
  for (const f of patches) {
    for (const p of f.moveTo !== undefined ? [f.path, f.moveTo] : [f.path]) {
      if (out.has(p)) continue;
      const r = ctx.perms.resolve(p);
      ctx.perms.precheckWrite(r);
      out.set(p, r);
    }
    // The dry run reads what it patches.
    if (f.op !== "add") await ctx.perms.authorize({ kind: "read", target: out.get(f.path)!.real, tool: NAME });
  }
  return out;
}

/** Current text of every path the patch names (null when absent). */
function readSnapshot(paths: Map<string, ResolvedPath>): Map<string, string | null> {
  const snap = new Map<string, string | null>();
  for (const [display, p] of paths) snap.set(display, readText(display, p.real));
  return snap;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function readText(display: string, real: string): string | null {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(real);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    if (code === "EISDIR") throw new ToolError(`${display} is a directory, not a file; nothing was written.`);
    throw new ToolError(`Cannot read ${display}: ${(err as Error).message}. Nothing was written.`);
  }
  if (bytes.includes(0)) throw new ToolError(`${display} looks like a binary file; apply_patch only edits text. Nothing was written.`);
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ToolError(`${display} is not valid UTF-8 text; apply_patch cannot edit it without damaging it. Nothing was written.`);
  }
}

function previewOf(c: FileChange): FileChangePreview {
  const p = c.from !== undefined ? makeFilePreview(`${c.from} → ${c.path}`, c.before, c.after, "rename") : makeFilePreview(c.path, c.before, c.after);
  // An executable file is worth a second look before approving: say so, as git does.
  if (c.mode !== undefined && (c.mode & 0o111) !== 0) p.diff = `new file mode 100${c.mode.toString(8)} (executable)\n${p.diff}`;
  return p;
}

function summaryLine(p: FileChangePreview): string {
  const letter = { create: "A", modify: "M", delete: "D", rename: "R" }[p.kind];
  const counts = [p.added ? `+${p.added}` : "", p.removed ? `-${p.removed}` : ""].filter(Boolean).join(" ");
  return `  ${letter} ${p.display}${counts ? ` (${counts})` : ""}`;
}

function bound(text: string, max: number, what: "diff" | "report"): string {
  if (text.length <= max) return text;
  const why = what === "diff" ? "the whole patch applies" : "fix the problems shown, then send the patch again to see the rest";
  return `${text.slice(0, Math.max(0, max - 120))}\n… (${what} cut at ${Math.round(max / 1000)} KB; ${why})`;
}
