// Loads the rules files: the user's `$XDG_CONFIG_HOME/bunker/settings.json`
// (default ~/.config) and the workspace's `.bunker/settings.json`, each
// `{"allow": [...], "deny": [...]}` with entries `read:GLOB`, `write:GLOB`,
// `run:COMMAND-PATTERN`, `net:HOST`, merged into Grants. A malformed file is
// an error naming the file, line and entry: bunker refuses to start rather
// than guess what the person meant.
//
// Path entries are relative to the workspace (or absolute, or `~/...`). An
// entry without wildcards names a path and everything below it, like a flag.
// The literal part of a path is resolved through symlinks, as requests are.
// A workspace's own file is written by whoever wrote the repository, so it
// may only narrow what bunker does (or allow reading inside the workspace,
// which is allowed anyway). Allowing edits, commands, network or paths outside
// the workspace there is ignored with a warning: a cloned repository must not
// be able to hand itself your home directory or a shell, nor waive your
// approval of the edits it asks the model for (red team 11's F15). Those
// grants belong in the user file or on the command line.
import { hostOfUrlHint, parseHostPattern } from "../net/host-pattern.ts";
import { nearestWord } from "../text/typos.ts";
import { FileKindError, readRegularSync } from "../fs/file-kind.ts";
import { homedir, xdgConfigHome } from "../fs/home.ts";
import { statSync } from "node:fs";
import { basename, isAbsolute, join, sep } from "node:path";
import { emptyGrants, type Grants, type HostRules, type PathRules } from "./policy.ts";
import type { RunRules } from "./run/patterns.ts";
import type { RunsLaterRule } from "./runs-later.ts";
import { parseMcpRule, type McpRules } from "../mcp/decide.ts";
import { parseThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from "../agent/thinking.ts";
import { JsonSyntaxError, parseJsonWithPositions, type Position } from "./settings-json.ts";
import { isProtectedPath, isWithin, resolveFrom } from "./workspace.ts";

/** Settings other parts of bunker read from the same file. */
export interface Reminders {
  todoAfter?: number;
  [key: string]: unknown;
}

export interface RulesFilesResult {
  grants: Grants;
  /** The files that existed and were loaded, user file first. */
  loaded: string[];
  /** `"reminders"` from the files, the workspace's keys overriding the user's. */
  reminders?: Reminders;
  /** `"thinking"`: the default --thinking level, the workspace's overriding the user's. */
  thinking?: ThinkingLevel;
  /** `"notify"`: false (no bell, notification or title), true, or the seconds a turn takes before its end is signalled. */
  notify?: boolean | number;
  /** Entries of the workspace file that were ignored, each `file:line:col: ignored "entry": why`. */
  ignored: string[];
}

/** Top-level keys a settings file may have. Extend here when a feature adds one. */
export const KNOWN_SETTINGS_KEYS = ["$schema", "allow", "deny", "protect", "reminders", "thinking", "notify", "mcpServers", "workspaces"] as const;

export class RulesFileError extends Error {
  override name = "RulesFileError";
}

type Env = Record<string, string | undefined>;

/** Where the two files live. */
export function rulesFilePaths(root: string, env: Env = process.env): { user: string; workspace: string } {
  const home = env.HOME || homedir();
  return { user: join(xdgConfigHome(env, home), "bunker", "settings.json"), workspace: join(root, ".bunker", "settings.json") };
}

/**
 * Loads both files (missing ones are skipped) and adds their rules to `grants`
 * (the flags' grants, usually), which it returns.
 */
export function loadRulesFiles(root: string, grants: Grants, env: Env = process.env): RulesFilesResult {
  const paths = rulesFilePaths(root, env);
  const loaded: string[] = [];
  const ignored: string[] = [];
  let reminders: Reminders | undefined;
  let thinking: ThinkingLevel | undefined;
  let notify: boolean | number | undefined;
  for (const [file, scope] of [
    [paths.user, "user"],
    [paths.workspace, "workspace"],
  ] as const) {
    const text = readIfExists(file);
    if (text === null) continue;
    const parsed = parseRulesFile(file, text, root, grants, scope, env);
    loaded.push(file);
    ignored.push(...parsed.ignored);
    if (parsed.reminders) reminders = { ...reminders, ...parsed.reminders };
    if (parsed.thinking) thinking = parsed.thinking;
    if (parsed.notify !== undefined) notify = parsed.notify;
  }
  return { grants, loaded, ignored, ...(reminders ? { reminders } : {}), ...(thinking ? { thinking } : {}), ...(notify !== undefined ? { notify } : {}) };
}

function readIfExists(file: string): string | null {
  try {
    // A link is followed (a settings file kept in a dotfiles repository); a FIFO or device is refused at once.
    return readRegularSync(file, file, { max: 1024 * 1024, follow: true })?.bytes.toString("utf8") ?? null;
  } catch (err) {
    if (!(err instanceof FileKindError)) throw err;
    throw new RulesFileError(`cannot read the settings file: ${err.message}`);
  }
}

/** Parses one file's text and adds its rules to `grants`. Throws RulesFileError. */
export function parseRulesFile(
  file: string,
  text: string,
  root: string,
  grants: Grants,
  scope: "user" | "workspace",
  env: Env = process.env,
): { reminders?: Reminders; thinking?: ThinkingLevel; notify?: boolean | number; ignored: string[] } {
  let doc: ReturnType<typeof parseJsonWithPositions>;
  try {
    doc = parseJsonWithPositions(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      throw new RulesFileError(`${file}:${err.position.line}:${err.position.col}: invalid JSON: ${err.message}`);
    }
    throw err;
  }
  const at = (pointer: string, key = false): string => {
    const p: Position = (key ? doc.keyPositions : doc.positions).get(pointer) ?? { line: 1, col: 1 };
    return `${file}:${p.line}:${p.col}`;
  };
  const example = `for example {"allow": ["write:src/**", "run:bun test *"], "deny": ["read:.env"]}`;
  if (typeof doc.value !== "object" || doc.value === null || Array.isArray(doc.value)) {
    throw new RulesFileError(`${at("")}: the settings file must be a JSON object, ${example}`);
  }
  const settings = doc.value as Record<string, unknown>;
  for (const key of Object.keys(settings)) {
    if (!(KNOWN_SETTINGS_KEYS as readonly string[]).includes(key)) {
      throw new RulesFileError(
        `${at(`/${pointerKey(key)}`, true)}: unknown setting ${JSON.stringify(key)}; known settings are ${KNOWN_SETTINGS_KEYS.filter((k) => k !== "$schema").map((k) => `"${k}"`).join(", ")}`,
      );
    }
  }

  // Rules go into a scratch set first, so a bad file adds nothing at all.
  const local = emptyGrants();
  const home = env.HOME || homedir();
  const userFile = rulesFilePaths(root, env).user;
  const ignored: string[] = [];
  // The user's file may keep rules for one workspace ("always allow" saves there: reviewer's R11-14), read only by
  // bunker started in that folder: {"workspaces": {"/home/me/proj": {"allow": ["run:rm -rf build"]}}}.
  const scoped: { from: Record<string, unknown>; pointer: string }[] = [{ from: settings, pointer: "" }];
  const workspaces = settings.workspaces;
  if (workspaces !== undefined) {
    if (typeof workspaces !== "object" || workspaces === null || Array.isArray(workspaces)) {
      throw new RulesFileError(`${at("/workspaces")}: "workspaces" must be an object of workspace paths, like {"/home/me/proj": {"allow": ["run:make *"]}}`);
    }
    if (scope === "workspace") ignored.push(`${at("/workspaces", true)}: ignored "workspaces": rules for one workspace belong in ${userFile}`);
    else {
      const keys = Object.entries(workspaces as Record<string, unknown>).map(([path, rules]) => {
        const pointer = `/workspaces/${pointerKey(path)}`;
        if (typeof rules !== "object" || rules === null || Array.isArray(rules) || Object.keys(rules).some((k) => k !== "allow" && k !== "deny")) {
          throw new RulesFileError(`${at(pointer)}: a workspace's rules must be an object with "allow" and "deny" lists, like {"allow": ["run:make *"]}`);
        }
        return { path, from: rules as Record<string, unknown>, pointer };
      });
      // bunker saves under its physical root, so a string compare finds the key, with no file-system call for the
      // other projects' keys (reviewer's R12-20, issue 17: this runs before a headless turn's first request). Only when
      // no key is written as the root is a key typed by hand through a link looked for on disk, and only among the keys
      // that end in the workspace's own name or the name the person reached it by ($PWD): one stat each of those, none
      // for every other project's (a new project paid one per saved workspace).
      // A key's spelling is tidied first (`/proj/.`, `//proj`, `/proj/`; a `..` is left to the look on disk, which
      // follows links as the path does); a key that holds deny rules is always looked for on disk, whatever its name:
      // a rule that refuses is never dropped for speed (reviewer's R13-05).
      const named = keys.filter((k) => isAbsolute(k.path) && !k.path.split(sep).includes("..") && tidy(k.path) === root);
      const names = new Set([basename(root), ...(env.PWD && isAbsolute(env.PWD) ? [basename(env.PWD)] : [])]);
      const denies = (k: { from: Record<string, unknown> }) => Array.isArray(k.from.deny) && k.from.deny.length > 0;
      const likely = keys.filter((k) => !named.includes(k) && isAbsolute(k.path) && (denies(k) || (named.length === 0 && names.has(basename(tidy(k.path))))));
      const here = likely.length > 0 ? identity(root) : undefined;
      scoped.push(...named, ...likely.filter((k) => here !== undefined && identity(k.path) === here));
    }
  }
  for (const { from, pointer } of scoped) for (const list of ["allow", "deny"] as const) {
    const entries = from[list];
    if (entries === undefined) continue;
    if (!Array.isArray(entries)) {
      throw new RulesFileError(`${at(`${pointer}/${list}`)}: "${list}" must be a list of strings, ${example}`);
    }
    entries.forEach((entry, index) => {
      const where = at(`${pointer}/${list}/${index}`);
      if (typeof entry !== "string") {
        throw new RulesFileError(`${where}: "${list}" entry ${JSON.stringify(entry)} must be a string like "write:src/**"`);
      }
      const outcome = addRule(local[list], entry, { root, home, list, scope, userFile });
      if (outcome?.problem) throw new RulesFileError(`${where}: "${list}" entry ${JSON.stringify(entry)}: ${outcome.problem}`);
      if (outcome?.ignored) ignored.push(`${where}: ignored ${JSON.stringify(entry)}: ${outcome.ignored}`);
    });
  }

  // Files that run code later: writing them always asks. Either file may add to the list (it only asks more).
  const protect = settings.protect;
  if (protect !== undefined) {
    if (!Array.isArray(protect) || protect.some((p) => typeof p !== "string" || p.trim() === "")) {
      throw new RulesFileError(`${at("/protect")}: "protect" must be a list of paths or globs relative to the workspace, for example ["scripts/deploy.sh", "tools/hooks/**"]`);
    }
    local.protect = protect.map((p: string) => protectRule(p, file));
  }

  // MCP servers are read by mcp/config.ts; a workspace's own file may not define them.
  if (scope === "workspace" && settings.mcpServers !== undefined) {
    ignored.push(`${at("/mcpServers", true)}: ignored "mcpServers": a project's MCP servers belong in .mcp.json, where bunker asks before starting them`);
  }
  const reminders = settings.reminders;
  if (reminders !== undefined) checkReminders(reminders, at);
  const thinking = settings.thinking === undefined ? undefined : parseThinkingLevel(String(settings.thinking));
  if (thinking === null || (settings.thinking !== undefined && typeof settings.thinking !== "string")) {
    throw new RulesFileError(`${at("/thinking")}: "thinking" must be one of ${THINKING_LEVELS.map((l) => `"${l}"`).join(", ")}, got ${JSON.stringify(settings.thinking)}`);
  }
  const notify: unknown = settings.notify;
  if (notify !== undefined && typeof notify !== "boolean" && !(typeof notify === "number" && Number.isFinite(notify) && notify >= 0)) {
    throw new RulesFileError(`${at("/notify")}: "notify" must be true, false, or the seconds a turn takes before the prompt's wait is signalled (default 10), got ${JSON.stringify(notify)}`);
  }
  mergeGrants(grants, local);
  return { ignored, ...(reminders === undefined ? {} : { reminders: reminders as Reminders }), ...(thinking ? { thinking } : {}), ...(notify !== undefined ? { notify } : {}) };
}

function checkReminders(reminders: unknown, at: (pointer: string) => string): void {
  if (typeof reminders !== "object" || reminders === null || Array.isArray(reminders)) {
    throw new RulesFileError(`${at("/reminders")}: "reminders" must be an object, for example {"todoAfter": 10}`);
  }
  const todoAfter = (reminders as Reminders).todoAfter;
  if (todoAfter !== undefined && !(typeof todoAfter === "number" && Number.isInteger(todoAfter) && todoAfter >= 0)) {
    throw new RulesFileError(`${at("/reminders/todoAfter")}: "todoAfter" must be a whole number of turns (0 or more), got ${JSON.stringify(todoAfter)}`);
  }
}

function mergeGrants(into: Grants, from: Grants): void {
  if (from.protect?.length) into.protect = [...(into.protect ?? []), ...from.protect];
  for (const list of ["allow", "deny"] as const) {
    const a = into[list];
    const b = from[list];
    for (const kind of ["read", "write"] as const) {
      a[kind].workspace ||= b[kind].workspace;
      a[kind].paths.push(...b[kind].paths);
      a[kind].globs.push(...b[kind].globs);
    }
    a.run.all ||= b.run.all;
    a.run.programs.push(...b.run.programs);
    a.run.patterns.push(...b.run.patterns);
    a.net.all ||= b.net.all;
    a.net.hosts.push(...b.net.hosts);
    a.mcp.all ||= b.mcp.all;
    a.mcp.names.push(...b.mcp.names);
    a.mcp.rules.push(...b.mcp.rules);
  }
}

interface RuleContext {
  root: string;
  home: string;
  list: "allow" | "deny";
  scope: "user" | "workspace";
  userFile: string;
}

/** What became of one entry: a mistake that stops bunker, or a grant it will not take from this file. */
type RuleOutcome = { problem: string; ignored?: undefined } | { ignored: string; problem?: undefined } | null;

type RuleSet = { read: PathRules; write: PathRules; run: RunRules; net: HostRules; mcp: McpRules };

/** Adds one entry; returns what is wrong with it, or why it was not taken, or null. */
function addRule(into: RuleSet, entry: string, ctx: RuleContext): RuleOutcome {
  const colon = entry.indexOf(":");
  const kind = colon === -1 ? "" : entry.slice(0, colon).trim();
  const value = colon === -1 ? "" : entry.slice(colon + 1).trim();
  const untrusted = ctx.list === "allow" && ctx.scope === "workspace";
  const elsewhere = (flag: string) =>
    `a workspace's own settings cannot allow ${flag === "run" ? "commands" : flag === "mcp" ? "MCP tools" : "network access"} (a cloned repository could grant itself anything). To allow it, add it to ${ctx.userFile} or pass --allow-${flag}`;
  switch (kind) {
    case "read":
    case "write":
      if (!value) return { problem: `give a path or glob after "${kind}:", like "${kind}:src/**"` };
      return addPathRule(into[kind], kind, value, ctx);
    case "run":
      if (!value) return { problem: `give a command pattern after "run:", like "run:git status" or "run:bun test *"` };
      if (untrusted) return { ignored: elsewhere("run") };
      into.run.patterns.push(value);
      return null;
    case "net": {
      const host = value.toLowerCase();
      if (host !== "*" && !parseHostPattern(host)) {
        return { problem: `"${value}" is not a host name${hostOfUrlHint(value)}; write a host, host:port or *.domain, like "net:registry.npmjs.org"` };
      }
      if (untrusted) return { ignored: elsewhere("net") };
      if (host === "*") into.net.all = true;
      else into.net.hosts.push(host);
      return null;
    }
    case "mcp": {
      const rule = parseMcpRule(value);
      if (rule === null) return { problem: `give a server and tool after "mcp:", like "mcp:github/*" or "mcp:github/create_issue"` };
      if (untrusted) return { ignored: elsewhere("mcp") };
      into.mcp.rules.push(rule);
      return null;
    }
    default:
      const meant = kind ? nearestWord(kind, ["read", "write", "run", "net", "mcp"]) : undefined;
      return { problem: `unknown kind ${JSON.stringify(kind || entry)}${meant ? ` (did you mean ${meant}?)` : ""}; entries look like read:GLOB, write:GLOB, run:COMMAND-PATTERN, net:HOST or mcp:SERVER/TOOL` };
  }
}

const GLOB_CHARS = /[*?[\]{}!\\]/;

function addPathRule(rules: PathRules, kind: "read" | "write", value: string, ctx: RuleContext): RuleOutcome {
  if (value.includes("\0")) return { problem: "the path contains a NUL byte" };
  const expanded = value === "~" ? ctx.home : value.startsWith("~/") ? join(ctx.home, value.slice(2)) : value;
  const parts = expanded.split(sep);
  const firstGlob = parts.findIndex((p) => GLOB_CHARS.test(p));
  const literal = firstGlob === -1 ? parts : parts.slice(0, firstGlob);
  const rest = firstGlob === -1 ? [] : parts.slice(firstGlob);
  if (rest.includes("..")) return { problem: `".." may only come before the first wildcard` };
  const literalPath = literal.join(sep);
  // Physically, as every path is: `link/..` goes up from where the link leads.
  const real = resolveFrom(ctx.root, isAbsolute(expanded) ? literalPath || sep : literalPath).real;
  if (ctx.list === "allow" && ctx.scope === "workspace") {
    if (!isWithin(ctx.root, real)) {
      return { ignored: `${real} is outside the workspace, and a workspace's own settings cannot grant that. To allow it, add it to ${ctx.userFile} or pass --allow-${kind}=${real}` };
    }
    // `write:.git`: would make .git writable inside the command sandbox.
    if (kind === "write" && isProtectedPath(ctx.root, real)) {
      return { ignored: `a workspace's own settings cannot allow writes into .git or .bunker (git hooks run code). Pass --allow-write=${join(ctx.root, ".git")} if you mean it` };
    }
    // Any other edit: the repository would waive your approval of the changes it asks the model for.
    if (kind === "write") {
      return { ignored: `a workspace's own settings cannot allow edits without asking ("write:${value}": the repository would approve its own changes). To allow them, add it to ${ctx.userFile} or pass --allow-write` };
    }
  }
  if (rest.length === 0) {
    rules.paths.push(real);
  } else {
    rules.globs.push(`${escapeGlob(real)}${real.endsWith(sep) ? "" : sep}${rest.join(sep)}`);
  }
  return null;
}

/** Makes a literal path safe inside a Bun.Glob pattern (a root like `/src/[old]` must not become a character class). */
function escapeGlob(literal: string): string {
  return literal.replace(/[*?[\]{}!\\]/g, (c) => `\\${c}`);
}

function pointerKey(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * A settings "protect" entry as a rule for runs-later.ts: a wildcard-free path covers itself and
 * everything below it. Here, not there: reading settings must not load what checks a write.
 */
export function protectRule(entry: string, file: string): RunsLaterRule {
  const glob = /[*?[{]/.test(entry) ? entry : `${entry.replace(/\/+$/, "")}{,/**}`;
  return { glob, why: `listed under "protect" in ${file}` };
}

/** A folder's device and inode (through links), or undefined when it is not a folder one can stat. */
function identity(path: string): string | undefined {
  try {
    const st = statSync(path, { bigint: true });
    return st.isDirectory() ? `${st.dev}:${st.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/** An absolute path without empty or `.` parts (`//a/./b/` is /a/b); `..` is kept, for the disk to resolve. */
function tidy(path: string): string {
  return `${sep}${path.split(sep).filter((p) => p !== "" && p !== ".").join(sep)}`;
}
