// The help text and the defaults it names. Kept apart from config.ts so
// `bunker --help` and `--version` load nothing else.
export const DEFAULT_MODEL = "claude-sonnet-5-5";
export const DEFAULT_MAX_TURNS = 50;

export const HELP = `bunker: a coding agent that edits only with your say-so

Usage:
  bunker [options] [prompt]        interactive session (a prompt starts it)
  bunker -p "prompt"               headless: print the answer and exit

Options:
  -p, --print                      headless mode (also when stdin is not a terminal and a prompt is given)
      --output-format FORMAT       text | json | stream-json (headless; default text)
  -m, --model NAME                 model (default ${DEFAULT_MODEL}; env BUNKER_MODEL)
      --max-turns N                model calls per turn (default ${DEFAULT_MAX_TURNS})
  -C, --workspace DIR              workspace root (default: current directory)
      --thinking LEVEL             off | low | medium | high: extended thinking (default high where the model supports it)
  -c, --continue                   continue the newest saved session in this workspace
  -r, --resume [ID]                continue session ID; bare: list this workspace's sessions
      --undo                       take back the file changes of the session's last turn (with -c, the default, or -r ID)
      --rewind [N]                 take the files back to before turn N; bare: list the turns that changed files
      --no-session-persistence     save nothing of this run (no -c, -r, /undo or prompt history for it)

Permissions (PATHS and PROGRAMS are comma-separated):
      --allow-read[=PATHS]         reads: bare = whole workspace; PATHS may lie outside it
      --allow-write[=PATHS]        writes without asking: bare = whole workspace
      --allow-run[=PROGRAMS]       commands: bare = every command
      --allow-net[=HOSTS]          network for commands
      --allow-mcp[=SERVERS]        MCP tool calls: SERVER or SERVER/TOOL; bare = all; also starts a project's named servers
      --deny-read[=PATHS] --deny-write[=PATHS] --deny-run[=PROGRAMS] --deny-net[=HOSTS] --deny-mcp[=SERVERS]
                                   refusals; a deny always wins; bare: everything of that kind
  -A, --allow-all                  no prompts inside the workspace (grants nothing outside)
      --no-prompt                  never ask: what is not granted is denied
      --allow-env=NAMES            pass these secret-looking variables to commands
      --sandbox MODE               auto | on | off: OS confinement for commands (default auto)

      --verbose                    show reminders, request sizes and retries
  -v, --version                    print the version
  -h, --help                       print this help

Environment: ANTHROPIC_API_KEY (required), ANTHROPIC_BASE_URL, BUNKER_MODEL,
  BUNKER_STREAM_IDLE_SECONDS (abandon and retry a silent request after this long; default 90)
Rules files: .bunker/settings.json and $XDG_CONFIG_HOME/bunker/settings.json (which also holds mcpServers)
MCP servers: mcpServers in your settings.json, and a project's .mcp.json (asks before starting); /mcp lists them
Sessions are saved in $XDG_STATE_HOME/bunker/sessions.db (default ~/.local/state/bunker)
Exit codes: 0 done, 1 runtime or API error, 2 bad usage or missing key, 130 interrupted`;

/**
 * The help fitted to a terminal `columns` wide: a line that does not fit breaks between words, an option's
 * description going on under its own column (new user 13's N13-08: 21 of 42 lines were wider than 80).
 */
export function fitHelp(text: string, columns: number | undefined): string {
  if (!columns || columns < 40) return text;
  return text
    .split("\n")
    .map((line) => {
      if (line.length <= columns) return line;
      // "  -m, --model NAME                 model (…)": the description starts after the option's column.
      const m = /^(\s+\S.*?\s{2,})(\S.*)$/.exec(line);
      const indent = m && m[1]!.length < columns - 20 ? m[1]!.length : /^\s*/.exec(line)![0].length;
      const body = m && m[1]!.length < columns - 20 ? m[2]! : line.slice(indent);
      const head = m && m[1]!.length < columns - 20 ? m[1]! : line.slice(0, indent);
      const rows = Bun.wrapAnsi(body, columns - indent, { hard: false, trim: true }).split("\n");
      return rows.map((r, i) => (i === 0 ? head : " ".repeat(indent)) + r).join("\n");
    })
    .join("\n");
}
