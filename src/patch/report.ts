// What the model reads when a patch does not apply: which file, which hunk
// (number and header), the lines it expected, and the closest lines actually
// in the file with their numbers, so the next attempt can be right.
import { closestLines, quoteClosest } from "../text/closest.ts";
import type { LineIndex } from "../text/match.ts";
import type { Hunk } from "./types.ts";

export interface Problem {
  path: string;
  /** 1-based hunk number, when the problem is one hunk's. */
  hunk?: number;
  /** Complete, self-contained text. */
  message: string;
}

/** Lines of a hunk or file shown in a report, at most. */
const SHOW_LINES = 30;

export function describeHunk(path: string, index: number, total: number, h: Hunk): string {
  return `${path}, hunk ${index + 1} of ${total} (${h.header}, patch line ${h.line})`;
}

export function notFoundMessage(
  path: string,
  h: Hunk,
  expected: readonly string[],
  file: LineIndex,
  near: number,
): string {
  const out: string[] = ["its lines are not in the file. Expected (the hunk's context and removed lines):"];
  const oldSide = h.lines.filter((l) => l.op !== "+");
  for (const l of oldSide.slice(0, SHOW_LINES)) out.push(`    ${l.op}${l.text}`);
  if (oldSide.length > SHOW_LINES) out.push(`    … (${oldSide.length - SHOW_LINES} more)`);

  const best = closestLines(file, expected, near);
  if (!best) {
    const n = file.lines.length;
    out.push(`No lines in ${path} (${n} line${n === 1 ? "" : "s"}) look like these. Re-read the file and rebuild the hunk from its current content.`);
    return out.join("\n");
  }
  out.push(...quoteClosest(path, file.lines, expected, best, "the hunk"));
  return out.join("\n");
}

/** The whole failure report for the model. */
export function formatReport(problems: readonly Problem[]): string {
  const n = problems.length;
  const head = `The patch was not applied; nothing was written. ${n} problem${n === 1 ? "" : "s"}:`;
  const body = problems.map((p, i) => (n === 1 ? p.message : `${i + 1}. ${p.message}`)).join("\n\n");
  return `${head}\n\n${body}\n\nFix ${n === 1 ? "this" : "these"} and send the whole patch again (re-read a file if you are unsure of its content).`;
}
