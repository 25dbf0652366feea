// Flags, environment and settings files → one frozen Config. Everything the
// rest of bunker knows about how it was started comes from here.
import { parseFlags, type FlagSpec } from "./flags.ts";
import { DEFAULT_MAX_TURNS, DEFAULT_MODEL } from "./help.ts";
import { homedir } from "./fs/home.ts";
import { join } from "node:path";
import { absoluteGlob, emptyGrants, proxiesAllNetBut, type Grants, type PathRules } from "./perms/policy.ts";
import { isWithin, resolveFrom, resolveRoot } from "./perms/workspace.ts";
import { loadRulesFiles, rulesFilePaths, RulesFileError } from "./perms/rules-file.ts";
import { loadMcpConfig, type McpConfig } from "./mcp/config.ts";
import { hostOfUrlHint, parseHostPattern } from "./net/host-pattern.ts";
import { sessionIdProblem } from "./session/id.ts";
import { defaultSessionsPath } from "./session/paths.ts";
import { parseThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from "./agent/thinking.ts";
import { nearestWord } from "./text/typos.ts";

export type OutputFormat = "text" | "json" | "stream-json";
export type SandboxMode = "auto" | "on" | "off";
/** -c: the newest session here; -r ID: that one; bare -r: list them. */
export type ResumeRequest = { kind: "latest" } | { kind: "id"; id: string } | { kind: "list" };

export { DEFAULT_MAX_TURNS, DEFAULT_MODEL };

/** Claude Code's short model names, which are no model's name to the API. */
const MODEL_ALIASES = new Set(["opus", "sonnet", "haiku", "opusplan", "default"]);

export interface Config {
  prompt: string | undefined;
  /** Headless: run one turn, print the answer on stdout, exit. */
  print: boolean;
  outputFormat: OutputFormat;
  model: string;
  /** The model was named (-m or BUNKER_MODEL): a continued session keeps its own otherwise. */
  modelExplicit: boolean;
  maxTurns: number;
  /** Workspace root: absolute and realpath'd. */
  root: string;
  grants: Grants;
  /** Never ask: what is not granted is denied. */
  noPrompt: boolean;
  allowEnv: string[];
  sandbox: SandboxMode;
  verbose: boolean;
  apiKey: string;
  baseURL: string | undefined;
  /** Remind the model of its todo list after this many rounds without it (0: never). */
  todoAfter: number;
  /** First retry delay; tests shrink it through BUNKER_RETRY_BASE_MS. */
  retryBaseMs: number;
  /** A request with no byte for this long is abandoned and retried (BUNKER_STREAM_IDLE_SECONDS). */
  idleTimeoutMs: number;
  /** Shown once at start-up: rules-file entries that were ignored, and why. */
  startupWarnings: string[];
  /**
   * Object stores of repositories that hold a file a deny-read rule covers (in the index or history), or whose history
   * was not yet looked at: hidden from MCP servers, for their session. Found by buildApp before they start, only when a
   * deny-read rule exists (denied-history.ts); commands ask the session's look anew before each one.
   */
  hiddenGitObjects?: string[];
  resume: ResumeRequest | undefined;
  /** --undo / --rewind[=N]: take back file changes of the session instead of running a turn ("list": show the turns). */
  takeBack: { turn: "last" | "list" | number; force: boolean; conversation: boolean } | undefined;
  /** --thinking or the settings' "thinking"; undefined: on where the model supports it. */
  thinking: ThinkingLevel | undefined;
  /** The settings' "notify": the turn length (ms) after which the prompt's wait is signalled; null: never signal. */
  notifyAfterMs: number | null;
  /** The saved-sessions database ($XDG_STATE_HOME/bunker/sessions.db). */
  sessionsPath: string;
  /** False with --no-session-persistence: nothing of this run goes into the session store (conversation, prompts, checkpoints). */
  persist: boolean;
  /** MCP servers from the user's settings.json and the project's .mcp.json (none started yet). */
  mcp: McpConfig;
  /** Servers named by --allow-mcp=NAMES: a project's among them start without asking. */
  mcpNamed: string[];
}

export class UsageError extends Error {
  override name = "UsageError";
}

const PERMISSION_FLAGS = [
  "allow-read", "allow-write", "allow-run", "allow-net",
  "deny-read", "deny-write", "deny-run", "deny-net",
  "allow-mcp", "deny-mcp",
] as const;



/**
 * `--allow-read` with no value means "all", and a bare `--resume` means "list";
 * parseArgs needs a value, so give them one. A bare permission flag gets NUL,
 * which no real argument can hold, so `--allow-run=` (an empty list, say from
 * an unset variable) is not mistaken for "everything".
 */
const BARE = "\0";
function normalizeBareFlags(argv: string[]): string[] {
  // After `--` every word is the prompt's, as typed.
  const end = argv.indexOf("--");
  // A loop, not .map: see jit.ts.
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) out.push(normalizeBareFlag(argv, i, end));
  return out;
}

function normalizeBareFlag(argv: string[], i: number, end: number): string {
  const a = argv[i]!;
  if (end !== -1 && i >= end) return a;
  if (a.startsWith("--") && (PERMISSION_FLAGS as readonly string[]).includes(a.slice(2))) return `${a}=${BARE}`;
  const next = argv[i + 1];
  if ((a === "--resume" || a === "-r") && (next === undefined || next.startsWith("-"))) return `--resume=${BARE}`;
  if (a === "--rewind" && !(next !== undefined && /^\d+$/.test(next))) return `--rewind=${BARE}`;
  return a;
}

/**
 * What may follow --undo and --rewind=N, as after /undo and /rewind N in the REPL: "force"
 * (take back files changed since, too) and, with --rewind=N, "conversation" (drop those turns
 * from the saved conversation as well). They run no prompt.
 */
function takeBackWords(turn: "last" | "list" | number, words: string[]): { force: boolean; conversation: boolean } {
  const allowed = turn === "list" ? [] : turn === "last" ? ["force"] : ["force", "conversation"];
  const odd = words.filter((w) => !allowed.includes(w));
  if (odd.length > 0) {
    const usage = turn === "list"
      ? "--rewind alone lists the turns; to take one back: bunker --rewind=N, optionally followed by conversation and force"
      : turn === "last"
        ? "--undo takes back file changes and runs no prompt; only \"force\" may follow it (take back files changed since, too)"
        : "--rewind=N takes back file changes and runs no prompt; only \"conversation\" (drop those turns from the saved conversation too) and \"force\" (take back files changed since, too) may follow it";
    throw new UsageError(`${usage}, not "${odd.join(" ")}"`);
  }
  return { force: words.includes("force"), conversation: words.includes("conversation") };
}

function splitList(flag: string, values: string[] | undefined): { bare: boolean; items: string[] } {
  if (!values) return { bare: false, items: [] };
  const given = values.filter((v) => v !== BARE);
  const items = given.flatMap((v) => v.split(",")).map((s) => s.trim()).filter(Boolean);
  if (given.length > 0 && items.length === 0) {
    const bareForm = (PERMISSION_FLAGS as readonly string[]).includes(flag) ? `Write --${flag} alone for all of it, or list` : "List";
    throw new UsageError(`--${flag}= names nothing (an empty list, perhaps an unset variable). ${bareForm} what you mean: --${flag}=${EXAMPLE[flag] ?? "NAMES"}`);
  }
  return { bare: values.includes(BARE), items };
}

const EXAMPLE: Record<string, string> = {
  "allow-read": "../shared", "allow-write": "src,tests", "allow-run": "git,bun", "allow-net": "registry.npmjs.org",
  "deny-read": "secrets", "deny-write": "package-lock.json", "deny-run": "curl", "deny-net": "example.com", "allow-env": "GITHUB_TOKEN",
  "allow-mcp": "github,docs/search", "deny-mcp": "github/delete_repo",
};

function pathRules(root: string, flag: string, values: string[] | undefined, into: PathRules): void {
  const { bare, items } = splitList(flag, values);
  if (bare) into.workspace = true;
  for (const item of items) {
    if (item.includes("\0")) throw new UsageError("a path contains a NUL byte");
    const base = item === "~" || item.startsWith("~/") ? process.env.HOME ?? "/" : root;
    // --deny-read='**/*.pem': a glob as in a rules file (a deny may only cover more; an allow stays literal).
    if (flag.startsWith("deny-") && /[*?[{]/.test(item)) {
      into.globs.push(absoluteGlob(base, item === "~" || item.startsWith("~/") ? item.slice(2) : item));
      continue;
    }
    into.paths.push(resolveFrom(base, item === "~" || item.startsWith("~/") ? item.slice(2) : item).real);
  }
}

/** The flag parser's errors (node:util parseArgs's words), trimmed to the part a person needs: "unknown option --bogus". */
/** What a flag's value is, for "-m needs a model name". */
const VALUE_NAMES: Record<string, string> = {
  model: "a model name", workspace: "a directory", "output-format": "a format", "max-turns": "a number", sandbox: "a mode", thinking: "a level",
};
const VALUE_EXAMPLES: Record<string, string> = {
  model: "claude-sonnet-4-5", workspace: "../project", "output-format": "json", "max-turns": "20", sandbox: "off", thinking: "low",
};

function flagError(message: string): string {
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) {
    const flag = unknown[1]!;
    const named = flag.startsWith("-") ? flag : `-${flag}`;
    return `unknown option ${named}${unknownFlagHint(named)}`;
  }
  const missing = /^Option '(?:(-\w), )?(--[\w-]+) <value>' argument missing/.exec(message);
  if (missing) {
    const [, short, long] = missing;
    const value = VALUE_NAMES[long!.slice(2)] ?? "a value";
    return `${short ? `${short} (${long})` : long} needs ${value}, e.g. ${short ?? long} ${VALUE_EXAMPLES[long!.slice(2)] ?? "VALUE"}`;
  }
  const ambiguous = /^Option '([^']+)' argument is ambiguous/.exec(message);
  if (ambiguous) {
    const flag = ambiguous[1]!.split(/[ ,]/)[0]!;
    return `${flag} needs a value; a value starting with "-" is written ${flag}=-VALUE`;
  }
  return message.split("\n")[0]!.replace(/\.$/, "");
}

/** Every flag bunker takes (src/flags.ts parses them). */
export const FLAGS: Record<string, FlagSpec> = {
  print: { type: "boolean", short: "p" },
  "output-format": { type: "string" },
  model: { type: "string", short: "m" },
  "max-turns": { type: "string" },
  workspace: { type: "string", short: "C" },
  "allow-all": { type: "boolean", short: "A" },
  "no-prompt": { type: "boolean" },
  "allow-env": { type: "string", multiple: true },
  sandbox: { type: "string" },
  thinking: { type: "string" },
  verbose: { type: "boolean" },
  continue: { type: "boolean", short: "c" },
  resume: { type: "string", short: "r" },
  undo: { type: "boolean" },
  "no-session-persistence": { type: "boolean" },
  rewind: { type: "string" },
  version: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
};
// A loop, not Object.fromEntries: see jit.ts.
for (const f of PERMISSION_FLAGS) FLAGS[f] = { type: "string", multiple: true };

/** The flag a mistyped long one most likely meant (--alow-run: --allow-run), one or two typos away. */
function closestFlag(typed: string): string | undefined {
  if (!typed.startsWith("--")) return undefined;
  const meant = nearestWord(typed.slice(2).split("=")[0]!, Object.keys(FLAGS));
  return meant && `--${meant}`;
}

/**
 * Other agents' flags a person brings along, and what bunker has instead
 * (Claude Code's and Codex CLI's): "unknown option" alone leaves them guessing.
 */
const OTHER_AGENTS_FLAGS: Record<string, string> = {
  "dangerously-skip-permissions": "bunker's nearest is -A (no prompts inside the workspace) with --allow-run (every command, still in the sandbox)",
  "dangerously-bypass-approvals-and-sandbox": "bunker's nearest is -A (no prompts inside the workspace) with --allow-run (every command, still in the sandbox)",
  yolo: "bunker's nearest is -A (no prompts inside the workspace) with --allow-run (every command, still in the sandbox)",
  "full-auto": "bunker's nearest is -A (no prompts inside the workspace) with --allow-run (every command, still in the sandbox)",
  allowedTools: "bunker grants by kind: --allow-run=PROGRAMS, --allow-write[=PATHS], --allow-net=HOSTS, --allow-mcp=SERVER/TOOL",
  "allowed-tools": "bunker grants by kind: --allow-run=PROGRAMS, --allow-write[=PATHS], --allow-net=HOSTS, --allow-mcp=SERVER/TOOL",
  disallowedTools: "bunker refuses by kind: --deny-run=PROGRAMS, --deny-write[=PATHS], --deny-net=HOSTS, --deny-mcp=SERVER/TOOL",
  "disallowed-tools": "bunker refuses by kind: --deny-run=PROGRAMS, --deny-write[=PATHS], --deny-net=HOSTS, --deny-mcp=SERVER/TOOL",
  "permission-mode": "bunker's permissions are flags: -A (no prompts inside the workspace), --no-prompt (never ask), --allow-*/--deny-*",
  "ask-for-approval": "bunker's permissions are flags: -A (no prompts inside the workspace), --no-prompt (never ask), --allow-*/--deny-*",
};

/** "(did you mean --allow-run?)" or what bunker has for another agent's flag, or "". */
function unknownFlagHint(named: string): string {
  const other = named.startsWith("--") ? OTHER_AGENTS_FLAGS[named.slice(2).split("=")[0]!] : undefined;
  if (other) return `: ${other}`;
  const meant = closestFlag(named);
  return meant ? ` (did you mean ${meant}?)` : "";
}

/** `--flag must be a, b or c, not "x"`, with the one it most likely meant. */
function badValue(flag: string, allowed: readonly string[], given: string): UsageError {
  const list = `${allowed.slice(0, -1).join(", ")} or ${allowed.at(-1)}`;
  const meant = nearestWord(given, allowed);
  return new UsageError(`${flag} must be ${list}, not "${given}"${meant ? ` (did you mean ${meant}?)` : ""}`);
}

export interface ParsedArgs {
  help: boolean;
  version: boolean;
  config?: Config;
}

export function parseConfig(argv: string[], env: Record<string, string | undefined>, stdinIsTTY: boolean): ParsedArgs {
  let parsed;
  try {
    parsed = parseFlags(normalizeBareFlags(argv), FLAGS);
  } catch (err) {
    throw new UsageError(`${flagError((err as Error).message)}. Run bunker --help for usage.`);
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (v.help) return { help: true, version: false };
  if (v.version) return { help: false, version: true };

  const format = (v["output-format"] as string | undefined) ?? "text";
  if (!["text", "json", "stream-json"].includes(format)) throw badValue("--output-format", ["text", "json", "stream-json"], format);
  const sandbox = (v.sandbox as string | undefined) ?? "auto";
  if (!["auto", "on", "off"].includes(sandbox)) throw badValue("--sandbox", ["auto", "on", "off"], sandbox);
  const thinkingText = v.thinking as string | undefined;
  const thinkingFlag = thinkingText === undefined ? undefined : parseThinkingLevel(thinkingText);
  if (thinkingFlag === null) throw badValue("--thinking", THINKING_LEVELS, thinkingText!);
  const maxTurnsText = (v["max-turns"] as string | undefined) ?? String(DEFAULT_MAX_TURNS);
  const maxTurns = Number(maxTurnsText);
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new UsageError(`--max-turns must be a whole number of at least 1, not "${maxTurnsText}"`);

  const resumeId = v.resume as string | undefined;
  if (v.continue && resumeId !== undefined) throw new UsageError("use -c (the newest session here) or -r ID (that session), not both");
  if (resumeId !== undefined && resumeId !== BARE && resumeId.trim() === "") {
    throw new UsageError("--resume= names no session (an empty id, perhaps an unset variable). Write --resume alone to list them, or -r ID");
  }
  // A malformed id is the mistake to report, before stdin or the key are looked at.
  const idProblem = resumeId !== undefined && resumeId !== BARE ? sessionIdProblem(resumeId) : null;
  if (idProblem) throw new UsageError(idProblem);
  const rewind = v.rewind as string | undefined;
  if (v.undo && rewind !== undefined) throw new UsageError("use --undo (the last turn) or --rewind=N (back to before turn N), not both");
  if (rewind !== undefined && rewind !== BARE && !/^[1-9]\d*$/.test(rewind.trim())) {
    throw new UsageError(`--rewind takes a turn number from the list that --rewind alone prints, not "${rewind}"`);
  }
  const turn = v.undo ? "last" : rewind === undefined ? undefined : rewind === BARE ? "list" : Number(rewind);
  const takeBack: Config["takeBack"] = turn === undefined ? undefined : { turn, ...takeBackWords(turn, parsed.positionals) };
  const resume: ResumeRequest | undefined = takeBack && !v.continue && resumeId === undefined ? { kind: "latest" } : v.continue
    ? { kind: "latest" }
    : resumeId === undefined ? undefined : resumeId === BARE ? { kind: "list" } : { kind: "id", id: resumeId.trim() };
  const persist = !v["no-session-persistence"];
  if (!persist && (v.continue || resumeId !== undefined || takeBack)) {
    const other = v.continue ? "-c" : resumeId !== undefined ? "--resume" : v.undo ? "--undo" : "--rewind";
    throw new UsageError(`--no-session-persistence saves nothing, so it cannot be used with ${other}, which works on a saved session: leave one of them out`);
  }
  if (resume?.kind === "list" && (v.print || parsed.positionals.length > 0)) {
    throw new UsageError("--resume without an id lists the sessions and runs nothing; to continue one, give its id: bunker -r ID -p \"what to do\"");
  }

  let root: string;
  try {
    root = resolveRoot((v.workspace as string | undefined) ?? process.cwd());
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  // Everything in a workspace is readable: a home directory (or / above it) would open keys and logins to the model.
  const home = resolveFrom(process.cwd(), env.HOME || homedir()).real;
  if (isWithin(root, home)) {
    throw new UsageError(
      `${root} holds your home directory${root === home ? "" : ` (${home})`}: as the workspace, all of it (SSH keys, cloud logins, shell history) would be readable by the model. Run bunker in a project directory, or name one with -C DIR`,
    );
  }

  const grants = emptyGrants();
  const list = (name: string) => v[name] as string[] | undefined;
  for (const flag of ["allow-read", "allow-write", "deny-read", "deny-write"] as const) {
    const [kind, what] = flag.split("-") as ["allow" | "deny", "read" | "write"];
    pathRules(root, flag, list(flag), grants[kind][what]);
  }
  for (const [kind, target] of [["allow", grants.allow.run], ["deny", grants.deny.run]] as const) {
    const { bare, items } = splitList(`${kind}-run`, list(`${kind}-run`));
    target.all ||= bare;
    target.programs.push(...items);
  }
  for (const [kind, target] of [["allow", grants.allow.net], ["deny", grants.deny.net]] as const) {
    const { bare, items } = splitList(`${kind}-net`, list(`${kind}-net`));
    target.all ||= bare;
    for (const item of items) {
      if (!parseHostPattern(item)) throw new UsageError(`--${kind}-net: "${item}" is not a host name${hostOfUrlHint(item)}; write a host, host:port or *.domain, like --${kind}-net=${EXAMPLE[`${kind}-net`]}`);
    }
    for (const h of items) target.hosts.push(h.toLowerCase());
  }
  for (const [kind, target] of [["allow", grants.allow.mcp], ["deny", grants.deny.mcp]] as const) {
    const { bare, items } = splitList(`${kind}-mcp`, list(`${kind}-mcp`));
    target.all ||= bare;
    target.names.push(...items);
  }
  // Taken before the rules files add theirs: only the command line starts a project's server unasked.
  const mcpNamed: string[] = [];
  for (const n of grants.allow.mcp.names) mcpNamed.push(n.split("/")[0]!);
  if (v["allow-all"]) {
    // -A: no prompts inside the workspace. It grants nothing outside it.
    grants.allow.read.workspace = true;
    grants.allow.write.workspace = true;
    grants.allow.run.all = true;
  }
  // A path flag that names the workspace itself is the same as the bare flag.
  for (const rules of [grants.allow.read, grants.allow.write]) {
    for (const p of rules.paths) if (isWithin(p, root)) rules.workspace = true;
  }

  let todoAfter = 3;
  let thinkingSetting: ThinkingLevel | undefined;
  let notify: boolean | number = true;
  const startupWarnings: string[] = [];
  try {
    const rules = loadRulesFiles(root, grants, env);
    startupWarnings.push(...rules.ignored);
    if (typeof rules.reminders?.todoAfter === "number") todoAfter = rules.reminders.todoAfter;
    thinkingSetting = rules.thinking;
    if (rules.notify !== undefined) notify = rules.notify;
  } catch (err) {
    if (err instanceof RulesFileError) throw new UsageError(err.message);
    throw err;
  }

  // A blank prompt is no prompt: never send the model an empty message.
  const joined = parsed.positionals.join(" ");
  const prompt = joined.trim() !== "" ? joined : undefined;
  // Without a terminal there is nobody to hold a conversation with: run headless.
  const print = Boolean(v.print) || !stdinIsTTY;
  if (v.print && prompt === undefined && stdinIsTTY) throw new UsageError('-p needs a prompt: bunker -p "what to do"');
  if (!print && format !== "text") throw new UsageError(`--output-format ${format} is for headless runs: add -p, as in bunker -p "what to do" --output-format ${format}`);

  const baseURL = env.ANTHROPIC_BASE_URL || undefined;
  // `localhost:8080` parses as a URL of the scheme "localhost:": an http(s) URL with a host is what the SDK can call.
  const base = baseURL === undefined ? null : URL.parse(baseURL);
  if (baseURL !== undefined && (!base || (base.protocol !== "http:" && base.protocol !== "https:") || base.hostname === "")) {
    const meant = /^[\w.-]+:\d+(\/.*)?$/.test(baseURL) || /^[\w.-]+\.[a-z]{2,}(\/.*)?$/i.test(baseURL) ? `; did you mean http://${baseURL}?` : "";
    throw new UsageError(`ANTHROPIC_BASE_URL is not an http or https URL: "${baseURL}" (expected something like http://127.0.0.1:8080)${meant}`);
  }
  const retryBase = Number(env.BUNKER_RETRY_BASE_MS ?? "1000");
  const idleSeconds = Number(env.BUNKER_STREAM_IDLE_SECONDS ?? "90");
  const mcp = loadMcpConfig({ root, userFile: rulesFilePaths(root, env).user, home, env });
  startupWarnings.push(...mcp.warnings);
  if (sandbox === "off" && grants.allow.net.hosts.length > 0 && !grants.allow.net.all) {
    // Only the sandbox keeps commands to the proxy: say so rather than let the host list look like a limit.
    startupWarnings.push(`--sandbox off: commands reach the whole network; --allow-net=${grants.allow.net.hosts.join(",")} limits only web_fetch.`);
  }
  if (proxiesAllNetBut(grants)) {
    // A shared network cannot refuse a host (red team 11's F06): what the deny list costs, said once.
    const denied = grants.deny.net.hosts.join(",");
    startupWarnings.push(sandbox === "off"
      ? `--sandbox off: commands reach the whole network; --deny-net=${denied} holds only for web_fetch.`
      : `--deny-net=${denied} with a bare --allow-net: commands reach every other host through bunker's proxy (HTTP, HTTPS and tunnelled connections; a program that ignores HTTP_PROXY gets no network), and your machine's own or local addresses only when granted by address (--allow-net=127.0.0.1:PORT).`);
  }
  if (grants.allow.write.paths.includes(join(root, ".git"))) {
    // What the grant means, said once: a failed commit's note points here, so it must not read as "anything goes in .git".
    startupWarnings.push(
      sandbox === "off"
        ? "--allow-write=.git with --sandbox off: commands run unconfined and can change anything in .git, its config and hooks included (what your next git runs)."
        : "--allow-write=.git: commands may commit, branch, rebase, stash and fetch (and rewrite or delete history); git's config, hooks, info/ and commondir stay read-only to them.",
    );
  }
  // An empty model name (`-m ""`, an unset variable) would go to the API as one and fail there: said here (new user 12's N12-04).
  const modelFlag = v.model as string | undefined;
  if (modelFlag !== undefined && modelFlag.trim() === "") throw new UsageError(`--model names no model (an empty name, perhaps an unset variable): give one, or leave the flag out for the default (${DEFAULT_MODEL})`);
  // Claude Code's short names would go to the API as they are and come back "not found" (new user 12's N12-30).
  const named = modelFlag ?? env.BUNKER_MODEL;
  if (named !== undefined && MODEL_ALIASES.has(named.trim().toLowerCase())) {
    throw new UsageError(`${modelFlag !== undefined ? "--model" : "BUNKER_MODEL"} ${named.trim()}: bunker sends the model's name as given, and the API knows models by their full names (${DEFAULT_MODEL} is the default); give the full name, such as claude-opus-… or claude-haiku-…`);
  }
  const config: Config = {
    prompt,
    print,
    outputFormat: format as OutputFormat,
    model: (v.model as string | undefined) ?? env.BUNKER_MODEL ?? DEFAULT_MODEL,
    modelExplicit: v.model !== undefined || Boolean(env.BUNKER_MODEL),
    maxTurns,
    root,
    grants,
    noPrompt: Boolean(v["no-prompt"]),
    allowEnv: splitList("allow-env", list("allow-env")).items,
    sandbox: sandbox as SandboxMode,
    verbose: Boolean(v.verbose),
    apiKey: env.ANTHROPIC_API_KEY ?? "",
    baseURL,
    todoAfter,
    retryBaseMs: Number.isFinite(retryBase) && retryBase >= 0 ? retryBase : 1000,
    idleTimeoutMs: Number.isFinite(idleSeconds) && idleSeconds > 0 ? idleSeconds * 1000 : 90_000,
    startupWarnings,
    resume,
    takeBack,
    thinking: thinkingFlag ?? thinkingSetting,
    // By default a turn of 10 s or more: one shorter, the person is likely still watching.
    notifyAfterMs: notify === false ? null : notify === true ? 10_000 : notify * 1000,
    sessionsPath: defaultSessionsPath(env),
    persist,
    mcp,
    mcpNamed,
  };
  return { help: false, version: false, config };
}
