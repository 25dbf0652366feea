// The question asked before a project's MCP server first starts: the whole
// command (or address) it runs, the variables of yours it gets, how it will be
// confined and exactly which paths beyond the workspace it will see (and
// which it names but will not, with how to grant them); then yes (remembered for this workspace and this exact
// definition), no (for this session: what Enter alone picks) or never (remembered like a yes).
import { log } from "@clack/prompts";
import pc from "../ui/colors.ts";
import { shellQuote } from "../shell/quote.ts";
import { escapeControl } from "../ui/escape.ts";
import { holdWaitingKeys, withKeyFeed, type FeedInput } from "../ui/key-feed.ts";
import type { KeyToken } from "../ui/keys.ts";
import { selectKeys } from "../ui/select-keys.ts";
import { giveBackAtExit, type TtyIn } from "../ui/tty-exit.ts";
import { wrapInBox } from "../ui/wrap-words.ts";
import type { McpServerDef } from "./config.ts";
import type { ConsentAnswer } from "./consent.ts";
import type { LaunchView } from "./sandbox.ts";

const NETWORK: Record<LaunchView["network"], string> = { all: "all network", "all-but": "network through bunker's proxy to every host but", hosts: "network only to", none: "no network" };

/** How it is confined, and what it sees and does not see beyond the workspace. */
function describeView(def: McpServerDef, view: LaunchView): string[] {
  if (!view.sandboxed) return [pc.yellow("runs WITHOUT a sandbox (none is available here)")];
  const net = view.network === "hosts" ? `${NETWORK.hosts} ${escapeControl(def.net.join(", "))}` : view.network === "all-but" ? `${NETWORK["all-but"]} ${escapeControl((view.deniedHosts ?? []).join(", "))}` : NETWORK[view.network];
  const lines = [pc.dim(`runs in the sandbox: workspace read-only, ${net}, its own state directory`)];
  lines.push(view.readable.length
    ? `${pc.dim("also sees, read-only:")} ${pc.yellow(escapeControl(view.readable.join(", ")))}`
    : pc.dim("sees nothing else of this machine but the system and toolchain directories"));
  // Its `write` folders: one a deny-write rule covers whole is read-only to it (a deny wins over the grant).
  for (const w of view.writes ?? []) {
    const path = escapeControl(w.path);
    if (w.readOnlyBy) lines.push(`${pc.dim("may write:")} ${path} ${pc.yellow(`— READ-ONLY to it: the deny-write rule ${escapeControl(w.readOnlyBy)} covers it`)}`);
    else lines.push(`${pc.dim("may write:")} ${pc.yellow(path)}${w.partly ? pc.dim(" (what your deny-write rules name in it stays read-only)") : ""}`);
  }
  if (view.notShown.length) {
    const first = escapeControl(view.notShown[0]!);
    lines.push(`${pc.dim("named but NOT shown to it (outside the workspace):")} ${escapeControl(view.notShown.join(", "))}`);
    lines.push(pc.dim(`to let it read one, add "read": ["${first}"] under mcpServers.${escapeControl(def.name)} in your settings.json, or run with --allow-read=${first}`));
  }
  return lines;
}

/**
 * Variables that make the program run other code than the one named (red team 8 F12: `PYTHONPATH=tools/.cache`, a
 * sitecustomize.py there ran first, with the token): marked, with what they do.
 */
const CODE_LOADING: Record<string, string> = {
  PYTHONPATH: "python imports from there first, and runs a sitecustomize.py there at start",
  PYTHONSTARTUP: "python runs that file", PYTHONHOME: "python's own library comes from there", PYTHONUSERBASE: "python loads packages and .pth files from there",
  NODE_OPTIONS: "node runs what --require or --import names", NODE_PATH: "node resolves modules from there",
  BUN_OPTIONS: "bun takes those options: --preload runs a file first", DENO_OPTIONS: "deno takes those options",
  LD_PRELOAD: "every program loads that library", LD_LIBRARY_PATH: "programs load libraries from there first", LD_AUDIT: "every program loads that library",
  BASH_ENV: "bash runs that file", ENV: "sh runs that file", PERL5OPT: "perl runs those options", PERL5LIB: "perl loads modules from there first",
  RUBYOPT: "ruby runs those options", RUBYLIB: "ruby loads from there first", JAVA_TOOL_OPTIONS: "the JVM takes those options (agents)",
  _JAVA_OPTIONS: "the JVM takes those options (agents)", JDK_JAVA_OPTIONS: "the JVM takes those options (agents)",
  PATH: "programs are looked up there", DYLD_INSERT_LIBRARIES: "every program loads that library",
};

/** A value as shown: at most 120 characters. */
function clipValue(value: string): string {
  return value.length > 120 ? `${value.slice(0, 119)}…` : value;
}

/** The lines that describe a definition: what runs, with what of yours. */
export function describeDefinition(def: McpServerDef, view: LaunchView): string[] {
  const t = def.transport;
  const lines: string[] = [];
  if (t.type === "stdio") {
    lines.push(`${pc.dim("$")} ${pc.bold(escapeControl([t.command, ...t.args].map(shellQuote).join(" ")))}`);
    for (const [name, value] of Object.entries(def.envWritten ?? t.env)) {
      const loads = CODE_LOADING[name];
      lines.push(`${pc.dim("sets:")} ${escapeControl(`${name}=${clipValue(value)}`)}${loads ? pc.yellow(` (loads code: ${loads})`) : ""}`);
    }
    lines.push(...describeView(def, view));
  } else {
    lines.push(`${pc.dim("connects to")} ${pc.bold(escapeControl(t.url))}`);
    const headers = Object.keys(t.headers);
    if (headers.length) lines.push(`${pc.dim("headers:")} ${escapeControl(headers.join(", "))}`);
  }
  if (def.passes.length) lines.push(`${pc.dim("gets your variables:")} ${pc.yellow(escapeControl(def.passes.join(", ")))}`);
  return lines;
}

/** The keys that answer the start question: a number, an arrow, Enter (Escape and Ctrl+C always refuse). */
export function answersConsent(t: KeyToken): boolean {
  const name = t.key?.name;
  return name === "up" || name === "down" || name === "enter" || (name === "text" && /^[1-3]$/.test(t.raw));
}

export async function askConsent(def: McpServerDef, changed: boolean, view: LaunchView, input: FeedInput & TtyIn = process.stdin): Promise<ConsentAnswer> {
  const output = process.stderr;
  // Reading the keys already typed sets raw mode, so does the feed, and the prompt hides the cursor: a signal from
  // the first read on must not leave them so.
  const unhook = giveBackAtExit(input, output);
  try {
    // Keys come through the one keyboard path (key-feed.ts): what was typed before the question (at start-up it
    // waits in the terminal) or on into a message while it is drawn goes to the input line, never answers it.
    await holdWaitingKeys(input);
    const what = changed ? "changed its MCP server" : "wants to start an MCP server";
    // Wrapped inside the box: the terminal's own wrap would cut mid-word and leave the "│" gutter.
    const since = changed ? " since you said yes (its definition, or a file it runs)" : "";
    log.step(wrapInBox([`This project's ${escapeControl(def.file)} ${what} ${pc.bold(escapeControl(def.name))}${since}`], output.columns).join("\n"), { output });
    log.message(wrapInBox(describeDefinition(def, view), output.columns), { output, spacing: 0 });
    // Only 1..3 (which move), the arrows and Enter answer it, and Enter alone is "No, not in this session" (as Claude Code leaves a
    // project's server it was not told to use disabled): a letter, or an Enter after one, is the person typing their
    // first message without having seen the question, and goes to the input line (key-feed.ts).
    const { answer } = await withKeyFeed(input, (feed) =>
      selectKeys<ConsentAnswer>({
        message: `Start ${escapeControl(def.name)}?`,
        options: [
          { value: "yes", label: "Yes, and remember it for this workspace (until the definition changes)" },
          { value: "no", label: "No, not in this session" },
          { value: "never", label: "No, and do not ask again in this workspace (until the definition changes)" },
        ],
        initial: "no",
        // Escape or Ctrl+C: what it means, in place of the answer.
        cancelled: `Not started; /mcp start ${escapeControl(def.name)} asks again.`,
        // A number only moves: "1 more thing" typed after a pause must not remember the server.
        numbersMove: true,
        input: feed,
        output,
      }), { answers: answersConsent, undoMove: "2" },
    );
    // Escape or Ctrl+C (clack's cancel symbol) is a no for this session.
    return typeof answer === "symbol" ? "no" : answer;
  } finally {
    unhook();
  }
}
