// apply_patch: a multi-file patch (unified diff or the `*** Begin Patch`
// envelope), placed by a dry run, shown and approved once as a whole, then
// written all or nothing. Nothing touches the disk until every hunk of every
// file has been placed and the person has said yes.
import { ChangeSet, type Snapshot } from "../change/change-set.ts";
import { applyPatches } from "../patch/apply.ts";
import { parsePatch } from "../patch/parse.ts";
import { formatReport } from "../patch/report.ts";
import { PatchSyntaxError, type FilePatch } from "../patch/types.ts";
import type { FileChangePreview } from "../perms/types.ts";
import { applyPatchSpec } from "./specs.ts";
import { ToolError, type Tool, type ToolContext } from "./tool.ts";

export interface ApplyPatchInput {
  patch: string;
  dry_run?: boolean;
}

const NAME = applyPatchSpec.name;
/** Tool output is bounded at the source (the loop's budget is about 20 KB). */
const MAX_OUTPUT = 20_000;

export const applyPatchTool: Tool<ApplyPatchInput> = {
  ...applyPatchSpec,
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

    const change = new ChangeSet(ctx, NAME);
    const snaps = await snapshotAll(parsed, change, ctx);
    const patches = parsed.map((f) => ({
      ...f,
      path: snaps.get(f.path)!.path.display,
      ...(f.moveTo !== undefined ? { moveTo: snaps.get(f.moveTo)!.path.display } : {}),
    }));
    const byDisplay = new Map<string, Snapshot>([...snaps.values()].map((s) => [s.path.display, s]));

    const dry = applyPatches(patches, (p) => byDisplay.get(p)?.text ?? null);
    if (!dry.ok) return { content: bound(formatReport(dry.problems), MAX_OUTPUT, "report"), isError: true };
    const { changes, notes } = dry;
    if (changes.length === 0) return "The patch changes nothing (every file would stay as it is); nothing was written.";

    for (const c of changes) {
      const snap = byDisplay.get(c.path)!;
      if (c.from !== undefined) change.move(byDisplay.get(c.from)!, snap, c.after ?? "", c.mode);
      else if (c.after === null) change.delete(snap);
      else change.write(snap, c.after, c.mode);
    }
    const previews = change.previews().map((p, i) => withMode(p, changes[i]!.mode));
    const summary = previews.map(summaryLine).join("\n");
    const noteText = notes.length > 0 ? `\nNotes:\n${notes.map((n) => `  ${n}`).join("\n")}` : "";
    if (input.dry_run) {
      const head = `Dry run: the patch applies cleanly; nothing was written.\n${summary}${noteText}\n\n`;
      return head + bound(previews.map((p) => p.diff).join("\n\n"), MAX_OUTPUT - head.length, "diff");
    }
    const shown = await change.commit(previews);
    const n = changes.length;
    return { content: `Applied the patch to ${n} file${n === 1 ? "" : "s"}:\n${summary}${noteText}`, isError: false, shown };
  },
};

/** Every path through the pipeline's target check and snapshot; outside paths stop here. */
async function snapshotAll(patches: FilePatch[], change: ChangeSet, ctx: ToolContext): Promise<Map<string, Snapshot>> {
  const out = new Map<string, Snapshot>();
  for (const f of patches) {
    for (const p of f.moveTo !== undefined ? [f.path, f.moveTo] : [f.path]) {
      if (out.has(p)) continue;
      const target = change.target(p);
      // The dry run reads what it patches.
      if (f.op !== "add" && p === f.path) await ctx.perms.authorize({ kind: "read", target: target.real, tool: NAME });
      out.set(p, change.snapshot(target));
    }
  }
  return out;
}

/** An executable file is worth a second look before approving: say so, as git does. */
function withMode(p: FileChangePreview, mode: number | undefined): FileChangePreview {
  if (mode === undefined || (mode & 0o111) === 0) return p;
  return { ...p, diff: `new file mode 100${mode.toString(8)} (executable)\n${p.diff}` };
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
