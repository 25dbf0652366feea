// grep: search file contents with a JavaScript regex, rg-style output.
// Fast path: files are read concurrently, a required literal (when the regex
// has one) is looked for in the raw bytes before anything is decoded, and the
// regex scans each remaining file in one pass. Output keeps walk order and
// stops at the output bound.
import { statSync } from "node:fs";
import { fileKind, notRegularMessage, openRegular } from "../fs/file-kind.ts";
import { configAsShown } from "../sandbox/repo-configs.ts";
import { count, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, partResult } from "./bound.ts";
import { notFoundError } from "./not-found.ts";
import { isBinary, MAX_FILE_BYTES } from "./read-file.ts";
import { requiredLiteral } from "./regex-literal.ts";
import { compileLineRegex, formatMatches, matchingLines, RegexTooComplex, type LineRegex } from "./search-text.ts";
import { grepSpec, MAX_CONTEXT } from "./specs.ts";
import { ToolError, type Tool, type ToolOutput } from "./tool.ts";
import { displayPath, readAllowed, walk, walkFilter, type WalkEntry } from "./walk.ts";

export interface GrepInput {
  pattern: string;
  path?: string;
  glob?: string;
  ignore_case?: boolean;
  context?: number;
}

export { MAX_CONTEXT };
/** Files read at once: enough to keep both the disk and the CPU busy. */
const READ_CONCURRENCY = 48;

export const grepTool: Tool<GrepInput> = {
  ...grepSpec,
  summarize: (input) => `/${input.pattern}/${input.path ? ` in ${input.path}` : ""}${input.glob ? ` (${input.glob})` : ""}`,

  async run(input, ctx) {
    const context = input.context ?? 0;
    if (context < 0 || context > MAX_CONTEXT) throw new ToolError(`context must be between 0 and ${MAX_CONTEXT}, got ${context}`);
    const ignoreCase = input.ignore_case ?? false;
    let re: LineRegex;
    try {
      re = compileLineRegex(input.pattern, ignoreCase);
    } catch (err) {
      throw new ToolError(`invalid regular expression /${input.pattern}/: ${(err as Error).message.replace(/^Invalid regular expression: /, "")}`);
    }
    const literal = requiredLiteral(input.pattern, ignoreCase);
    const search: FileSearch = {
      re,
      literal: literal === undefined ? undefined : Buffer.from(literal, "latin1"),
      context,
    };

    const target = await ctx.perms.resolveRead(input.path ?? ".", "grep");
    if (!target.exists) throw notFoundError(ctx.root, target, readAllowed(ctx.perms));
    const out = new OutputSink(context > 0);

    const st = statSync(target.real);
    if (!st.isDirectory() && !st.isFile()) throw new ToolError(notRegularMessage(target.display, fileKind(st), "searches"));
    if (st.isFile()) {
      const result = await searchFile(target.real, target.display, search, MAX_OUTPUT_LINES + 1);
      if (result === "binary") throw new ToolError(`${target.display} is a binary file; grep searches text only`);
      if (result === "too-large") throw new ToolError(`${target.display} is larger than ${MAX_FILE_BYTES / 1048576} MiB; grep skips it`);
      if (isGaveUp(result)) out.gaveUp(result.gaveUp);
      else if (result) out.add(result);
      return out.result(input.pattern, target.display, 1, 0);
    }

    const glob = input.glob ? new Bun.Glob(input.glob) : undefined;
    const globOnPath = input.glob?.includes("/") ?? false;
    const files = filesOf(walk({ start: target.real, root: ctx.root, allowed: walkFilter(ctx.perms, target.real), signal: ctx.signal }), glob, globOnPath);

    // Read and search concurrently; hand results to the sink in walk order.
    const pending = new Map<number, string[] | undefined>();
    let nextToEmit = 0;
    let taken = 0;
    let searched = 0;
    let skipped = 0;
    const worker = async () => {
      while (!out.full && !ctx.signal.aborted) {
        const step = files.next();
        if (step.done) return;
        const index = taken++;
        const entry = step.value;
        const result = await searchFile(entry.abs, displayPath(target.display, entry.rel), search, MAX_OUTPUT_LINES + 1);
        if (result === "binary" || result === "too-large") skipped++;
        else searched++;
        if (isGaveUp(result)) out.gaveUp(result.gaveUp);
        pending.set(index, Array.isArray(result) ? result : undefined);
        while (pending.has(nextToEmit)) {
          const lines = pending.get(nextToEmit);
          pending.delete(nextToEmit++);
          if (lines && !out.full) out.add(lines);
        }
      }
    };
    await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
    if (ctx.signal.aborted) throw new ToolError("grep was interrupted");
    return out.result(input.pattern, target.display, searched, skipped);
  },
};

interface FileSearch {
  re: LineRegex;
  /** Bytes every matching line contains, when the regex has such a literal. */
  literal: Buffer | undefined;
  context: number;
}

function* filesOf(entries: Iterable<WalkEntry>, glob: Bun.Glob | undefined, globOnPath: boolean): Generator<WalkEntry> {
  for (const e of entries) {
    // Symbolic links are not followed (as rg): the file they name is searched where it lives.
    if (e.kind !== "file") continue;
    if (glob && !glob.match(globOnPath ? e.rel : e.name)) continue;
    yield e;
  }
}

/** The regex engine gave up on this file (see RegexTooComplex). */
interface GaveUp {
  gaveUp: string;
}
type SearchResult = string[] | "binary" | "too-large" | GaveUp | undefined;

/** The output lines for one file, or why it was skipped; undefined for no match. */
async function searchFile(abs: string, display: string, search: FileSearch, max: number): Promise<SearchResult> {
  let bytes: Buffer;
  try {
    // Swapped for a pipe or a device since the walk: refused, never waited on.
    const { handle, st } = await openRegular(abs, display);
    try {
      if (st.size > MAX_FILE_BYTES) return "too-large";
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch {
    return undefined; // vanished, unreadable, or no longer a regular file since the walk
  }
  if (bytes.length > MAX_FILE_BYTES) return "too-large";
  if (isBinary(bytes)) return "binary";
  if (search.literal && bytes.indexOf(search.literal) === -1) return undefined;
  // Pure ASCII decodes faster as latin1, and means the same text.
  // (node:buffer is looked up here, not imported: loading it cost 0.2 ms of every run's start-up.)
  const { isAscii } = process.getBuiltinModule("node:buffer") as typeof import("node:buffer");
  let text = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // A repository's (or the person's) git config: searched as commands are shown it, credentials withheld (repo-configs.ts).
  text = configAsShown(abs, text).text;
  let matches: ReturnType<typeof matchingLines>;
  try {
    matches = matchingLines(text, search.re, max);
  } catch (err) {
    if (err instanceof RegexTooComplex) return { gaveUp: display };
    throw err;
  }
  if (matches.length === 0) return undefined;
  return formatMatches(display, text, matches, search.context);
}

function isGaveUp(r: SearchResult): r is GaveUp {
  return typeof r === "object" && !Array.isArray(r);
}

/** Collects output lines up to the bound; knows when to stop searching. */
class OutputSink {
  private readonly lines: string[] = [];
  private bytes = 0;
  full = false;

  /** With context lines, files are separated by `--`, as rg does. */
  constructor(private readonly separateFiles: boolean) {}

  add(fileLines: string[]): void {
    if (this.full) return;
    if (this.separateFiles && this.lines.length > 0 && !this.push("--")) return;
    for (const line of fileLines) if (!this.push(line)) return;
  }

  private push(line: string): boolean {
    const size = Buffer.byteLength(line) + 1;
    if (this.lines.length >= MAX_OUTPUT_LINES || this.bytes + size > MAX_OUTPUT_BYTES) {
      this.full = true;
      return false;
    }
    this.lines.push(line);
    this.bytes += size;
    return true;
  }

  /** Files where the regex engine gave up: their matches may be missing. */
  private readonly gaveUpOn: string[] = [];

  gaveUp(display: string): void {
    this.gaveUpOn.push(display);
  }

  /** The output, and the person's line when it was cut or may miss matches. */
  result(pattern: string, where: string, searched: number, skipped: number): ToolOutput {
    const shown = this.lines.length;
    const content = this.render(pattern, where, searched, skipped);
    const cut = [
      ...(this.full ? [`first ${count(shown)} lines of matches; more exist`] : []),
      ...(this.gaveUpOn.length > 0 ? [`matches in ${count(this.gaveUpOn.length)} file${this.gaveUpOn.length === 1 ? "" : "s"} may be missing (the pattern is too complex)`] : []),
    ];
    return partResult(content, cut.length > 0 ? cut.join("; ") : undefined);
  }

  private render(pattern: string, where: string, searched: number, skipped: number): string {
    const skippedNote = skipped > 0 ? `; ${skipped} binary or oversized file${skipped === 1 ? "" : "s"} skipped` : "";
    if (this.gaveUpOn.length > 0) {
      const files = this.gaveUpOn.length === 1 ? this.gaveUpOn[0]! : `${this.gaveUpOn.length} files (${this.gaveUpOn.slice(0, 3).join(", ")}${this.gaveUpOn.length > 3 ? ", …" : ""})`;
      const why =
        `the pattern /${pattern}/ is too complex for the regex engine: it gave up backtracking in ${files}, so matches there may be missing. ` +
        "Use a simpler pattern: no nested repetition like (a+)+ or (x|xy)*, a literal word that must be on the line, or anchors (^, $)";
      // Nothing found at all: that is not "No matches", it is an unanswered question.
      if (this.lines.length === 0) throw new ToolError(why);
      this.lines.push(`[note: ${why}]`);
    }
    if (this.lines.length === 0) {
      return `No matches for /${pattern}/ in ${where} (${searched} file${searched === 1 ? "" : "s"} searched${skippedNote})`;
    }
    if (this.full) {
      this.lines.push(
        `[output truncated at ${this.lines.length} lines: more matches exist; narrow the pattern, path or glob to see the rest]`,
      );
    }
    return this.lines.join("\n");
  }
}
