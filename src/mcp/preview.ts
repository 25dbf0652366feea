// How an MCP call's arguments are shown before it is approved: pretty-printed
// JSON, every invisible character escaped, long lines and long argument
// lists cut with a count of what was left out.
import { escapeControl } from "../ui/escape.ts";

export const MAX_ARG_LINES = 20;
const MAX_LINE = 160;

/** The arguments as pretty JSON (what Permissions carries to the approver). */
export function prettyArgs(input: unknown): string {
  return JSON.stringify(input ?? {}, null, 2) ?? "{}";
}

/** Display lines for `pretty`: escaped, each cut to `width`, at most `maxLines` plus a line saying how much more there is. */
export function argLines(pretty: string, maxLines = MAX_ARG_LINES, width = MAX_LINE): string[] {
  const lines = pretty.split("\n").map((l) => {
    const safe = escapeControl(l);
    return safe.length > width ? `${safe.slice(0, width)}… (${safe.length - width} more characters)` : safe;
  });
  if (lines.length <= maxLines) return lines;
  const hidden = lines.length - maxLines;
  return [...lines.slice(0, maxLines), `… ${hidden} more line${hidden === 1 ? "" : "s"} of arguments (${pretty.length} characters in all)`];
}
