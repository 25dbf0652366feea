// What the model is told about run_bash (name, description, schema) and its
// one-line summary: cheap to load, so start-up offers the tool without
// loading the sandbox and network code run-bash.ts needs to run a command.
import { escapeControl } from "../ui/escape.ts";
import type { ToolSpec } from "./tool.ts";

export interface RunBashInput {
  command: string;
  timeout_ms?: number;
  description?: string;
}

/** The command's length in the one-line tool summary. */
export const SUMMARY_CHARS = 100;

/** One display line: control characters escaped, long text cut. */
export function oneLine(text: string, max: number): string {
  const escaped = escapeControl(text);
  return escaped.length > max ? escaped.slice(0, max - 1) + "…" : escaped;
}

export const runBashSpec: ToolSpec<RunBashInput> = {
  name: "run_bash",
  description:
    "Run a shell command with bash -c in the workspace root. Stdin is closed; stdout and stderr come back " +
    "interleaved, bounded to about 30 KB (head and tail kept). Default timeout 120000 ms, at most 600000. " +
    "Background processes are stopped when the command ends. Where an OS sandbox is available, only the " +
    "workspace and a private /tmp are writable and there is no network unless the person granted it; the home starts " +
    "empty for each command but for its caches (~/.cache, ~/.npm, …), so settings written there (git config --global) do not last. " +
    "Commands the person has not granted need their approval; if they refuse, do not retry the same command.",
  inputSchema: {
    type: "object",
    properties: {
      command: { type: "string", description: "The command line, as you would type it in bash." },
      timeout_ms: { type: "integer", description: "Milliseconds before the command is stopped (default 120000, max 600000)." },
      description: { type: "string", description: "Five to ten words on what the command does, shown to the person." },
    },
    required: ["command"],
    additionalProperties: false,
  },
  summarize(input) {
    const line = oneLine(input.command ?? "", SUMMARY_CHARS);
    return input.description ? `${line}  (${oneLine(input.description, 60)})` : line;
  },
};
